import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { decodeBody, decodeBodyBase64, encodeBody, encodeBodyBase64 } from '#adapters/body-codec.ts';
import { BodyIntegrityError } from '#adapters/errors.ts';

const envelope = (data: string) =>
  `{"id":"evt_1","type":"order.created","timestamp":"2024-05-01T12:00:00.000Z","data":${data}}`;
/** Bodies a re-serialisation would change, or that stress the codec. */
const TRICKY: ReadonlyArray<readonly [string, string]> = [
  ['an empty object', envelope('{}')],
  ['the empty string', ''],
  ['numbers JSON.parse would rewrite', envelope('{"a":1.0,"b":1e400,"c":-0,"d":0.10,"e":12345678901234567890}')],
  ['escapes kept as written', envelope('{"s":"\\u00e9\\n\\t\\"\\\\\\/","u":"\\ud83d\\ude00"}')],
  ['unicode and emoji as raw text', envelope('{"name":"Zoë Ångström 日本語 עברית","emoji":"🎉👩‍👩‍👧‍👦🏳️‍🌈"}')],
  ['whitespace and key order', envelope('{ "z" : 1 ,\n\t"a" :[ ] }')],
  ['a NUL and control characters', envelope('"\u0000\u0001\u001f"')],
  [
    '256 KiB of incompressible text',
    envelope(`"${randomBytes(96 * 1024).toString('base64')}"`).padEnd(256 * 1024, ' '),
  ],
  [
    '256 KiB of repetitive JSON',
    envelope(JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ i, ok: true })))).padEnd(256 * 1024, ' '),
  ],
];

describe('body codec', () => {
  for (const [label, text] of TRICKY) {
    it(`round-trips ${label} byte for byte`, () => {
      const encoded = encodeBody(text);
      const back = decodeBody(encoded.bytes, encoded.sha256);
      assert.equal(back, text);
      assert.ok(Buffer.from(back, 'utf8').equals(Buffer.from(text, 'utf8')));
      const b64 = encodeBodyBase64(text);
      assert.equal(decodeBodyBase64(b64.base64, b64.sha256), text);
      assert.equal(b64.sha256, encoded.sha256);
    });
  }

  it('names the sha256 of the UTF-8 body, base64url', () => {
    const text = envelope('{"name":"Zoë"}');
    assert.equal(encodeBody(text).sha256, createHash('sha256').update(Buffer.from(text, 'utf8')).digest('base64url'));
    assert.match(encodeBody(text).sha256, /^[A-Za-z0-9_-]{43}$/);
  });

  it('stores raw deflate (no zlib or gzip header), which inflates with any deflate implementation', () => {
    const { bytes } = encodeBody('{"a":1}');
    assert.ok(bytes instanceof Uint8Array);
    assert.notEqual(bytes[0], 0x78, 'no zlib header');
    assert.notEqual(bytes[0], 0x1f, 'no gzip header');
  });

  it('shrinks the 1 KB bench body about ninefold (and a typical one by a third or more)', () => {
    const bench = envelope(JSON.stringify({ pad: 'a'.repeat(1010) }));
    assert.ok(encodeBody(bench).bytes.length < bench.length / 8, `${encodeBody(bench).bytes.length} B`);
  });

  it('is deterministic: the same text, the same bytes', () => {
    const text = envelope('{"n":[1,2,3]}');
    assert.deepEqual(encodeBody(text), encodeBody(text));
  });

  describe('refusals', () => {
    const text = envelope('{"amount":100}');
    const good = encodeBody(text);

    it("a sha256 that is not the body's", () => {
      const other = encodeBody(envelope('{"amount":900}'));
      assert.throws(() => decodeBody(good.bytes, other.sha256), BodyIntegrityError);
      assert.throws(
        () => decodeBody(other.bytes, good.sha256),
        (e: Error) => e instanceof BodyIntegrityError && e.name === 'BodyIntegrityError' && /sha256/.test(e.message),
      );
    });

    it('bytes that were altered, whether or not they still inflate: never altered text', () => {
      let refused = 0;
      for (let i = 0; i < good.bytes.length; i++) {
        for (const bit of [0x01, 0x40]) {
          const altered = Uint8Array.from(good.bytes);
          altered[i]! ^= bit;
          try {
            // Only the unused padding bits after the final block may change and still give the text.
            assert.equal(decodeBody(altered, good.sha256), text, `byte ${i}`);
          } catch (error) {
            if (!(error instanceof BodyIntegrityError)) throw error;
            refused++;
          }
        }
      }
      assert.ok(refused >= 2 * good.bytes.length - 2, `${refused} of ${2 * good.bytes.length} alterations refused`);
    });

    it('truncated bytes, and bytes that are no deflate stream at all', () => {
      assert.throws(() => decodeBody(good.bytes.slice(0, -3), good.sha256), BodyIntegrityError);
      assert.throws(() => decodeBody(Uint8Array.from([0xff, 0xff, 0xff]), good.sha256), BodyIntegrityError);
    });

    it('a stream that inflates to more than any body can be (stops there, not at the memory limit)', () => {
      const bomb = deflateRawSync(Buffer.alloc(16 * 1024 * 1024));
      assert.throws(
        () => decodeBody(bomb, good.sha256),
        (e: Error) => e instanceof BodyIntegrityError && /inflate/.test(e.message),
      );
    });

    it('base64 that was altered on the way', () => {
      const b64 = encodeBodyBase64(text);
      const flipped = b64.base64[5] === 'A' ? 'B' : 'A';
      assert.throws(
        () => decodeBodyBase64(b64.base64.slice(0, 5) + flipped + b64.base64.slice(6), b64.sha256),
        BodyIntegrityError,
      );
      assert.throws(() => decodeBodyBase64(b64.base64, encodeBodyBase64('{}').sha256), BodyIntegrityError);
    });
  });

  it('a lone surrogate (which no UTF-8 text carries) comes back as U+FFFD, as the endpoint would receive it', () => {
    const encoded = encodeBody('{"s":"\ud800"}');
    assert.equal(decodeBody(encoded.bytes, encoded.sha256), '{"s":"\ufffd"}');
  });
});
