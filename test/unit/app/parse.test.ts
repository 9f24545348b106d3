import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '#app/errors.ts';
import { parseDeadLetterQuery, parseDeliveryListQuery } from '#app/deliveries/delivery-request.ts';
import {
  decodePathSegment,
  MAX_EVENT_BYTES,
  parseDay,
  parseId,
  parseInstant,
  parseLimit,
  parseObject,
  parsePageRequest,
  parseState,
} from '#app/parse.ts';
import { parseRestore } from '#app/archive/archive-request.ts';
import { parseBulkReplay } from '#app/replay/replay-request.ts';
import { MAX_JSON_NESTING } from '#domain/json-text.ts';
import { parsePublishRequest } from '#app/publish/publish-request.ts';
import { parseCreateSubscription, parseSubscriptionListQuery } from '#app/subscriptions/subscription-request.ts';
import { InvalidRetryPolicyError } from '#domain/errors.ts';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';
import { DELIVERY_STATES } from '#domain/states.ts';

/** Asserts a ValidationError on `field` (the part of the request a caller must fix). */
function assertInvalid(run: () => unknown, field: string, message?: RegExp): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof ValidationError, `expected a ValidationError, got ${String(e)}`);
    assert.equal(e.field, field);
    // The message is built from the parts: `field: rule` (the status and code come from handlers/error-map.ts).
    assert.equal(e.message, `${field}: ${e.rule}`);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const json = (value: unknown) => JSON.stringify(value);
/** A field path short enough for a test name. */
const short = (field: string) => (field.length > 40 ? `${field.slice(0, 40)}…` : field);

describe('parsePublishRequest', () => {
  const valid: ReadonlyArray<readonly [string, string, unknown]> = [
    [
      'type and payload',
      json({ type: 'invoice.paid', payload: { amount: 10 } }),
      { type: 'invoice.paid', payloadJson: '{"amount":10}' },
    ],
    ['an id', json({ id: 'order-42', type: 'a', payload: 1 }), { id: 'order-42', type: 'a', payloadJson: '1' }],
    ['a null payload', json({ type: 'a', payload: null }), { type: 'a', payloadJson: 'null' }],
    ['an array payload', json({ type: 'a', payload: [1, 2] }), { type: 'a', payloadJson: '[1,2]' }],
    [
      'a type with every allowed character',
      json({ type: 'A-z_0.9:x', payload: {} }),
      { type: 'A-z_0.9:x', payloadJson: '{}' },
    ],
    [
      'a 128-character id',
      json({ id: 'i'.repeat(128), type: 'a', payload: {} }),
      { id: 'i'.repeat(128), type: 'a', payloadJson: '{}' },
    ],
    [
      'a 256-character type',
      json({ type: 't'.repeat(256), payload: {} }),
      { type: 't'.repeat(256), payloadJson: '{}' },
    ],
    [
      '2^53 and a big integer as a string',
      '{"type":"a","payload":[9007199254740992,"9007199254740993"]}',
      { type: 'a', payloadJson: '[9007199254740992,"9007199254740993"]' },
    ],
    [
      `a payload nested ${MAX_JSON_NESTING} deep`,
      `{"type":"a","payload":${'['.repeat(MAX_JSON_NESTING)}${']'.repeat(MAX_JSON_NESTING)}}`,
      { type: 'a', payloadJson: `${'['.repeat(MAX_JSON_NESTING)}${']'.repeat(MAX_JSON_NESTING)}` },
    ],
  ];
  for (const [label, raw, expected] of valid) {
    it(`accepts ${label}`, () => {
      assert.deepEqual(parsePublishRequest(raw), expected);
    });
  }

  it("keeps the payload's source text exactly: numbers, escapes, whitespace and key order", () => {
    const payload = '{ "z" : 1.0,\n\t"a":[1e2 , -0, 0.50],"s":"\\u00e9\\n","é":"é" }';
    const request = parsePublishRequest(`{"type":"a",  "payload":  ${payload} \n}`);
    assert.equal(request.payloadJson, payload);
  });

  it('leaves id out when none is given (not id: undefined)', () => {
    assert.equal('id' in parsePublishRequest(json({ type: 'a', payload: {} })), false);
  });

  const invalid: ReadonlyArray<readonly [string, string | null | undefined, string]> = [
    ['no body', undefined, 'body'],
    ['a null body', null, 'body'],
    ['a blank body', '   ', 'body'],
    ['invalid JSON', '{"type":', 'body'],
    ['a JSON array', '[]', 'body'],
    ['a JSON string', '"hello"', 'body'],
    ['an unknown field', json({ type: 'a', payload: {}, extra: 1 }), 'extra'],
    ['a missing type', json({ payload: {} }), 'type'],
    ['an empty type', json({ type: '', payload: {} }), 'type'],
    ['a numeric type', json({ type: 5, payload: {} }), 'type'],
    ['a type with a space', json({ type: 'invoice paid', payload: {} }), 'type'],
    ['a type of 257 characters', json({ type: 't'.repeat(257), payload: {} }), 'type'],
    ['a missing payload', json({ type: 'a' }), 'payload'],
    ['an empty id', json({ id: '', type: 'a', payload: {} }), 'id'],
    ['a numeric id', json({ id: 42, type: 'a', payload: {} }), 'id'],
    ['an id with a space', json({ id: 'a b', type: 'a', payload: {} }), 'id'],
    ['an id of 129 characters', json({ id: 'i'.repeat(129), type: 'a', payload: {} }), 'id'],
    ['an id with non-ASCII', json({ id: 'café', type: 'a', payload: {} }), 'id'],
    ['an array id', json({ id: ['a'], type: 'a', payload: {} }), 'id'],
    ['an array type', json({ type: ['a'], payload: {} }), 'type'],
    [
      'a number JSON.parse makes Infinity',
      '{"type":"a","payload":{"items":[{},{},{},{"price":1e400}]}}',
      'payload.items[3].price',
    ],
    ['a negative one', '{"type":"a","payload":-1e400}', 'payload'],
    ['an integer beyond 2^53', '{"type":"a","payload":{"n":9007199254740993}}', 'payload.n'],
    ['a duplicate key in the payload', '{"type":"a","payload":{"a":1,"a":2}}', 'payload.a'],
    ['a duplicate key spelt with an escape', '{"type":"a","payload":{"a":1,"\\u0061":2}}', 'payload.a'],
    ['a duplicate type', '{"type":"a","type":"b","payload":1}', 'type'],
    ['a duplicate payload', '{"type":"a","payload":1,"payload":2}', 'payload'],
    [
      `a payload nested ${MAX_JSON_NESTING + 1} deep`,
      `{"type":"a","payload":${'['.repeat(MAX_JSON_NESTING + 1)}${']'.repeat(MAX_JSON_NESTING + 1)}}`,
      `payload${'[0]'.repeat(MAX_JSON_NESTING)}`,
    ],
    [
      'a payload nested 5000 deep',
      `{"type":"a","payload":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      `payload${'[0]'.repeat(MAX_JSON_NESTING)}`,
    ],
    ['NaN', '{"type":"a","payload":NaN}', 'body'],
  ];
  for (const [label, raw, field] of invalid) {
    it(`rejects ${label} on '${short(field)}'`, () => {
      assertInvalid(() => parsePublishRequest(raw), field);
    });
  }

  it('rejects a body over the size limit before parsing it', () => {
    const raw = json({ type: 'a', payload: 'x'.repeat(MAX_EVENT_BYTES) });

    assertInvalid(() => parsePublishRequest(raw), 'body', /at most 262144 bytes/);
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    // 'é' is two bytes: this body has fewer characters than the limit but more bytes.
    const raw = json({ type: 'a', payload: 'é'.repeat(MAX_EVENT_BYTES / 2) });

    assert.ok(raw.length < MAX_EVENT_BYTES);
    assertInvalid(() => parsePublishRequest(raw), 'body');
  });
});

describe('parseCreateSubscription', () => {
  const parse = (body: unknown) => parseCreateSubscription(json(body), DEFAULT_RETRY_POLICY);

  it('defaults eventTypes to every event', () => {
    assert.deepEqual(parse({ url: 'https://example.com/hook' }), {
      url: 'https://example.com/hook',
      eventTypes: ['*'],
    });
  });

  it('keeps every optional field and drops duplicate event types', () => {
    const request = parse({
      url: 'https://example.com/hook',
      eventTypes: ['invoice.*', 'user.created', 'invoice.*'],
      tenantId: 'acme:eu-1',
      description: 'billing',
      retryPolicy: { maxAttempts: 6 },
    });

    assert.deepEqual(request, {
      url: 'https://example.com/hook',
      eventTypes: ['invoice.*', 'user.created'],
      tenantId: 'acme:eu-1',
      description: 'billing',
      retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 6 },
    });
  });

  it('merges the retry policy over the default it is given', () => {
    const base = { ...DEFAULT_RETRY_POLICY, deadlineSeconds: 3600 };

    const request = parseCreateSubscription(json({ url: 'https://x.test', retryPolicy: { multiplier: 3 } }), base);

    assert.deepEqual(request.retryPolicy, { ...base, multiplier: 3 });
  });

  it('accepts an empty description', () => {
    assert.equal(parse({ url: 'https://x.test', description: '' }).description, '');
  });

  const invalid: ReadonlyArray<readonly [string, unknown, string]> = [
    ['a missing url', {}, 'url'],
    ['an empty url', { url: '' }, 'url'],
    ['a numeric url', { url: 5 }, 'url'],
    ['an unknown field', { url: 'https://x.test', secret: 'whsec_x' }, 'secret'],
    ['eventTypes that is a string', { url: 'https://x.test', eventTypes: 'a.b' }, 'eventTypes'],
    ['empty eventTypes', { url: 'https://x.test', eventTypes: [] }, 'eventTypes'],
    [
      '101 eventTypes',
      { url: 'https://x.test', eventTypes: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      'eventTypes',
    ],
    ['a numeric event type', { url: 'https://x.test', eventTypes: [1] }, 'eventTypes'],
    ['a wildcard in the middle', { url: 'https://x.test', eventTypes: ['a.*.b'] }, 'eventTypes'],
    ['a bare suffix wildcard', { url: 'https://x.test', eventTypes: ['a*'] }, 'eventTypes'],
    ['an empty segment', { url: 'https://x.test', eventTypes: ['a..b'] }, 'eventTypes'],
    ['an event type of 257 characters', { url: 'https://x.test', eventTypes: ['t'.repeat(257)] }, 'eventTypes'],
    ['a tenant with a slash', { url: 'https://x.test', tenantId: 'a/b' }, 'tenantId'],
    ['an empty tenant', { url: 'https://x.test', tenantId: '' }, 'tenantId'],
    ['a numeric tenant', { url: 'https://x.test', tenantId: 7 }, 'tenantId'],
    ['a description over 1000 characters', { url: 'https://x.test', description: 'd'.repeat(1001) }, 'description'],
    ['a numeric description', { url: 'https://x.test', description: 1 }, 'description'],
    ['a retry policy that is not an object', { url: 'https://x.test', retryPolicy: 5 }, 'retryPolicy'],
    ['an unknown retry policy field', { url: 'https://x.test', retryPolicy: { retries: 5 } }, 'retryPolicy.retries'],
    [
      'a retry policy field out of range',
      { url: 'https://x.test', retryPolicy: { jitter: 1.5 } },
      'retryPolicy.jitter',
    ],
    [
      'a max delay below the initial delay',
      { url: 'https://x.test', retryPolicy: { initialDelaySeconds: 60, maxDelaySeconds: 10 } },
      'retryPolicy.maxDelaySeconds',
    ],
  ];
  for (const [label, body, field] of invalid) {
    it(`rejects ${label} on '${field}'`, () => {
      assertInvalid(() => parse(body), field);
    });
  }

  it('says what is wrong with a retry policy field without repeating its name', () => {
    assertInvalid(
      () => parse({ url: 'https://x.test', retryPolicy: { jitter: 1.5 } }),
      'retryPolicy.jitter',
      /^retryPolicy\.jitter: must be between 0 and 1$/,
    );
  });

  it("builds the retry policy refusal from the domain error's parts and keeps it as the cause", () => {
    assert.throws(
      () => parse({ url: 'https://x.test', retryPolicy: { initialDelaySeconds: 60, maxDelaySeconds: 10 } }),
      (e: unknown) => {
        assert.ok(e instanceof ValidationError);
        assert.ok(e.cause instanceof InvalidRetryPolicyError);
        assert.equal(e.field, e.cause.path);
        assert.equal(e.rule, e.cause.rule);
        assert.equal(e.rule, 'must be at least initialDelaySeconds');
        return true;
      },
    );
  });

  it('rejects a body over 64 KiB', () => {
    assertInvalid(() => parse({ url: 'https://x.test', description: 'd'.repeat(64 * 1024) }), 'body');
  });
});

describe('parseLimit', () => {
  const valid: ReadonlyArray<readonly [string | undefined, number]> = [
    [undefined, 50],
    ['1', 1],
    ['50', 50],
    ['100', 100],
  ];
  for (const [value, limit] of valid) {
    it(`reads ${value} as ${limit}`, () => {
      assert.equal(parseLimit(value), limit);
    });
  }

  it('uses the fallback it is given when absent', () => {
    assert.equal(parseLimit(undefined, 20), 20);
  });

  for (const value of ['0', '101', '-1', '1.5', 'ten', '', ' 5', '1e2']) {
    it(`rejects '${value}' on 'limit'`, () => {
      assertInvalid(() => parseLimit(value), 'limit');
    });
  }
});

describe('parseState', () => {
  for (const state of DELIVERY_STATES) {
    it(`accepts ${state}`, () => {
      assert.equal(parseState(state), state);
    });
  }

  it('reads absent as no filter', () => {
    assert.equal(parseState(undefined), undefined);
  });

  for (const value of ['', 'Pending', 'dead', 'in-flight', 'succeeded']) {
    it(`rejects '${value}' on 'state'`, () => {
      assertInvalid(() => parseState(value), 'state');
    });
  }
});

describe('parseId', () => {
  const valid: ReadonlyArray<readonly [string, string]> = [
    ['dlv_abc-DEF_123', 'dlv'],
    ['sub_x', 'sub'],
    [`evt_${'a'.repeat(64)}`, 'evt'],
  ];
  for (const [id, prefix] of valid) {
    it(`accepts ${id.slice(0, 20)} with prefix ${prefix}`, () => {
      assert.equal(parseId(id, prefix, 'deliveryId'), id);
    });
  }

  const invalid: ReadonlyArray<readonly [string | undefined, string]> = [
    [undefined, 'dlv'],
    ['', 'dlv'],
    ['dlv_', 'dlv'],
    ['sub_abc', 'dlv'],
    ['dlvabc', 'dlv'],
    ['xdlv_abc', 'dlv'],
    ['dlv_abc/def', 'dlv'],
    ['dlv_abc def', 'dlv'],
    [`dlv_${'a'.repeat(65)}`, 'dlv'],
  ];
  for (const [id, prefix] of invalid) {
    it(`rejects ${JSON.stringify(id)?.slice(0, 24)} for prefix ${prefix}, on the field it is told`, () => {
      assertInvalid(() => parseId(id, prefix, 'deliveryId'), 'deliveryId', /must be an id starting with dlv_/);
    });
  }
});

describe('listing queries', () => {
  it('parsePageRequest reads limit and cursor, leaving an absent cursor out', () => {
    assert.deepEqual(parsePageRequest({}), { limit: 50 });
    assert.deepEqual(parsePageRequest({ limit: '7', cursor: 'abc' }), { limit: 7, cursor: 'abc' });
    assert.deepEqual(parsePageRequest({ cursor: '' }), { limit: 50 });
    assertInvalid(() => parsePageRequest({ limit: '0' }), 'limit');
  });

  it('parseSubscriptionListQuery takes an optional tenantId, checked like any tenant id', () => {
    assert.deepEqual(parseSubscriptionListQuery({ tenantId: 'acme', limit: '5' }), { limit: 5, tenantId: 'acme' });
    assert.equal('tenantId' in parseSubscriptionListQuery({}), false);
    assertInvalid(() => parseSubscriptionListQuery({ tenantId: '../other' }), 'tenantId');
  });

  it('parseDeliveryListQuery needs a subscriptionId and takes a state filter', () => {
    assert.deepEqual(parseDeliveryListQuery({ subscriptionId: 'sub_a', state: DELIVERY_STATES[0], cursor: 'c' }), {
      subscriptionId: 'sub_a',
      limit: 50,
      cursor: 'c',
      state: DELIVERY_STATES[0],
    });
    assertInvalid(() => parseDeliveryListQuery({}), 'subscriptionId', /use \/v1\/dead-letters across all/);
    assertInvalid(() => parseDeliveryListQuery({ subscriptionId: "' OR 1=1" }), 'subscriptionId');
    assertInvalid(() => parseDeliveryListQuery({ subscriptionId: 'sub_a', state: 'lost' }), 'state');
  });

  it('parseDeadLetterQuery takes an optional subscriptionId', () => {
    assert.deepEqual(parseDeadLetterQuery({ limit: '10' }), { limit: 10 });
    assert.deepEqual(parseDeadLetterQuery({ subscriptionId: 'sub_a' }), { limit: 50, subscriptionId: 'sub_a' });
    assertInvalid(() => parseDeadLetterQuery({ subscriptionId: 'dlv_a' }), 'subscriptionId');
  });
});

describe('parseObject applies the JSON text rules to every body', () => {
  const refused: ReadonlyArray<readonly [string, string, string]> = [
    ['a duplicate field', '{"url":"https://x.test","url":"https://y.test"}', 'url'],
    ['a duplicate nested field', '{"retryPolicy":{"jitter":0,"jitter":1}}', 'retryPolicy.jitter'],
    ['a non-finite number', '{"retryPolicy":{"multiplier":1e999}}', 'retryPolicy.multiplier'],
    ['an unsafe integer', '{"windowSeconds":9007199254740993}', 'windowSeconds'],
    ['deep nesting', `{"x":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, `x${'.a'.repeat(MAX_JSON_NESTING)}`],
    ['a body that is one huge number', '1e400', 'body'],
    ['a trailing comma', '{"a":1,}', 'body'],
  ];
  for (const [label, raw, field] of refused) {
    it(`refuses ${label} on '${short(field)}'`, () => {
      assertInvalid(() => parseObject(raw, ['url', 'retryPolicy', 'windowSeconds', 'x', 'a']), field);
    });
  }

  it('says where invalid JSON goes wrong', () => {
    assertInvalid(() => parseObject('{"a":1,}', ['a']), 'body', /not valid JSON.*character 7/);
  });
});

describe('parseInstant and parseDay refuse dates that do not exist', () => {
  const impossible = ['2024-02-30', '2024-13-01', '2024-00-10', '2024-04-31', '2023-02-29', '2024-01-32', '2024-01-00'];
  for (const day of impossible) {
    it(`refuses the day ${day}`, () => {
      assertInvalid(() => parseDay(day, 'from'), 'from');
      assertInvalid(() => parseInstant(day, 'createdFrom', 'from'), 'createdFrom');
    });
  }

  const impossibleInstants = [
    '2023-02-29T00:00:00Z',
    '2024-02-30T12:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T23:60:00Z',
    '2024-05-01T23:59:60Z',
    '2024-05-01T10:00:00+24:00',
    '2024-05-01T10:00:00+02:60',
  ];
  for (const instant of impossibleInstants) {
    it(`refuses the instant ${instant}`, () => {
      assertInvalid(() => parseInstant(instant, 'createdTo', 'to'), 'createdTo');
    });
  }

  it('accepts a leap day, the ends of a day and an offset', () => {
    assert.equal(parseDay('2024-02-29', 'from'), '2024-02-29');
    assert.equal(parseInstant('2024-02-29', 'createdFrom', 'from'), '2024-02-29T00:00:00.000Z');
    assert.equal(parseInstant('2024-02-29', 'createdTo', 'to'), '2024-02-29T23:59:59.999Z');
    assert.equal(parseInstant('2000-02-29T23:59:59.5+23:59', 'createdFrom', 'from'), '2000-02-29T00:00:59.500Z');
  });
});

describe('fields that must be strings refuse arrays', () => {
  it('parseId refuses an array holding a valid id', () => {
    assertInvalid(() => parseId(['sub_x'], 'sub', 'subscriptionId'), 'subscriptionId');
  });

  it('a bulk replay refuses subscriptionId as an array', () => {
    assertInvalid(
      () => parseBulkReplay({ createdFrom: '2024-01-01', createdTo: '2024-01-02', subscriptionId: ['sub_x'] }, 'admin'),
      'subscriptionId',
    );
  });

  it('a restore refuses subscriptionId as an array', () => {
    assertInvalid(
      () => parseRestore({ from: '2024-01-01', to: '2024-01-02', subscriptionId: ['sub_x'] }),
      'subscriptionId',
    );
  });
});

describe('decodePathSegment', () => {
  it('decodes percent-escapes', () => {
    assert.equal(decodePathSegment('acme%3Aeu', 'tenantId'), 'acme:eu');
  });

  for (const segment of ['%E0%A4%A', '%', '%zz', '%C0%AF']) {
    it(`refuses the malformed escape ${segment} on the field it is told`, () => {
      assertInvalid(() => decodePathSegment(segment, 'tenantId'), 'tenantId');
    });
  }
});
