import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESPONSE_SNIPPET_BYTES, capUtf8 } from '#domain/types.ts';

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

describe('capUtf8()', () => {
  it('the snippet cap is 512 bytes', () => assert.equal(RESPONSE_SNIPPET_BYTES, 512));

  // [name, input, expected output]
  const table: ReadonlyArray<readonly [string, string, string]> = [
    ['empty', '', ''],
    ['short ASCII', 'Internal Server Error', 'Internal Server Error'],
    ['exactly 512 ASCII bytes', 'a'.repeat(512), 'a'.repeat(512)],
    ['513 ASCII bytes', 'a'.repeat(513), 'a'.repeat(512)],
    ['10 000 ASCII bytes', 'x'.repeat(10_000), 'x'.repeat(512)],
    ['2-byte chars, cut on a boundary', 'é'.repeat(300), 'é'.repeat(256)],
    ['2-byte chars, cut inside one', `a${'é'.repeat(300)}`, `a${'é'.repeat(255)}`],
    ['3-byte chars', '€'.repeat(200), '€'.repeat(170)],
    ['3-byte chars, offset 1', `a${'€'.repeat(200)}`, `a${'€'.repeat(170)}`],
    ['3-byte chars, offset 2', `ab${'€'.repeat(200)}`, `ab${'€'.repeat(170)}`],
    ['4-byte chars on a boundary', '😀'.repeat(200), '😀'.repeat(128)],
    ['4-byte chars, offset 2', `ab${'😀'.repeat(200)}`, `ab${'😀'.repeat(127)}`],
    ['4-byte chars, offset 3', `abc${'😀'.repeat(200)}`, `abc${'😀'.repeat(127)}`],
    ['a genuine U+FFFD before the cut is kept', '\uFFFD'.repeat(200), '\uFFFD'.repeat(170)],
    ['a genuine U+FFFD right at the cut is kept', `${'a'.repeat(509)}\uFFFDzz`, `${'a'.repeat(509)}\uFFFD`],
  ];
  for (const [name, input, expected] of table) {
    it(name, () => {
      const out = capUtf8(input);
      assert.equal(out, expected);
      assert.ok(utf8Length(out) <= 512);
    });
  }

  it('never exceeds 512 bytes and never splits a character, at any offset', () => {
    const chars = ['é', '€', '😀', '中', 'a', '\u0301'];
    for (const ch of chars) {
      for (let pad = 0; pad < 8; pad++) {
        const input = 'z'.repeat(pad) + ch.repeat(600);
        const out = capUtf8(input);
        const bytes = utf8Length(out);
        assert.ok(bytes <= 512, `${ch}/${pad}: ${bytes} bytes`);
        assert.ok(bytes > 512 - utf8Length(ch), `${ch}/${pad}: cut too early (${bytes} bytes)`);
        assert.ok(input.startsWith(out), `${ch}/${pad}: not a prefix`);
        assert.ok(!out.includes('\uFFFD'), `${ch}/${pad}: replacement character`);
        assert.equal(Buffer.from(out, 'utf8').toString('utf8'), out, `${ch}/${pad}: lone surrogate`);
      }
    }
  });

  it('a text within the cap is returned unchanged', () => {
    const text = `{"ok":false,"msg":"${'ошибка '.repeat(30)}"}`;
    assert.ok(utf8Length(text) <= 512);
    assert.equal(capUtf8(text), text);
  });

  // [input, bytes, output]
  const custom: ReadonlyArray<readonly [string, number, string]> = [
    ['héllo', 1, 'h'],
    ['héllo', 2, 'h'],
    ['héllo', 3, 'hé'],
    ['héllo', 6, 'héllo'],
    ['😀x', 3, ''],
    ['😀x', 4, '😀'],
    ['abc', 0, ''],
  ];
  for (const [input, bytes, output] of custom) {
    it(`capUtf8(${JSON.stringify(input)}, ${bytes}) -> ${JSON.stringify(output)}`, () =>
      assert.equal(capUtf8(input, bytes), output));
  }
});
