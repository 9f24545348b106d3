import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryStageError } from '#app/errors.ts';
import { firstDelivery } from '#app/publish/first-delivery.ts';
import type { Receipt } from '#app/send/attempt.ts';
import type { AttemptReport } from '#app/send/outcome.ts';
import { processDelivery, type SendDeps } from '#app/send/send.ts';
import { PAUSED_RECHECK_SECONDS } from '#config/topology.ts';
import { attemptLog, ROW_BOOKKEEPING_BYTES, ROW_WRITE_UNIT_BYTES } from '#domain/attempt-log.ts';
import { itemBytes } from '#domain/item-size.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { attemptTtlFor, deadLetterEventTtl } from '#domain/retention.ts';
import { verifySignature } from '#domain/signing.ts';
import { RESPONSE_SNIPPET_BYTES, type Delivery, type EventRecord, type Subscription } from '#domain/types.ts';
import type { FreshMessage, ReceivedDeliveryMessage, RetryMessage } from '#ports/delivery-queue.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { aSubscription, fakeDeps, TEST_SECRET, type FakeDeps } from '#test/fakes.ts';

// The fake clock starts here and draws 0.5 for jitter, so the default policy's delays are exact: 10 s, 20 s, 40 s, ...
const NOW = '2024-05-01T12:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const at = (seconds: number) => new Date(NOW_MS + seconds * 1000).toISOString();
const BODY = '{"id":"evt_1","type":"order.created","timestamp":"2024-05-01T12:00:00.000Z","data":{}}';
const ID = deliveryIdFor('evt_1', 'sub_1', NOW);

/** Answers each POST with the next scripted result and keeps the requests. */
class ScriptedHttp implements HttpSender {
  readonly requests: HttpRequest[] = [];
  constructor(private readonly script: Array<AttemptResult | ((request: HttpRequest) => Promise<AttemptResult>)>) {}

  async post(request: HttpRequest): Promise<AttemptResult> {
    this.requests.push(request);
    const next = this.script.shift();
    assert.ok(next, 'a POST nobody scripted');
    return typeof next === 'function' ? next(request) : next;
  }
}

const response = (status: number, bodySnippet = '', durationMs = 42): AttemptResult => ({
  kind: 'response',
  status,
  bodySnippet,
  durationMs,
});

interface World {
  readonly deps: FakeDeps & SendDeps;
  readonly http: ScriptedHttp;
  readonly subscription: Subscription;
}

/** One subscription and one stored event; no delivery row, as publish leaves it. */
function world(
  options: {
    subscription?: Partial<Subscription> | null;
    event?: boolean;
    script?: ConstructorParameters<typeof ScriptedHttp>[0];
  } = {},
): World {
  const http = new ScriptedHttp(options.script ?? []);
  const deps = { ...fakeDeps(), http, attemptTimeoutMs: 15_000 };
  const subscription = aSubscription({ id: 'sub_1', ...options.subscription });
  if (options.subscription !== null) deps.subscriptions.items.set(subscription.id, subscription);
  if (options.event !== false) {
    const event: EventRecord = {
      id: 'evt_1',
      type: 'order.created',
      body: BODY,
      subscriptionIds: ['sub_1'],
      deliveryIds: [ID],
      createdAt: NOW,
    };
    deps.events.items.set(event.id, event);
  }
  return { deps, http, subscription };
}

/** Publish's message for the world's delivery. */
const FRESH: FreshMessage = {
  kind: 'fresh',
  deliveryId: ID,
  subscriptionId: 'sub_1',
  eventId: 'evt_1',
  eventType: 'order.created',
  createdAt: NOW,
  giveUpAt: at(259_200),
  body: BODY,
};
const FIRST_RECEIVE: Receipt = { receiveCount: 1 };
const send = (w: World, message: ReceivedDeliveryMessage = FRESH, receipt: Receipt = FIRST_RECEIVE) =>
  processDelivery(w.deps, message, receipt);
const stored = (w: World) => w.deps.deliveries.items.get(ID);
const report = (
  fields: Omit<AttemptReport, 'deliveryId' | 'subscriptionId' | 'eventType' | 'host'>,
): AttemptReport => ({
  deliveryId: ID,
  subscriptionId: 'sub_1',
  eventType: 'order.created',
  host: 'hooks.example.com',
  ...fields,
});
/** What the sender was told to send next: the retry's message. */
const nextOf = (outcome: Awaited<ReturnType<typeof send>>) =>
  outcome.kind === 'retry_later' ? outcome.next : undefined;

describe('processDelivery: the first attempt', () => {
  it('2xx: signs and POSTs the carried body, and writes the row once, delivered, its attempt inline; nothing else is read or written', async () => {
    const w = world({ script: [response(204, 'ok', 37)] });
    w.deps.events.items.clear();
    const reads = { deliveries: 0 };
    const get = w.deps.deliveries.get.bind(w.deps.deliveries);
    w.deps.deliveries.get = (id) => (reads.deliveries++, get(id));

    const outcome = await send(w);

    assert.deepEqual(outcome, {
      kind: 'done',
      note: 'delivered',
      outcome: { kind: 'delivered' },
      attempt: report({ attempt: 1, status: 204, durationMs: 37, outcome: 'succeed', state: 'delivered' }),
    });
    const [request] = w.http.requests;
    assert.equal(request!.url, 'https://hooks.example.com/sub_1');
    assert.equal(request!.body, BODY);
    assert.equal(request!.headers['webhook-id'], 'evt_1');
    assert.equal(
      verifySignature(
        [TEST_SECRET],
        request!.headers['webhook-id']!,
        Number(request!.headers['webhook-timestamp']),
        BODY,
        request!.headers['webhook-signature']!,
      ),
      true,
    );
    const row = stored(w)!;
    assert.deepEqual(
      [row.state, row.attempts, row.attemptSeq, row.lastStatus, row.lastError],
      ['delivered', 1, 1, 204, undefined],
    );
    assert.deepEqual(row.lastAttempt, {
      seq: 1,
      attempt: 1,
      startedAt: NOW,
      durationMs: 37,
      status: 204,
      responseSnippet: 'ok',
    });
    assert.equal(reads.deliveries, 0, 'no row read');
    assert.deepEqual(await w.deps.attempts.list(ID), [], 'the attempt is inline: no attempts row');
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesSucceeded: 1 });
  });

  it("5xx: writes the row pending, due after the backoff, and hands over the retry's message: the row it expects, the body, the attempt", async () => {
    const w = world({ script: [response(503, 'busy')] });

    const outcome = await send(w);

    assert.equal(outcome.kind, 'retry_later');
    assert.equal(outcome.kind === 'retry_later' && outcome.delaySeconds, 10);
    const row = stored(w)!;
    assert.deepEqual([row.state, row.attemptSeq, row.nextAttemptAt, row.lastError], ['pending', 1, at(10), 'HTTP 503']);
    assert.deepEqual(nextOf(outcome), {
      ...FRESH,
      kind: 'retry',
      attemptSeq: 1,
      attempts: 1,
      nextAttemptAt: at(10),
      previousAttempt: row.lastAttempt,
    } satisfies RetryMessage);
  });

  it('two copies of one fresh message: both POST, one write wins, the other changes nothing and says its POST was a duplicate', async () => {
    const w = world({ script: [response(200), response(500)] });

    const [first, second] = await Promise.all([send(w), send(w)]);

    assert.equal(w.http.requests.length, 2);
    assert.deepEqual([first.kind, second.kind], ['done', 'done']);
    assert.equal(second.attempt?.outcome, 'lost');
    assert.equal(stored(w)!.state, 'delivered', 'the first outcome stands');
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesSucceeded: 1 });
  });

  it('a fresh message received again (its first receive may have written the row) reads the row, and stops when it is there', async () => {
    const w = world({ script: [response(200)] });
    await send(w);

    const again = await send(w, FRESH, { receiveCount: 2 });

    assert.deepEqual(again, {
      kind: 'done',
      note: 'its row was written meanwhile; the message of its writer carries it',
    });
    assert.equal(w.http.requests.length, 1, 'no second POST');
    const w2 = world({ script: [response(200)] });
    assert.equal((await send(w2, FRESH, { receiveCount: 2 })).kind, 'done');
    assert.equal(stored(w2)!.state, 'delivered', 'with no row yet, it is the first attempt after all');
  });

  it("a fresh message older than the sweeper's grace reads the row first: the sweeper may have written it and sent it again", async () => {
    const w = world({ script: [] });
    w.deps.deliveries.put({ ...firstRow(w), nextAttemptAt: at(150) });
    w.deps.clock.advance(150_000);

    assert.deepEqual((await send(w, FRESH, FIRST_RECEIVE)).kind, 'done');
    assert.equal(w.http.requests.length, 0);
  });
});

describe("processDelivery: the sweeper's copy and a late message", () => {
  it("a late first attempt records its outcome over the row the sweeper rebuilt meanwhile, and the sweeper's message then sends nothing", async () => {
    const w = world({ script: [response(200)] });
    // The sweeper rebuilds the row (pending, attempt 0) while the POST is out.
    const post = w.http.post.bind(w.http);
    w.http.post = async (request) => (w.deps.deliveries.put(firstRow(w)), post(request));

    const outcome = await send(w);

    assert.equal(outcome.attempt?.outcome, 'succeed', 'recorded, not lost');
    assert.equal(stored(w)!.state, 'delivered');
    assert.deepEqual(await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1', attemptSeq: 0 }), {
      kind: 'done',
      note: 'already delivered',
    });
    assert.equal(w.http.requests.length, 1);
  });

  it('a due message sent for an attempt number the row has moved past sends nothing: the message of that attempt carries it', async () => {
    const w = world();
    w.deps.deliveries.put({ ...firstRow(w), attempts: 1, attemptSeq: 1, nextAttemptAt: NOW });

    const outcome = await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1', attemptSeq: 0 });

    assert.deepEqual(outcome, {
      kind: 'done',
      note: 'its row moved on (attempt 1): the message of that attempt carries it',
    });
    assert.equal(w.http.requests.length, 0);
  });
});

describe('processDelivery: later attempts', () => {
  /** The world after a first attempt that failed: its row pending, its retry's message in hand. */
  async function afterFirstFailure(script: ConstructorParameters<typeof ScriptedHttp>[0]) {
    const w = world({ script: [response(503, 'first'), ...script] });
    const retry = nextOf(await send(w)) as RetryMessage;
    w.deps.clock.advance(10_000);
    return { w, retry };
  }

  it('a retry reads nothing and writes once: the attempt its row held stays on it, beside the new one', async () => {
    const { w, retry } = await afterFirstFailure([response(200, 'second')]);
    let reads = 0;
    const get = w.deps.deliveries.get.bind(w.deps.deliveries);
    w.deps.deliveries.get = (id) => (reads++, get(id));

    const outcome = await send(w, retry);

    assert.equal(outcome.kind, 'done');
    assert.equal(reads, 0);
    const row = stored(w)!;
    assert.deepEqual(
      [row.state, row.attempts, row.attemptSeq, row.lastAttempt?.responseSnippet],
      ['delivered', 2, 2, 'second'],
    );
    assert.deepEqual(
      row.earlierAttempts?.map((a) => [a.seq, a.responseSnippet]),
      [[1, 'first']],
    );
    assert.deepEqual(await w.deps.attempts.list(ID), [], 'nothing in the attempts table');
    assert.deepEqual(
      attemptLog(row, []).map((a) => [a.seq, a.status]),
      [
        [1, 503],
        [2, 200],
      ],
      'the whole log, each attempt once',
    );
  });

  it('an attempt that would take the row past one write unit goes to the attempts table, and every later one after it', async () => {
    const long = (c: string) => c.repeat(RESPONSE_SNIPPET_BYTES / 8);
    const w = world({
      script: [response(503, 'a'), response(503, 'b'), response(503, long('c')), response(200, 'd')],
    });
    let message = nextOf(await send(w)) as RetryMessage;
    for (let i = 0; i < 3; i++) {
      w.deps.clock.advance(3_600_000);
      const outcome = await send(w, message);
      if (outcome.kind === 'retry_later') message = outcome.next as RetryMessage;
    }

    const row = stored(w)!;
    assert.deepEqual([row.state, row.attemptSeq], ['delivered', 4]);
    assert.deepEqual(
      row.earlierAttempts?.map((a) => a.seq),
      [1, 2],
      'the first two fit beside the third: kept on the row',
    );
    assert.deepEqual(
      (await w.deps.attempts.list(ID)).map((a) => [a.seq, a.responseSnippet]),
      [[3, long('c')]],
      'the third with the fourth would pass 1 KB: logged',
    );
    assert.ok(itemBytes(row) + ROW_BOOKKEEPING_BYTES <= ROW_WRITE_UNIT_BYTES, `${itemBytes(row)} B`);
    assert.deepEqual(
      attemptLog(row, await w.deps.attempts.list(ID)).map((a) => a.seq),
      [1, 2, 3, 4],
    );
    // Kept as long as a dead letter of this run would be: the outcome was not known when it was logged.
    assert.equal(w.deps.attempts.expiresAt.get(`${ID} 3`), attemptTtlFor(Date.parse(row.giveUpAt), w.deps.retention));
  });

  it('a stale copy of a retry (received again) whose row moved on sends nothing', async () => {
    const { w, retry } = await afterFirstFailure([response(200)]);
    await send(w, retry);

    const again = await send(w, retry, { receiveCount: 2 });

    assert.equal(again.kind, 'done');
    assert.match(again.kind === 'done' ? again.note : '', /its row moved on \(now delivered, attempt 2\)/);
    assert.equal(w.http.requests.length, 2, 'the first attempt and the retry, nothing more');
  });

  it('a retry whose row another copy moved meanwhile (not yet seen as stale) POSTs, and its write changes nothing', async () => {
    const { w, retry } = await afterFirstFailure([response(200), response(200)]);
    await send(w, retry);

    const duplicate = await send(w, retry);

    assert.equal(duplicate.attempt?.outcome, 'lost');
    assert.deepEqual(stored(w)!.attemptSeq, 2);
  });

  it("a due message (a replay's, the sweeper's, a drain's) reads the row and goes with it as it stands", async () => {
    const w = world({ script: [response(200)] });
    w.deps.deliveries.put({ ...firstRow(w), state: 'pending', attempts: 0, attemptSeq: 4, nextAttemptAt: NOW });

    const outcome = await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1' });

    assert.equal(outcome.kind, 'done');
    assert.deepEqual([stored(w)!.state, stored(w)!.attemptSeq, stored(w)!.attempts], ['delivered', 5, 1]);
    assert.equal(w.http.requests[0]!.body, BODY, 'the body read from the event');
  });

  it('a due message for a row not pending stops; one not due yet waits for it', async () => {
    const w = world({ script: [] });
    w.deps.deliveries.put({ ...firstRow(w), state: 'delivered' });
    assert.deepEqual(await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1' }), {
      kind: 'done',
      note: 'already delivered',
    });
    w.deps.deliveries.put({ ...firstRow(w), nextAttemptAt: at(30) });
    assert.deepEqual(await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1' }), {
      kind: 'retry_later',
      delaySeconds: 30,
      note: 'not due yet',
    });
    w.deps.deliveries.put({ ...firstRow(w), state: 'in_flight', leaseUntil: at(30) });
    assert.deepEqual(
      await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1' }),
      { kind: 'done', note: 'already in_flight' },
      "an earlier version's claim is the sweeper's",
    );
    assert.equal(w.http.requests.length, 0);
  });
});

describe('processDelivery: deliveries not to attempt now', () => {
  it("a paused subscription's delivery waits in its row until the recheck, and its message is finished", async () => {
    const w = world({ subscription: { state: 'paused' } });

    const outcome = await send(w);

    assert.deepEqual(outcome, { kind: 'done', note: 'subscription paused: waits for resume' });
    assert.deepEqual([stored(w)!.state, stored(w)!.nextAttemptAt], ['pending', at(PAUSED_RECHECK_SECONDS)]);
    assert.equal(w.http.requests.length, 0);
  });

  it('a subscription resumed while its delivery was being parked: made due now, and its due message sent at once', async () => {
    const w = world({ subscription: { state: 'paused' }, script: [response(200)] });
    // The resume lands right after the sender read the state (its drain could not see the row yet).
    const write = w.deps.deliveries.write.bind(w.deps.deliveries);
    w.deps.deliveries.write = async (action, row, expect) => {
      const ok = await write(action, row, expect);
      if (action === 'reschedule') w.deps.subscriptions.items.set('sub_1', { ...w.subscription, state: 'active' });
      return ok;
    };

    const outcome = await send(w);

    assert.deepEqual(outcome, {
      kind: 'retry_later',
      delaySeconds: 0,
      note: 'subscription resumed while its delivery was parked',
      next: { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1', attemptSeq: 0 },
    });
    assert.deepEqual([stored(w)!.state, stored(w)!.nextAttemptAt], ['pending', NOW], 'due now, not at the recheck');
    assert.equal((await send(w, outcome.kind === 'retry_later' ? outcome.next : undefined)).kind, 'done');
    assert.deepEqual([stored(w)!.state, w.http.requests.length], ['delivered', 1]);
  });

  for (const [state, reason] of [
    ['deleted', 'subscription deleted'],
    ['disabled', 'subscription disabled: it said 410'],
  ] as const) {
    it(`a ${state} subscription's delivery is dead-lettered as failed without a POST`, async () => {
      const w = world({ subscription: { state, stateReason: 'it said 410' } });

      assert.deepEqual(await send(w), { kind: 'done', note: reason });
      assert.deepEqual([stored(w)!.state, stored(w)!.lastError], ['failed', reason]);
      assert.equal(w.http.requests.length, 0);
      assert.deepEqual(w.deps.metrics.counts, { DeliveriesFailed: 1, DeadLettered: 1 });
    });
  }

  it('a due message whose event is gone is dead-lettered as failed without a POST', async () => {
    const w = world({ event: false });
    w.deps.deliveries.put(firstRow(w));

    assert.deepEqual(await send(w, { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1' }), {
      kind: 'done',
      note: 'event body no longer stored',
    });
    assert.equal(stored(w)!.state, 'failed');
  });

  it('410 Gone: dead-letters the delivery and disables the subscription, out of the routing index', async () => {
    const w = world({ script: [response(410)] });

    await send(w);

    assert.equal(stored(w)!.state, 'failed');
    assert.equal(w.deps.subscriptions.items.get('sub_1')!.state, 'disabled');
  });
});

describe('processDelivery: a dead letter keeps its body', () => {
  it("moves its event's TTL out to its own (deadLetterEventTtl): publish kept the event for deliveries that succeed", async () => {
    const w = world({ script: [response(422)] });
    const keptByPublish = NOW_MS / 1000 + 34 * 86_400;
    w.deps.events.expiresAt.set('evt_1', keptByPublish);

    await send(w);

    assert.equal(stored(w)!.state, 'failed');
    assert.equal(w.deps.events.expiresAt.get('evt_1'), deadLetterEventTtl(w.deps.clock.now(), w.deps.retention));
    assert.ok(w.deps.events.expiresAt.get('evt_1')! > keptByPublish);
  });
});

describe('processDelivery: failures by stage', () => {
  it('tags a failure before the POST, of the POST and after it with its stage; nothing was recorded as sent', async () => {
    const before = world();
    before.deps.subscriptions.getCached = async () => {
      throw new Error('throttled');
    };
    await assert.rejects(send(before), (e: unknown) => e instanceof DeliveryStageError && e.stage === 'before_attempt');

    const during = world({ script: [async () => Promise.reject(new Error('socket hang up'))] });
    await assert.rejects(send(during), (e: unknown) => e instanceof DeliveryStageError && e.stage === 'attempt');

    const after = world({ script: [response(200)] });
    after.deps.deliveries.write = async () => {
      throw new Error('throttled');
    };
    await assert.rejects(send(after), (e: unknown) => e instanceof DeliveryStageError && e.stage === 'after_attempt');
    assert.equal(stored(after), undefined);
    // The outcome's write was tried once and after each pause (0.5, 1, 2 s) before it was given up.
    assert.equal(after.deps.clock.now() - NOW_MS, 3500);
  });

  it('an outcome write refused after the POST is tried again after a pause: recorded, and the endpoint not sent it twice', async () => {
    const w = world({ script: [response(200)] });
    const write = w.deps.deliveries.write.bind(w.deps.deliveries);
    let refusals = 2;
    w.deps.deliveries.write = async (...args) => {
      if (refusals-- > 0) throw new Error('ProvisionedThroughputExceededException');
      return write(...args);
    };

    const outcome = await send(w);

    assert.equal(outcome.kind, 'done');
    assert.equal(stored(w)?.state, 'delivered');
    assert.equal(w.http.requests.length, 1, 'one POST');
    assert.equal(w.deps.clock.now() - NOW_MS, 1500, 'after pauses of 0.5 and 1 s');
  });
});

/** The world's delivery as its first row: pending, due now, no attempt yet (what a wait before the first attempt writes). */
function firstRow(w: World): Delivery {
  return firstDelivery(
    { id: 'evt_1', type: FRESH.eventType, createdAt: NOW },
    w.subscription,
    Date.parse(FRESH.giveUpAt),
    NOW_MS,
    ID,
  );
}
