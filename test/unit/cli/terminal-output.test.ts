import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Backend } from '#cli/backend.ts';
import * as commands from '#cli/commands.ts';
import { main } from '#cli/main.ts';
import { Output, table } from '#cli/output.ts';
import { printable } from '#cli/printable.ts';

// Characters a terminal acts on instead of showing them.
const ESC = '\u001b';
const HOSTILE = [
  `${ESC}]0;pwned${'\u0007'}`, // OSC: sets the window title, ends with BEL
  `${ESC}[2J${ESC}[H`, // clears the screen
  `ok\rFAKE`, // CR: overwrites the line
  '\u009b31m', // C1 CSI, one character
  '\u202eevil\u202c', // right-to-left override
  '\u2066iso\u2069', // isolates
  'a\u0008b', // backspace
  'del\u007f',
  'nul\u0000',
  'line\u2028sep',
].join(' ');
/** Nothing a terminal would interpret may come out raw. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A test name in plain ASCII, so the test report itself stays readable. */
const ascii = (s: string) =>
  JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { stream, text: () => text };
}

describe('printable()', () => {
  // [input, printed]
  const table_: ReadonlyArray<readonly [string, string]> = [
    [
      'plain text, \u00fcn\u00efc\u00f8d\u00e9 and emoji \u{1f389}',
      'plain text, \u00fcn\u00efc\u00f8d\u00e9 and emoji \u{1f389}',
    ],
    [`${ESC}[31mred`, '\\x1b[31mred'],
    ['bell\u0007', 'bell\\x07'],
    ['a\rb', 'a\\rb'],
    ['a\nb', 'a\\nb'],
    ['a\tb', 'a\\tb'],
    ['\u0000\u001f\u007f', '\\x00\\x1f\\x7f'],
    ['\u0080\u009b\u009f', '\\x80\\x9b\\x9f'],
    ['\u202eabc\u202c', '\\u202eabc\\u202c'],
    ['\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['\u2028\u2029', '\\u2028\\u2029'],
    ['a\\x1b stays as written', 'a\\x1b stays as written'],
  ];
  for (const [input, printed] of table_) {
    it(`${ascii(input)} prints as ${ascii(printed)}`, () => {
      assert.equal(printable(input), printed);
      assert.equal(printable(printed), printed, 'escaping twice changes nothing');
    });
  }

  it('keeps line breaks when asked (a whole block of output), escaping everything else', () => {
    assert.equal(printable(`one\ntwo${ESC}[0m\r\n`, { keepNewlines: true }), 'one\ntwo\\x1b[0m\\r\n');
  });
});

describe('CLI output is safe for a terminal', () => {
  it('table() escapes every cell, and the columns still line up', () => {
    const text = table(
      [
        [`${ESC}[2J`, 'x'],
        ['ab', 'y'],
      ],
      ['A', 'B'],
    );
    assert.doesNotMatch(text, UNSAFE);
    const lines = text.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[1], '\\x1b[2J  x');
    assert.equal(lines[2], 'ab       y');
  });

  it('human results, progress and errors are escaped; a line break inside a value cannot forge a line', () => {
    const out = capture();
    const err = capture();
    const o = new Output({ json: false, quiet: false }, out.stream, err.stream);
    o.result({}, () => `first${ESC}[1A\nsecond`);
    o.progress(`step ${ESC}]0;t\u0007`);
    o.error(`bad ${'\u009b'}2J`);
    assert.equal(out.text(), 'first\\x1b[1A\nsecond\n');
    assert.equal(err.text(), 'step \\x1b]0;t\\x07\nhookline: bad \\x9b2J\n');
  });

  const hostileSubscription = {
    id: 'sub_1',
    state: 'paused',
    stateReason: `maintenance\n${HOSTILE}`,
    stateChangedAt: '2024-05-01T00:00:00.000Z',
    tenantId: 'acme',
    eventTypes: ['*'],
    url: `https://example.com/${ESC}[8m`,
    description: HOSTILE,
  };
  const hostileDelivery = {
    id: 'dlv_1',
    state: 'failed',
    attempts: 1,
    eventId: 'evt_1',
    subscriptionId: 'sub_1',
    url: `https://example.com/${ESC}[8m`,
    createdAt: 't0',
    updatedAt: 't1',
    giveUpAt: 't2',
    lastStatus: 500,
    lastError: `http_500${ESC}[2K`,
    headers: { 'content-type': 'application/json' },
    body: '{"x":"\\u001b"}',
    attemptLog: [
      {
        seq: 1,
        attempt: 1,
        startedAt: 't0',
        durationMs: 5,
        status: 500,
        error: null,
        responseSnippet: `${ESC}]8;;https://evil.example/${ESC}\\click me${ESC}]8;;${ESC}\\\r\nfake`,
      },
    ],
  };
  // What each route answers, by the operations table's key the commands call it with.
  const answers: Record<string, unknown> = {
    'GET /v1/subscriptions': { items: [hostileSubscription], nextCursor: null },
    'POST /v1/subscriptions/{subscriptionId}/pause': hostileSubscription,
    'POST /v1/subscriptions': { ...hostileSubscription, secret: 'whsec_x' },
    'GET /v1/deliveries/{deliveryId}': hostileDelivery,
    'GET /v1/dead-letters': { items: [hostileDelivery], nextCursor: null },
  };
  const backend = {
    aws: false,
    call: async (key: string) => {
      if (!(key in answers)) throw new Error(`unexpected call ${key}`);
      return answers[key];
    },
  } as unknown as Backend;

  const runs: ReadonlyArray<readonly [string, (ctx: commands.Context) => Promise<void>, unknown]> = [
    [
      'subscriptions list',
      (ctx) => commands.subscriptionsList(ctx, { limit: 10 }),
      { items: [hostileSubscription], nextCursor: null },
    ],
    ['subscriptions pause', (ctx) => commands.subscriptionsPause(ctx, 'sub_1', {}), hostileSubscription],
    [
      'subscriptions create',
      (ctx) => commands.subscriptionsCreate(ctx, { url: 'https://example.com/' }),
      { ...hostileSubscription, secret: 'whsec_x' },
    ],
    ['deliveries show', (ctx) => commands.deliveriesShow(ctx, 'dlv_1'), hostileDelivery],
    [
      'dead-letters list',
      (ctx) => commands.deadLettersList(ctx, { limit: 10 }),
      { items: [hostileDelivery], nextCursor: null },
    ],
  ];
  for (const [name, run, data] of runs) {
    it(`${name}: human output shows the characters escaped, never raw`, async () => {
      const out = capture();
      await run({
        backend,
        out: new Output({ json: false, quiet: true }, out.stream, new PassThrough()),
        operator: 'me',
        pollMs: 1,
      });
      assert.doesNotMatch(out.text(), UNSAFE);
      assert.match(out.text(), /\\x1b/);
    });

    it(`${name}: --json output is exact JSON of the same data, with nothing raw for a terminal either`, async () => {
      const out = capture();
      await run({
        backend,
        out: new Output({ json: true, quiet: true }, out.stream, new PassThrough()),
        operator: 'me',
        pollMs: 1,
      });
      assert.doesNotMatch(out.text(), UNSAFE);
      assert.deepEqual(JSON.parse(out.text()), data);
    });
  }

  it('a field cannot forge a line of its own: a line break in a pause reason is shown as \\n', async () => {
    const out = capture();
    await commands.subscriptionsPause(
      {
        backend,
        out: new Output({ json: false, quiet: true }, out.stream, new PassThrough()),
        operator: 'me',
        pollMs: 1,
      },
      'sub_1',
      {},
    );
    assert.equal(out.text().split('\n').length, 2, out.text());
    assert.match(out.text(), /maintenance\\n/);
  });

  it("commander's own messages (an argument echoed back) are escaped too", async () => {
    const out = capture();
    const err = capture();
    const code = await main(['node', 'hookline', `no-such-${ESC}[2J`], {
      stdout: out.stream,
      stderr: err.stream,
      env: {},
    });
    assert.equal(code, 2);
    assert.doesNotMatch(err.text(), UNSAFE);
    assert.match(err.text(), /no-such-\\x1b\[2J/);
  });
});
