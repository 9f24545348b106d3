import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_NESTING, scanJsonText } from '#domain/json-text.ts';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('scanJsonText: what it accepts', () => {
  const valid: ReadonlyArray<readonly [string, string]> = [
    ['an empty object', '{}'],
    ['an empty array', '[]'],
    ['zero', '0'],
    ['minus zero', '-0'],
    ['1.0', '1.0'],
    ['1e2', '1e2'],
    ['a signed exponent', '-1.5E-3'],
    ['the largest finite double', '1.7976931348623157e308'],
    ['2^53 itself', '9007199254740992'],
    ['minus 2^53', '-9007199254740992'],
    ['a fraction beyond 2^53 (only integer literals are checked)', '12345678901234567890.5'],
    ['a big integer sent as a string', '"9007199254740993"'],
    ['escapes', '"\\u00e9\\n\\t\\"\\\\\\/\\b\\f\\r"'],
    ['a surrogate pair escape', '"\\ud83d\\ude00"'],
    ['raw non-ASCII', '"ünïcödé ✓ 😀"'],
    ['odd whitespace', ' \t\r\n{ "a" :\n[ 1 ,2 ] }\n '],
    ['true, false and null', '[true,false,null]'],
    ['the same key in different objects', '{"a":{"a":1},"b":{"a":2}}'],
    ['keys that differ only in case', '{"a":1,"A":2}'],
    ['a __proto__ key', '{"__proto__":1}'],
    [`nesting of exactly ${MAX_JSON_NESTING}`, nested(MAX_JSON_NESTING)],
  ];
  for (const [label, text] of valid) {
    it(`accepts ${label}`, () => {
      const scan = scanJsonText(text);
      assert.equal(scan.ok, true, JSON.stringify(scan));
      // The scanner's idea of valid JSON never disagrees with the platform parser.
      assert.doesNotThrow(() => JSON.parse(text));
    });
  }
});

describe('scanJsonText: syntax it refuses (as JSON.parse would)', () => {
  const invalid: ReadonlyArray<readonly [string, string]> = [
    ['nothing', ''],
    ['only whitespace', ' \n '],
    ['an unclosed object', '{'],
    ['a key without a value', '{"a"}'],
    ['a trailing comma in an object', '{"a":1,}'],
    ['a trailing comma in an array', '[1,]'],
    ['a leading zero', '01'],
    ['a bare decimal point', '1.'],
    ['a fraction without an integer part', '.5'],
    ['a plus sign', '+1'],
    ['an exponent without digits', '1e'],
    ['an exponent sign without digits', '1e+'],
    ['a lone minus', '-'],
    ['two minus signs', '--1'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['single quotes', "'a'"],
    ['an unterminated string', '"a'],
    ['an unknown escape', '"\\x41"'],
    ['a short \\u escape', '"\\u12"'],
    ['a raw tab in a string', '"a\tb"'],
    ['a raw NUL in a string', '"a\u0000b"'],
    ['two values', '{} {}'],
    ['a truncated literal', 'tru'],
    ['a misspelt literal', 'nul1'],
    ['a byte-order mark', '\uFEFF{}'],
    ['a missing comma', '[1 2]'],
    ['a missing colon', '{"a" 1}'],
    ['a number as a key', '{1:2}'],
    ['a comment', '/*c*/{}'],
    ['a non-breaking space as whitespace', '\u00a0{}'],
    ['an unclosed array', '[1,2'],
    ['a mismatched bracket', '[1}'],
  ];
  for (const [label, text] of invalid) {
    it(`refuses ${label}`, () => {
      const scan = scanJsonText(text);
      assert.equal(scan.ok, false);
      if (scan.ok) return;
      assert.equal(scan.refusal.kind, 'syntax');
      assert.match(scan.refusal.rule, /not valid JSON/);
      assert.throws(() => JSON.parse(text), SyntaxError);
    });
  }
});

describe('scanJsonText: valid JSON it refuses, naming the value', () => {
  const refused: ReadonlyArray<readonly [string, string, string, RegExp]> = [
    [
      'a number JSON.parse turns into Infinity',
      '{"payload":{"items":[{},{},{},{"price":1e400}]}}',
      'payload.items[3].price',
      /finite/,
    ],
    ['a negative one at the root', '-1e400', '', /finite/],
    ['an integer one above 2^53', '[9007199254740993]', '[0]', /2\^53/],
    ['a negative integer below -2^53', '{"n":-9007199254740993}', 'n', /2\^53/],
    ['a 20-digit integer', '{"n":12345678901234567890}', 'n', /2\^53/],
    ['a 400-digit integer', `{"n":${'9'.repeat(400)}}`, 'n', /2\^53/],
    ['a duplicate key', '{"a":1,"a":2}', 'a', /more than once/],
    ['a duplicate key spelt with an escape', '{"a":1,"\\u0061":2}', 'a', /more than once/],
    ['a duplicate key deep inside', '{"x":{"b":[{"c":1,"c":1}]}}', 'x.b[0].c', /more than once/],
    ['a duplicate under a key that is not a name', '{"weird key":{"k":1,"k":2}}', '["weird key"].k', /more than once/],
    ['a duplicate of an empty key', '{"":1,"":2}', '[""]', /more than once/],
    [
      `nesting of ${MAX_JSON_NESTING + 1}`,
      nested(MAX_JSON_NESTING + 1),
      '[0]'.repeat(MAX_JSON_NESTING),
      /deeper than 64/,
    ],
    [
      'nesting of objects',
      `${'{"a":'.repeat(MAX_JSON_NESTING + 1)}1${'}'.repeat(MAX_JSON_NESTING + 1)}`,
      '.a'.repeat(MAX_JSON_NESTING).slice(1),
      /deeper than 64/,
    ],
  ];
  for (const [label, text, path, rule] of refused) {
    it(`refuses ${label} at '${path}'`, () => {
      const scan = scanJsonText(text);
      assert.equal(scan.ok, false);
      if (scan.ok) return;
      assert.equal(scan.refusal.kind, 'value');
      assert.equal(scan.refusal.path, path);
      assert.match(scan.refusal.rule, rule);
    });
  }

  it('takes the nesting limit it is given', () => {
    assert.equal(scanJsonText(nested(3), { maxNesting: 3 }).ok, true);
    const scan = scanJsonText('{"a":[[1]]}', { maxNesting: 2 });
    assert.deepEqual(scan.ok ? undefined : [scan.refusal.path, scan.refusal.kind, scan.refusal.rule], [
      'a[0]',
      'value',
      'nests deeper than 2 levels',
    ]);
  });

  it('counts nesting below the outer levels it is told to leave out (a body object around its fields)', () => {
    assert.equal(scanJsonText(`{"a":${nested(3)}}`, { maxNesting: 3, outerLevels: 1 }).ok, true);
    const scan = scanJsonText(`{"a":${nested(4)}}`, { maxNesting: 3, outerLevels: 1 });
    assert.deepEqual(scan.ok ? undefined : [scan.refusal.path, scan.refusal.rule], [
      'a[0][0][0]',
      'nests deeper than 3 levels',
    ]);
  });

  it('refuses 100 000 levels of nesting without overflowing the stack', () => {
    const scan = scanJsonText(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    assert.equal(scan.ok, false);
  });

  it('shortens a long key in the path it reports', () => {
    const key = 'k'.repeat(1000);
    const scan = scanJsonText(`{"${key}":{"x":1,"x":2}}`);
    assert.equal(scan.ok, false);
    if (scan.ok) return;
    assert.ok(scan.refusal.path.length < 100, scan.refusal.path);
    assert.match(scan.refusal.path, /^k+….x$/);
  });

  it('reports the first problem in the text', () => {
    const scan = scanJsonText('{"a":1e400,"b":9007199254740993,"a":1}');
    assert.deepEqual(scan.ok ? undefined : scan.refusal.path, 'a');
    assert.match(scan.ok ? '' : scan.refusal.rule, /finite/);
  });
});

describe('scanJsonText: the source of each member of a root object', () => {
  it('gives the exact text of each top-level value, without the whitespace around it', () => {
    const payload = '{ "b" : 1.0 ,\n\t"a":[1e2, -0], "s":"\\u00e9" }';
    const text = `{"id":"x",  "payload" :  ${payload}  , "n": 5}`;
    const scan = scanJsonText(text);
    assert.ok(scan.ok);
    const source = (key: string) => {
      const span = scan.members.get(key);
      return span && text.slice(span.start, span.end);
    };
    assert.equal(source('payload'), payload);
    assert.equal(source('id'), '"x"');
    assert.equal(source('n'), '5');
    assert.equal(source('missing'), undefined);
  });

  it('has no members for a root that is not an object', () => {
    const scan = scanJsonText('[{"a":1}]');
    assert.ok(scan.ok);
    assert.equal(scan.members.size, 0);
  });

  it('scans a large text in linear time', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"key\\u00e9${i}":[${i},1.5,"v"]`).join(',');
    const started = performance.now();
    const scan = scanJsonText(`{${keys}}`);
    assert.equal(scan.ok, true);
    assert.ok(performance.now() - started < 3000, 'a few MB scan in well under seconds');
  });
});
