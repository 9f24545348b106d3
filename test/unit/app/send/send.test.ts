import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptReport, SendDeps } from '#app/send/send.ts';
import { DeliveryStageError } from '#app/errors.ts';
import { PAUSED_RECHECK_SECONDS, processDelivery } from '#app/send/send.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { verifySignature } from '#domain/signing.ts';
import type { Delivery, EventRecord, Subscription } from '#domain/types.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import type { Completion } from '#ports/delivery-store.ts';
import { aDelivery, aSubscription, fakeDeps, InMemoryDeliveryStore, TEST_SECRET, type FakeDeps } from '#test/fakes.ts';

// The fake clock starts here and draws 0.5 for jitter, so the default policy's delays are exact: 10 s, 20 s, 40 s, ...
const NOW = '2024-05-01T12:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();
const TIMEOUT_MS = 15_000;
const BODY = '{"id":"evt_1","type":"order.created","data":{}}';

/** Answers each POST with the next scripted result (or what a function of the request returns) and keeps the requests. */
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

const response = (status: number, bodySnippet = '', durationMs = 42): AttemptResult => ({ kind: 'response', status, bodySnippet, durationMs });

interface World {
  readonly deps: FakeDeps & SendDeps;
  readonly http: ScriptedHttp;
  readonly subscription: Subscription;
}

function world(options: {
  subscription?: Partial<Subscription> | null;
  delivery?: Partial<Delivery>;
  event?: boolean;
  script?: ConstructorParameters<typeof ScriptedHttp>[0];
  deliveries?: InMemoryDeliveryStore;
} = {}): World {
  const http = new ScriptedHttp(options.script ?? []);
  const deps = { ...fakeDeps(options.deliveries ? { deliveries: options.deliveries } : {}), http, attemptTimeoutMs: TIMEOUT_MS };
  const subscription = aSubscription({ id: 'sub_1', ...options.subscription });
  if (options.subscription !== null) deps.subscriptions.items.set(subscription.id, subscription);
  deps.deliveries.put(aDelivery({ id: 'dlv_1', subscriptionId: 'sub_1', eventId: 'evt_1', ...options.delivery }));
  if (options.event !== false) {
    const event: EventRecord = { id: 'evt_1', type: 'order.created', body: BODY, subscriptionIds: ['sub_1'], deliveryIds: ['dlv_1'], createdAt: NOW };
    deps.events.items.set(event.id, event);
  }
  return { deps, http, subscription };
}

const send = (w: World) => processDelivery(w.deps, { deliveryId: 'dlv_1', subscriptionId: 'sub_1' });
/** The attempt as the handler logs it: the world's delivery, its event's type and the URL's host, then what the attempt was and led to. */
const report = (fields: Omit<AttemptReport, 'deliveryId' | 'subscriptionId' | 'eventType' | 'host'>): AttemptReport => ({
  deliveryId: 'dlv_1',
  subscriptionId: 'sub_1',
  eventType: 'order.created',
  host: 'hooks.example.com',
  ...fields,
});
const stored = (w: World) => w.deps.deliveries.items.get('dlv_1')!;

describe('processDelivery', () => {
  it('2xx: signs and POSTs the stored body, records delivered, the attempt and the success metric', async () => {
    const w = world({ script: [response(204, 'ok', 37)] });

    const outcome = await send(w);

    const attempt = report({ attempt: 1, status: 204, durationMs: 37, outcome: 'succeed', state: 'delivered' });
    assert.deepEqual(outcome, { kind: 'done', note: 'delivered', outcome: { kind: 'delivered' }, attempt });
    const [request] = w.http.requests;
    assert.equal(request!.url, 'https://hooks.example.com/sub_1');
    assert.equal(request!.body, BODY);
    assert.equal(request!.timeoutMs, TIMEOUT_MS);
    assert.equal(request!.headers['webhook-id'], 'evt_1');
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.ok(verifySignature([TEST_SECRET], 'evt_1', Number(request!.headers['webhook-timestamp']), BODY, request!.headers['webhook-signature']!));
    const row = stored(w);
    assert.equal(row.state, 'delivered');
    assert.deepEqual([row.attempts, row.attemptSeq, row.lastStatus, row.lastResponse, row.lastError, row.leaseUntil], [1, 1, 204, 'ok', undefined, undefined]);
    assert.deepEqual(w.deps.attempts.items, [{ deliveryId: 'dlv_1', seq: 1, attempt: 1, startedAt: NOW, durationMs: 37, status: 204, responseSnippet: 'ok' }]);
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesSucceeded: 1 });
    assert.deepEqual(w.deps.metrics.latencies, [37]);
  });

  it('5xx: back to pending after the backoff delay, the message asked back then, nothing counted yet', async () => {
    const w = world({ delivery: { attempts: 2, attemptSeq: 4 }, script: [response(503, 'busy')] });

    const outcome = await send(w);

    // Third attempt of the default policy: 10 s doubled twice.
    const attempt = report({ attempt: 3, status: 503, durationMs: 42, outcome: 'retry', state: 'pending', retryInSeconds: 40 });
    const next = { deliveryId: 'dlv_1', subscriptionId: 'sub_1', eventType: 'order.created', body: BODY, recorded: { attemptSeq: 5, nextAttemptAt: at(40) } };
    assert.deepEqual(outcome, { kind: 'retry_later', delaySeconds: 40, note: 'HTTP 503', attempt, next }, 'it comes back as a recorded retry');
    const row = stored(w);
    assert.deepEqual(
      [row.state, row.attempts, row.attemptSeq, row.nextAttemptAt, row.lastStatus, row.lastError, row.lastResponse],
      ['pending', 3, 5, at(40), 503, 'HTTP 503', 'busy'],
    );
    // Held for the retry's message while it may go unclaimed: the grace less a claim lease past its due time.
    assert.equal(row.leaseUntil, at(40 + w.deps.sweepGraceSeconds - (2 * TIMEOUT_MS + 5000) / 1000));
    assert.deepEqual(w.deps.attempts.items.map((a) => [a.seq, a.attempt, a.status]), [[5, 3, 503]]);
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesRetried: 1 });
  });

  it('a failure whose next try would land past the deadline: expired, dead-lettered and counted', async () => {
    const w = world({ delivery: { attempts: 1, giveUpAt: at(15) }, script: [{ kind: 'timeout', durationMs: TIMEOUT_MS, message: 'no answer in 15000 ms' }] });

    const outcome = await send(w);

    const dead = { kind: 'dead', state: 'expired', reason: 'retry deadline reached: timeout: no answer in 15000 ms', disableSubscription: false };
    const attempt = report({ attempt: 2, error: 'timeout: no answer in 15000 ms', durationMs: TIMEOUT_MS, outcome: 'give_up', state: 'expired' });
    assert.deepEqual(outcome, { kind: 'done', note: 'dead', outcome: dead, attempt });
    const row = stored(w);
    assert.deepEqual([row.state, row.attempts, row.lastError, row.lastStatus], ['expired', 2, dead.reason, undefined]);
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesExpired: 1, DeadLettered: 1 });
    assert.equal(w.deps.subscriptions.items.get('sub_1')!.deadLetterStreak, 1, 'the dead letter counts towards auto-pause');
  });

  it('410: failed at once and the subscription disabled with the reason', async () => {
    const w = world({ script: [response(410, 'gone')] });

    const outcome = await send(w);

    const attempt = report({ attempt: 1, status: 410, durationMs: 42, outcome: 'fail_permanently', state: 'failed' });
    assert.deepEqual(outcome, { kind: 'done', note: 'dead', outcome: { kind: 'dead', state: 'failed', reason: 'HTTP 410', disableSubscription: true }, attempt });
    const row = stored(w);
    assert.deepEqual([row.state, row.lastStatus, row.lastError], ['failed', 410, 'HTTP 410']);
    const sub = w.deps.subscriptions.items.get('sub_1')!;
    assert.equal(sub.state, 'disabled');
    assert.equal(sub.stateReason, 'endpoint answered 410 Gone for delivery dlv_1');
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesFailed: 1, DeadLettered: 1 });
  });

  it('a paused subscription: not attempted, the delivery waits an hour (or until resumed)', async () => {
    const w = world({ subscription: { state: 'paused', stateReason: 'paused by operator' } });

    const outcome = await send(w);

    assert.deepEqual(outcome, { kind: 'done', note: 'subscription paused: waits for resume' });
    assert.equal(w.http.requests.length, 0);
    const row = stored(w);
    assert.deepEqual([row.state, row.attempts, row.attemptSeq, row.nextAttemptAt, row.updatedAt], ['pending', 0, 0, at(PAUSED_RECHECK_SECONDS), NOW]);
    assert.deepEqual(w.deps.attempts.items, []);
    assert.deepEqual(w.deps.metrics.counts, {});
  });

  it('a paused subscription whose delivery is due to give up sooner than the recheck waits only until then', async () => {
    const w = world({ subscription: { state: 'paused' }, delivery: { giveUpAt: at(600) } });

    await send(w);

    assert.equal(stored(w).nextAttemptAt, at(600));
  });

  it('a resume between the read of the paused subscription and the deferral: the deferral is undone and the delivery attempted now', async () => {
    const w = world({ script: [response(200)] });
    const subscriptions = w.deps.subscriptions;
    const active = subscriptions.items.get('sub_1')!;
    // The sender reads "paused"; the resume (state first, then its drain) lands before the deferral is written.
    subscriptions.items.set('sub_1', { ...active, state: 'paused' });
    const read = subscriptions.get.bind(subscriptions);
    let reads = 0;
    subscriptions.get = async (id) => {
      const seen = await read(id);
      if (++reads === 1) subscriptions.items.set('sub_1', active);
      return seen;
    };

    const outcome = await send(w);

    assert.equal(outcome.kind, 'done');
    assert.equal(w.http.requests.length, 1, 'attempted at once, not an hour later');
    assert.equal(stored(w).state, 'delivered');
  });

  it('a subscription still paused after the deferral is written: the deferral stands', async () => {
    const w = world({ subscription: { state: 'paused' } });
    let reads = 0;
    const read = w.deps.subscriptions.get.bind(w.deps.subscriptions);
    w.deps.subscriptions.get = async (id) => (reads++, read(id));

    await send(w);

    assert.equal(reads, 2, 'the state is read again after the deferral is written');
    assert.equal(stored(w).nextAttemptAt, at(PAUSED_RECHECK_SECONDS));
  });

  it('a disabled subscription: dead-lettered as failed with the reason, never POSTed', async () => {
    const w = world({ subscription: { state: 'disabled', stateReason: 'endpoint answered 410 Gone for delivery dlv_0' } });

    const outcome = await send(w);

    const reason = 'subscription disabled: endpoint answered 410 Gone for delivery dlv_0';
    assert.deepEqual(outcome, { kind: 'done', note: reason });
    assert.equal(w.http.requests.length, 0);
    const row = stored(w);
    assert.deepEqual([row.state, row.lastError, row.attempts], ['failed', reason, 1]);
    assert.deepEqual(w.deps.attempts.items, []);
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesFailed: 1, DeadLettered: 1 });
  });

  it('a deleted subscription: dead-lettered as failed', async () => {
    const w = world({ subscription: null });

    const outcome = await send(w);

    assert.deepEqual(outcome, { kind: 'done', note: 'subscription no longer exists' });
    assert.deepEqual([stored(w).state, stored(w).lastError], ['failed', 'subscription no longer exists']);
  });

  it('a missing event body: dead-lettered as failed, never POSTed', async () => {
    const w = world({ event: false });

    const outcome = await send(w);

    assert.deepEqual(outcome, { kind: 'done', note: 'event missing' });
    assert.equal(w.http.requests.length, 0);
    assert.deepEqual([stored(w).state, stored(w).lastError], ['failed', 'event body no longer stored']);
    assert.deepEqual(w.deps.metrics.counts, { DeliveriesFailed: 1, DeadLettered: 1 });
  });

  it('a lost claim: the sweeper released and another worker re-claimed mid-attempt, so this outcome is not recorded', async () => {
    let w!: World;
    const sweeperMeanwhile = async (): Promise<AttemptResult> => {
      // This worker stalls past its lease; the sweeper hands the delivery back and another worker claims it.
      w.deps.clock.advance(2 * TIMEOUT_MS + 5000 + 1000);
      assert.equal(await w.deps.deliveries.release('dlv_1', 1, w.deps.clock.iso()), true);
      assert.equal((await w.deps.deliveries.claim('dlv_1', w.deps.clock.iso(), at(3600))).kind, 'claimed');
      return response(200, 'late ok');
    };
    w = world({ script: [sweeperMeanwhile] });

    const outcome = await send(w);

    const attempt = report({ attempt: 1, status: 200, durationMs: 42, outcome: 'claim_lost' });
    assert.deepEqual(outcome, { kind: 'done', note: 'claim lost to another worker or the sweeper; the newer claim records the outcome', attempt }, 'the attempt that was made is still reported');
    const row = stored(w);
    assert.deepEqual([row.state, row.attemptSeq, row.leaseUntil], ['in_flight', 2, at(3600)], 'the newer claim is untouched');
    assert.deepEqual(w.deps.attempts.items.map((a) => a.seq), [1], 'the attempt that happened is logged once, under its own number');
    assert.deepEqual(w.deps.metrics.counts, {}, 'no outcome counted for the lost claim');
    assert.equal(w.deps.subscriptions.items.get('sub_1')!.state, 'active');
  });

  it('a store failure after the attempt: a DeliveryStageError at after_attempt, the claim left for the sweeper', async () => {
    const throttled = new Error('ProvisionedThroughputExceededException');
    class ThrottledOnComplete extends InMemoryDeliveryStore {
      override async complete(_claimed: Delivery, _completion: Completion): Promise<boolean> {
        throw throttled;
      }
    }
    const w = world({ deliveries: new ThrottledOnComplete(), script: [response(200)] });

    await assert.rejects(send(w), (error: unknown) => {
      assert.ok(error instanceof DeliveryStageError);
      assert.equal(error.stage, 'after_attempt');
      assert.equal(error.deliveryId, 'dlv_1');
      assert.equal(error.cause, throttled);
      return true;
    });
    assert.equal(stored(w).state, 'in_flight');
    assert.equal(w.http.requests.length, 1);
    assert.deepEqual(w.deps.metrics.counts, {});
  });

  it('a store failure before the attempt: a DeliveryStageError at before_attempt, nothing POSTed', async () => {
    const w = world();
    w.deps.subscriptions.get = async () => {
      throw new Error('network down');
    };

    await assert.rejects(send(w), (error: unknown) => error instanceof DeliveryStageError && error.stage === 'before_attempt');
    assert.equal(w.http.requests.length, 0);
    assert.equal(stored(w).state, 'pending');
  });

  it('not due yet: asks for the message back when it is', async () => {
    const w = world({ delivery: { nextAttemptAt: at(30) } });

    assert.deepEqual(await send(w), { kind: 'retry_later', delaySeconds: 30, note: 'not due yet' });
    assert.equal(w.http.requests.length, 0);
  });

  it('already finished: done, nothing written', async () => {
    const w = world({ delivery: { state: 'delivered' } });
    const before = structuredClone(stored(w));

    assert.deepEqual(await send(w), { kind: 'done', note: 'already delivered' });
    assert.deepEqual(stored(w), before);
    assert.equal(w.http.requests.length, 0);
  });

  it('held by a live worker: asks for the message back when the claim runs out, nothing written', async () => {
    const w = world({ delivery: { state: 'in_flight', leaseUntil: at(60) } });
    const before = structuredClone(stored(w));

    assert.deepEqual(await send(w), { kind: 'retry_later', delaySeconds: 60, note: 'claimed by another worker' });
    assert.deepEqual(stored(w), before);
    assert.equal(w.http.requests.length, 0);
  });

  it('held by a worker that died (its claim ran out): takes the delivery over and attempts it now', async () => {
    const w = world({ delivery: { state: 'in_flight', attempts: 1, attemptSeq: 1, leaseUntil: at(-1) }, script: [response(200)] });

    const outcome = await send(w);

    assert.equal(outcome.kind, 'done');
    assert.deepEqual([stored(w).state, stored(w).attemptSeq], ['delivered', 2]);
    assert.equal(w.http.requests.length, 1);
  });
});

describe('processDelivery: the happy path (a fresh message, first receive)', () => {
  const fresh = { deliveryId: 'dlv_1', subscriptionId: 'sub_1', eventId: 'evt_1', eventType: 'order.created', createdAt: NOW, giveUpAt: at(3600), body: BODY, fresh: true } as const;
  /** Received once, just sent. */
  const first = { receiveCount: 1, sentAtMs: Date.parse(NOW) };

  it('2xx: no claim and no read but the subscription; the row written once, delivered, its attempt inline', async () => {
    const w = world({ event: false, script: [response(200, 'ok', 9)] });
    w.deps.deliveries.items.delete('dlv_1');
    const reads: string[] = [];
    w.deps.events.get = async (id) => {
      reads.push(id);
      return undefined;
    };
    const claim = w.deps.deliveries.claim.bind(w.deps.deliveries);
    w.deps.deliveries.claim = async (...args) => {
      reads.push('claim');
      return claim(...args);
    };

    const outcome = await processDelivery(w.deps, fresh, first);

    assert.equal(outcome.kind, 'done');
    assert.deepEqual(reads, [], 'the event body came in the message; nothing was claimed');
    assert.equal(w.http.requests[0]!.body, BODY);
    const row = stored(w);
    assert.deepEqual([row.state, row.attempts, row.attemptSeq, row.lastStatus], ['delivered', 1, 1, 200]);
    assert.deepEqual(row.firstAttempt, { seq: 1, attempt: 1, startedAt: NOW, durationMs: 9, status: 200, responseSnippet: 'ok' });
    assert.deepEqual(w.deps.attempts.items, [], 'no attempts row on the happy path');
    assert.equal(w.deps.metrics.counts.DeliveriesSucceeded, 1);
  });

  it('5xx: the row written once, pending with the backoff, its attempt inline, the message asked back', async () => {
    const w = world({ script: [response(503, 'busy')] });
    w.deps.deliveries.items.delete('dlv_1');

    const outcome = await processDelivery(w.deps, fresh, first);

    assert.equal(outcome.kind, 'retry_later');
    const row = stored(w);
    assert.deepEqual([row.state, row.attempts, row.attemptSeq, row.nextAttemptAt], ['pending', 1, 1, at(10)]);
    assert.equal(row.firstAttempt?.status, 503);
    assert.deepEqual(w.deps.attempts.items, []);
  });

  it('a second receive (the worker died, or a retry came back) reads and claims the row instead', async () => {
    const w = world({ delivery: { attempts: 0, attemptSeq: 0 }, script: [response(200)] });

    await processDelivery(w.deps, fresh, { ...first, receiveCount: 2 });

    assert.deepEqual([stored(w).state, stored(w).attemptSeq, stored(w).firstAttempt], ['delivered', 1, undefined]);
    assert.deepEqual(w.deps.attempts.items.map((a) => a.seq), [1], 'a claimed attempt is an attempts row');
  });

  it('a message older than the sweeper\'s grace less a claim lease is claimed: the sweeper may have sent the delivery again', async () => {
    const w = world({ delivery: { attempts: 0, attemptSeq: 0 }, script: [response(200)] });
    const late = (w.deps.sweepGraceSeconds * 1000 - (2 * TIMEOUT_MS + 5000)) + 1;

    await processDelivery(w.deps, fresh, { receiveCount: 1, sentAtMs: Date.parse(NOW) - late });

    assert.deepEqual([stored(w).state, stored(w).firstAttempt], ['delivered', undefined]);
    assert.deepEqual(w.deps.attempts.items.map((a) => a.seq), [1]);
  });

  it('a paused subscription takes the claimed path: the fresh row waits', async () => {
    const w = world({ subscription: { state: 'paused' }, delivery: { attempts: 0, attemptSeq: 0 } });

    const outcome = await processDelivery(w.deps, fresh, first);

    assert.deepEqual(outcome, { kind: 'done', note: 'subscription paused: waits for resume' });
    assert.equal(w.http.requests.length, 0);
    assert.equal(stored(w).nextAttemptAt, at(PAUSED_RECHECK_SECONDS));
  });

  it('publish writes no row: a paused subscription\'s fresh delivery gets the row it would have had, and waits in it', async () => {
    const w = world({ subscription: { state: 'paused' } });
    w.deps.deliveries.items.delete('dlv_1');

    const outcome = await processDelivery(w.deps, fresh, first);

    assert.deepEqual(outcome, { kind: 'done', note: 'subscription paused: waits for resume' });
    assert.equal(w.http.requests.length, 0);
    assert.deepEqual([stored(w).state, stored(w).attempts, stored(w).createdAt, stored(w).giveUpAt, stored(w).nextAttemptAt], ['pending', 0, NOW, at(3600), at(3600)]);
  });

  it('a second receive with no row (its worker died before the one write): the row is written from the message, claimed and attempted', async () => {
    const w = world({ script: [response(200)] });
    w.deps.deliveries.items.delete('dlv_1');

    const outcome = await processDelivery(w.deps, fresh, { ...first, receiveCount: 2 });

    assert.equal(outcome.kind, 'done');
    assert.equal(w.http.requests.length, 1);
    assert.deepEqual([stored(w).state, stored(w).attemptSeq, stored(w).eventId], ['delivered', 1, 'evt_1']);
    assert.deepEqual(w.deps.attempts.items.map((a) => a.seq), [1], 'claimed: an attempts row');
  });

  it('the same message handed over on its own (without fresh: a rate-limit turn, a stage failure) and no row yet: written, then claimed', async () => {
    const w = world({ script: [response(200)] });
    w.deps.deliveries.items.delete('dlv_1');
    const { fresh: _f, ...handedOver } = fresh;

    await processDelivery(w.deps, handedOver, first);

    assert.deepEqual([stored(w).state, stored(w).attemptSeq], ['delivered', 1]);
  });

  it('a message of ids alone (the sweeper\'s, a replay\'s) for a delivery with no row: nothing is written or sent', async () => {
    const w = world({ script: [response(200)] });
    w.deps.deliveries.items.delete('dlv_1');

    const outcome = await processDelivery(w.deps, { deliveryId: 'dlv_1', subscriptionId: 'sub_1' }, first);

    assert.deepEqual(outcome, { kind: 'done', note: 'unknown delivery' });
    assert.equal(w.deps.deliveries.items.size, 0);
    assert.equal(w.http.requests.length, 0);
  });

  it('another worker recorded the delivery meanwhile: this outcome is dropped, the attempt still reported', async () => {
    const w = world({ delivery: { state: 'delivered', attempts: 1, attemptSeq: 1 }, script: [response(200)] });
    const before = structuredClone(stored(w));

    const outcome = await processDelivery(w.deps, fresh, first);

    assert.equal(outcome.kind, 'done');
    assert.equal(outcome.attempt?.outcome, 'claim_lost');
    assert.deepEqual(stored(w), before);
    assert.deepEqual(w.deps.metrics.counts, {});
  });

  it('times and hosts are exact however attempts interleave (the memos of formatted times and hosts never serve a stale one)', async () => {
    // Steps chosen to land on the same memo slot (8 ms apart) and next to it, the POST moving the clock on.
    let expectedMs = Date.parse(NOW);
    for (const [step, during, url] of [[0, 3, 'https://a.example.com/x'], [8, 8, 'https://b.example.com:8443/y'], [1, 16, 'https://a.example.com/x'], [16, 0, 'not a url']] as const) {
      const w = world({ subscription: { url }, delivery: { url }, script: [async () => (w.deps.clock.advance(during), response(200))] });
      w.deps.clock.nowMs = expectedMs += step;
      const startedAt = w.deps.clock.iso();
      const outcome = await send(w);
      const row = stored(w);
      assert.equal(w.deps.attempts.items[0]!.startedAt, startedAt);
      assert.equal(row.updatedAt, new Date(expectedMs + during).toISOString());
      assert.equal(outcome.attempt?.host, url === 'not a url' ? '(invalid URL)' : new URL(url).host);
    }
  });
});

describe('processDelivery: a recorded retry (its message carries the row as the attempt before left it)', () => {
  /** The row the attempt before recorded: attempt 2 of seq 4 made, the next due now. */
  const recorded = { attemptSeq: 4, nextAttemptAt: NOW };
  const retry = { deliveryId: 'dlv_1', subscriptionId: 'sub_1', eventType: 'order.created', body: BODY, recorded } as const;
  const first = { receiveCount: 1, sentAtMs: Date.parse(NOW) - 10_000 };
  const waiting = { attempts: 2, attemptSeq: 4, nextAttemptAt: NOW, lastStatus: 503 };

  /** Counts the store and body reads the attempt makes. */
  function counted(w: World) {
    const calls: string[] = [];
    for (const name of ['claim', 'get', 'complete'] as const) {
      const real = (w.deps.deliveries[name] as (...a: unknown[]) => Promise<unknown>).bind(w.deps.deliveries);
      (w.deps.deliveries as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => (calls.push(name), real(...args));
    }
    const getEvent = w.deps.events.get.bind(w.deps.events);
    w.deps.events.get = async (id) => (calls.push('event'), getEvent(id));
    return calls;
  }

  it('2xx: no claim; one read of the row, the attempts row, and the outcome as one write of seq 5', async () => {
    const w = world({ event: false, delivery: waiting, script: [response(200, 'ok')] });
    const calls = counted(w);

    const outcome = await processDelivery(w.deps, retry, first);

    assert.equal(outcome.kind, 'done');
    assert.deepEqual(calls, ['get'], 'the row read once; no claim, no event read, no claimed completion');
    assert.equal(w.http.requests[0]!.body, BODY);
    const row = stored(w);
    assert.deepEqual([row.state, row.attempts, row.attemptSeq, row.lastStatus, row.leaseUntil], ['delivered', 3, 5, 200, undefined]);
    assert.deepEqual(w.deps.attempts.items.map((a) => [a.seq, a.attempt, a.status]), [[5, 3, 200]]);
    assert.equal(w.deps.metrics.counts.DeliveriesSucceeded, 1);
  });

  it('5xx again: recorded as seq 5 and back as a recorded retry of seq 5', async () => {
    const w = world({ delivery: waiting, script: [response(500)] });

    const outcome = await processDelivery(w.deps, retry, first);

    assert.equal(outcome.kind, 'retry_later');
    assert.deepEqual(outcome.kind === 'retry_later' && outcome.next?.recorded, { attemptSeq: 5, nextAttemptAt: at(40) });
    assert.deepEqual([stored(w).state, stored(w).attemptSeq, stored(w).nextAttemptAt], ['pending', 5, at(40)]);
  });

  const claimedWhen: ReadonlyArray<readonly [string, Partial<Delivery>, Partial<typeof first>]> = [
    ['another attempt recorded since (a copy of the message)', { attemptSeq: 5 }, {}],
    ['the row rescheduled since (a pause, a resume\'s drain)', { nextAttemptAt: at(-5) }, {}],
  ];
  for (const [when, row, receipt] of claimedWhen) {
    it(`claimed instead when ${when}`, async () => {
      const w = world({ delivery: { ...waiting, ...row }, script: [response(200)] });
      const calls = counted(w);

      await processDelivery(w.deps, retry, { ...first, ...receipt });

      assert.ok(calls.includes('claim'), calls.join());
      assert.equal(stored(w).state, 'delivered');
    });
  }

  it('back after its worker died or a stage failed, the row still as recorded and held for it: not claimed, not held off, attempted', async () => {
    const w = world({ delivery: { ...waiting, leaseUntil: at(60) }, script: [response(200)] });
    const calls = counted(w);

    const outcome = await processDelivery(w.deps, retry, { ...first, receiveCount: 3 });

    assert.equal(outcome.kind, 'done');
    assert.deepEqual(calls, ['get']);
    assert.deepEqual([stored(w).state, stored(w).attemptSeq, stored(w).leaseUntil], ['delivered', 5, undefined]);
  });

  it('a body too large to travel is read from the event; the attempt still goes unclaimed', async () => {
    const w = world({ delivery: waiting, script: [response(200)] });
    const calls = counted(w);
    const { body: _b, ...withoutBody } = retry;

    await processDelivery(w.deps, withoutBody, first);

    assert.deepEqual(calls, ['get', 'event']);
    assert.equal(w.http.requests[0]!.body, BODY);
    assert.equal(stored(w).state, 'delivered');
  });

  it('claimed instead once it has been due for the sweeper\'s grace less a claim lease: the sweeper may have sent it again', async () => {
    const w = world({ delivery: waiting, script: [response(200)] });
    w.deps.clock.advance(w.deps.sweepGraceSeconds * 1000 - (2 * TIMEOUT_MS + 5000) + 1);
    const calls = counted(w);

    await processDelivery(w.deps, retry, first);

    assert.ok(calls.includes('claim'), calls.join());
  });

  it('a paused subscription (as cached) takes the claimed path and waits for resume, nothing sent', async () => {
    const w = world({ subscription: { state: 'paused' }, delivery: waiting });

    const outcome = await processDelivery(w.deps, retry, first);

    assert.deepEqual(outcome, { kind: 'done', note: 'subscription paused: waits for resume' });
    assert.equal(w.http.requests.length, 0);
  });

  it('another copy (the received message, back after its worker died having recorded the retry) waits out the hold instead of claiming beside it', async () => {
    const w = world({ delivery: { ...waiting, leaseUntil: at(60) }, script: [] });
    const calls = counted(w);

    const outcome = await processDelivery(w.deps, { deliveryId: 'dlv_1', subscriptionId: 'sub_1' }, { ...first, receiveCount: 2 });

    assert.deepEqual(outcome, { kind: 'retry_later', delaySeconds: 60, note: 'held for its recorded retry' });
    assert.equal(stored(w).state, 'pending');
    assert.ok(calls.includes('claim'), 'the claim was refused, not skipped');
  });

  it('back after a copy made this attempt and was killed after logging it, before its outcome: logged as the next number, the outcome written, nothing kept to send again', async () => {
    const w = world({ delivery: waiting, script: [response(500), response(200)] });
    // The killed copy's POST: attempt seq 5 is in the log, the row still reads as recorded (seq 4).
    await w.deps.attempts.put({ deliveryId: 'dlv_1', seq: 5, attempt: 3, startedAt: NOW, durationMs: 9, status: 200 });

    const outcome = await processDelivery(w.deps, retry, { ...first, receiveCount: 2 });

    assert.equal(outcome.kind, 'retry_later');
    assert.deepEqual(w.deps.attempts.items.map((a) => [a.seq, a.status]), [[5, 200], [6, 500]], 'both POSTs in the log, the earlier one as it was');
    assert.deepEqual([stored(w).state, stored(w).attemptSeq, stored(w).nextAttemptAt], ['pending', 6, at(40)]);
    assert.deepEqual(outcome.kind === 'retry_later' && outcome.next?.recorded, { attemptSeq: 6, nextAttemptAt: at(40) }, 'its message comes back as the row now reads');

    // That message, due 40 s on, goes on unclaimed: the row reads as it recorded.
    w.deps.clock.advance(40_000);
    const again = await processDelivery(w.deps, (outcome as { next: typeof retry }).next, first);
    assert.equal(again.kind, 'done');
    assert.deepEqual([stored(w).state, stored(w).attemptSeq], ['delivered', 7]);
    assert.equal(w.http.requests.length, 2);
  });

  it('claimed, its claim\'s number logged already (a recorded retry\'s copy killed after logging it): logged as the next number, the outcome written under the claim', async () => {
    const w = world({ delivery: waiting, script: [response(200)] });
    await w.deps.attempts.put({ deliveryId: 'dlv_1', seq: 5, attempt: 3, startedAt: NOW, durationMs: 9, status: 200 });

    const outcome = await processDelivery(w.deps, { deliveryId: 'dlv_1', subscriptionId: 'sub_1' });

    assert.equal(outcome.kind, 'done');
    assert.deepEqual(w.deps.attempts.items.map((a) => [a.seq, a.status]), [[5, 200], [6, 200]]);
    assert.deepEqual([stored(w).state, stored(w).attemptSeq], ['delivered', 5], 'the claim\'s number, which its write was conditional on');
  });

  it('past ten taken numbers the stage fails and nothing is written', async () => {
    const w = world({ delivery: waiting, script: [response(200)] });
    for (let seq = 5; seq < 15; seq++) await w.deps.attempts.put({ deliveryId: 'dlv_1', seq, attempt: 3, startedAt: NOW, durationMs: 9, status: 200 });

    const error = await processDelivery(w.deps, retry, first).then(() => undefined, (e: unknown) => e);

    assert.ok(error instanceof DeliveryStageError && error.stage === 'after_attempt', String(error));
    assert.match(String((error.cause as Error).message), /dlv_1: attempts 5 to 14 already logged/);
    assert.deepEqual([stored(w).state, stored(w).attemptSeq], ['pending', 4], 'no outcome written');
  });

  it('a copy recorded first while this attempt was out: this outcome is dropped, the attempt reported', async () => {
    const w = world({ delivery: waiting, script: [async () => (w.deps.deliveries.put({ ...stored(w), attemptSeq: 5, state: 'delivered' }), response(200))] });

    const outcome = await processDelivery(w.deps, retry, first);

    assert.equal(outcome.attempt?.outcome, 'claim_lost');
    assert.deepEqual([stored(w).state, stored(w).attemptSeq], ['delivered', 5]);
    assert.deepEqual(w.deps.metrics.counts, {});
  });
});
