import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDeliveryMessages, encodeDeliveryMessages } from '#adapters/delivery-message-codec.ts';
import { BodyIntegrityError, MalformedDeliveryMessageError } from '#adapters/errors.ts';
import { DELIVERIES_PER_MESSAGE, MAX_PACK_BYTES } from '#config/topology.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';

const BODY = '{"id":"evt_1","type":"a","timestamp":"2024-05-01T12:00:00.000Z","data":{"n":1.0,"s":"ünï ✓"}}';
const EVENT = {
  eventId: 'evt_1',
  eventType: 'a',
  createdAt: '2024-05-01T12:00:00.000Z',
  giveUpAt: '2024-05-04T12:00:00.000Z',
} as const;
const FRESH = { kind: 'fresh', deliveryId: 'dlv_1', subscriptionId: 'sub_1', ...EVENT, body: BODY } as const;
const ATTEMPT = {
  seq: 2,
  attempt: 2,
  startedAt: '2024-05-01T12:00:05.000Z',
  durationMs: 31,
  status: 503,
  responseSnippet: 'busy',
} as const;
const RETRY = {
  kind: 'retry',
  deliveryId: 'dlv_1',
  subscriptionId: 'sub_1',
  ...EVENT,
  body: BODY,
  attemptSeq: 2,
  attempts: 2,
  nextAttemptAt: '2024-05-01T12:00:10.000Z',
  previousAttempt: ATTEMPT,
} as const;
const one = (m: DeliveryMessage) => {
  const bodies = encodeDeliveryMessages([m]);
  assert.equal(bodies.length, 1);
  return bodies[0]!;
};
const decode = (body: string) => decodeDeliveryMessages(JSON.parse(body));
const freshN = (n: number, body = BODY): DeliveryMessage[] =>
  Array.from({ length: n }, (_, i) => ({ ...FRESH, deliveryId: `dlv_${i}`, eventId: `evt_${i}`, body }));
/** Random bytes do not compress: about `kb` KB of body text that stays about that size on the wire. */
const noise = (kb: number) => JSON.stringify(randomBytes(kb * 768).toString('base64'));

describe('delivery message codec', () => {
  it('round-trips a fresh message, the body byte for byte, compressed on the way', () => {
    const wire = one({ ...FRESH, delaySeconds: 5 });

    assert.deepEqual(decode(wire), [FRESH]);
    assert.equal(wire.includes('ünï'), false, 'the body travels compressed');
    assert.equal(wire.includes('delaySeconds'), false, "the delay is the queue's, not part of the body");
    assert.equal(wire.includes('"pack"'), false, 'a delivery alone is a message of its own, not a pack of one');
  });

  it('round-trips a retry with the row it expects and the attempt it carries, and a due message with its ids alone', () => {
    assert.deepEqual(decode(one(RETRY)), [RETRY]);
    const due = {
      kind: 'due',
      deliveryId: 'dlv_1',
      subscriptionId: 'sub_1',
      notBefore: '2024-05-01T13:00:00.000Z',
    } as const;
    assert.deepEqual(decode(one({ ...due, delaySeconds: 840 })), [due]);
    assert.deepEqual(decode(one({ ...due, reread: true })), [{ ...due, reread: true }]);
    assert.deepEqual(
      decode(one({ ...due, attemptSeq: 4 })),
      [{ ...due, attemptSeq: 4 }],
      'the attempt number it was sent for',
    );
    assert.deepEqual(JSON.parse(one(due)).v, 2, 'the wire form says its version');
  });

  it("round-trips the row's earlier attempts, all or none: a list missing an entry is not carried at all", () => {
    const { status: _s, responseSnippet: _r, ...timedOut } = { ...ATTEMPT, seq: 2, attempt: 2, error: 'timeout' };
    const earlierAttempts = [{ ...ATTEMPT, seq: 1, attempt: 1 }, timedOut];
    const retry = { ...RETRY, attemptSeq: 3, previousAttempt: { ...ATTEMPT, seq: 3, attempt: 3 } };

    assert.deepEqual(decode(one({ ...retry, earlierAttempts })), [{ ...retry, earlierAttempts }]);

    const wire = JSON.parse(one({ ...retry, earlierAttempts }));
    wire.earlierAttempts[1] = { seq: 2 };
    assert.deepEqual(
      decodeDeliveryMessages(wire),
      [retry],
      'a malformed entry: the list is left out, the row keeps its own',
    );
  });

  it('reads the messages of an earlier version: a first attempt whole as fresh, anything else as due (its row is read)', () => {
    const ids = { deliveryId: 'dlv_1', subscriptionId: 'sub_1' };
    const { kind: _k, body: _b, ...wireFresh } = FRESH;
    assert.deepEqual(decodeDeliveryMessages({ ...wireFresh, fresh: true }), [{ kind: 'fresh', ...ids, ...EVENT }]);
    for (const earlier of [
      ids,
      { ...ids, fresh: true },
      { ...ids, eventType: 'a', recorded: { attemptSeq: 3, nextAttemptAt: EVENT.createdAt } },
      { ...ids, notBefore: '2024-05-01T13:00:00.000Z' },
    ]) {
      const [read] = decodeDeliveryMessages(earlier);
      assert.equal(read!.kind, 'due', JSON.stringify(earlier));
    }
    assert.deepEqual(
      decodeDeliveryMessages({ ...ids, notBefore: '2024-05-01T13:00:00.000Z' }),
      [{ kind: 'due', ...ids, notBefore: '2024-05-01T13:00:00.000Z' }],
      'a chain link keeps its time',
    );
  });

  it('refuses a message of a version it does not know, or one of this version missing what its kind needs', () => {
    const ids = { deliveryId: 'dlv_1', subscriptionId: 'sub_1' };
    for (const wire of [
      { v: 3, k: 'due', ...ids },
      { v: 2, k: 'fresh', ...ids },
      { v: 2, k: 'retry', ...ids, ...EVENT, attempts: 1 },
      { v: 2, k: 'soon', ...ids, ...EVENT },
    ]) {
      assert.throws(() => decodeDeliveryMessages(wire), MalformedDeliveryMessageError, JSON.stringify(wire));
    }
  });

  it('leaves out a body too large for a message: the sender reads the event instead', () => {
    const wire = JSON.parse(one({ ...FRESH, body: noise(250) }));

    assert.equal(wire.bodyZ, undefined);
    assert.deepEqual(
      decodeDeliveryMessages(wire),
      [{ ...FRESH, body: undefined }].map(({ body: _b, ...m }) => m),
    );
  });

  it('refuses a body whose bytes do not match their sha256', () => {
    const wire = JSON.parse(one(FRESH));

    assert.throws(
      () => decodeDeliveryMessages({ ...wire, bodySha256: 'AAAA' }),
      (e: unknown) => e instanceof BodyIntegrityError,
    );
  });

  it(`packs up to ${DELIVERIES_PER_MESSAGE} deliveries a message, in order, each as it was`, () => {
    const messages = freshN(23);

    const bodies = encodeDeliveryMessages(messages);

    const decoded = bodies.map(decode);
    assert.deepEqual(
      decoded.map((d) => d.length),
      [10, 10, 3],
    );
    assert.deepEqual(
      decoded.flat(),
      messages.map(({ delaySeconds: _d, ...m }) => m),
    );
  });

  it(`keeps a pack within ${MAX_PACK_BYTES} bytes (one billed SQS request); a delivery too large to share goes alone`, () => {
    const large = freshN(5, noise(20));
    const huge = { ...FRESH, deliveryId: 'dlv_huge', body: noise(100) };

    const bodies = encodeDeliveryMessages([...large, huge, ...freshN(2)]);

    for (const body of bodies.filter((b) => b.startsWith('{"pack"')))
      assert.ok(Buffer.byteLength(body) <= MAX_PACK_BYTES, `a pack of ${Buffer.byteLength(body)} bytes`);
    const decoded = bodies.map(decode);
    assert.ok(
      decoded.every((d) => d.length < 5),
      'five 20 KB deliveries do not fit one pack',
    );
    assert.deepEqual(
      decoded.find((d) => d.some((m) => m.deliveryId === 'dlv_huge'))!.length,
      1,
      'the 100 KB one goes alone',
    );
    assert.deepEqual(
      decoded.flat().map((m) => m.deliveryId),
      [...large.map((m) => m.deliveryId), 'dlv_huge', 'dlv_0', 'dlv_1'],
    );
  });

  it('never packs a delivery marked to travel alone, and leaves the mark off the wire', () => {
    const [a, b, c] = freshN(3);

    const bodies = encodeDeliveryMessages([a!, { ...b!, alone: true }, c!]);

    assert.deepEqual(
      bodies.map((body) => decode(body).map((m) => m.deliveryId)),
      [['dlv_1'], ['dlv_0', 'dlv_2']],
      'the others still share one',
    );
    assert.equal(bodies[1]!.includes('alone'), false);
  });

  it('refuses what it never wrote, naming what is wrong', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ subscriptionId: 'sub_1' }, /deliveryId/],
      [{ deliveryId: 'dlv_1' }, /dlv_1 lacks a string subscriptionId/],
      [{ pack: [] }, /a pack must list its deliveries/],
      [{ pack: 'dlv_1' }, /a pack must list its deliveries/],
      [{ pack: [{ deliveryId: 'dlv_1', subscriptionId: 'sub_1' }, 7] }, /a pack entry must be an object/],
      [{ pack: [{ deliveryId: 'dlv_1' }] }, /subscriptionId/],
    ];
    for (const [wire, message] of cases) {
      assert.throws(
        () => decodeDeliveryMessages(wire),
        (e: unknown) => e instanceof MalformedDeliveryMessageError && message.test(e.message),
        JSON.stringify(wire),
      );
    }
  });
});
