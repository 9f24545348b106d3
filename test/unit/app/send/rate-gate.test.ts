import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processDelivery, type DeliveryMessageBody, type SendDeps } from '#app/send/send.ts';
import { settle } from '#app/send/settle.ts';
import type { AttemptResult } from '#domain/classify.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { aDelivery, aSubscription, fakeDeps, type FakeDeps } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z'; // the fake clock's start: slot 0 of its second
const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();
const BODY = '{"id":"evt_1","type":"order.created","data":{}}';
const FIRST = { receiveCount: 1, sentAtMs: Date.parse(NOW) };
const AGAIN = { receiveCount: 2, sentAtMs: Date.parse(NOW) };

class OkHttp implements HttpSender {
  readonly requests: HttpRequest[] = [];
  async post(request: HttpRequest): Promise<AttemptResult> {
    this.requests.push(request);
    return { kind: 'response', status: 200, bodySnippet: '', durationMs: 5 };
  }
}

interface World {
  readonly deps: FakeDeps & SendDeps;
  readonly http: OkHttp;
  /** Row reads, so a test can tell the gate's cheap path (none) from its careful one. */
  readonly gets: string[];
}

/** `n` pending deliveries dlv_0.. of one subscription and their events' messages, as publish leaves them. */
function world(subscription: Partial<Subscription>, n: number, delivery: Partial<Delivery> = {}): World {
  const http = new OkHttp();
  const deps = { ...fakeDeps(), http, attemptTimeoutMs: 2000 };
  deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', ...subscription }));
  for (let i = 0; i < n; i++) {
    deps.deliveries.put(aDelivery({ id: `dlv_${i}`, eventId: `evt_${i}`, subscriptionId: 'sub_1', createdAt: NOW, nextAttemptAt: NOW, giveUpAt: at(3600), ...delivery }));
    deps.events.items.set(`evt_${i}`, { id: `evt_${i}`, type: 'order.created', body: BODY, subscriptionIds: ['sub_1'], deliveryIds: [`dlv_${i}`], createdAt: NOW });
  }
  const gets: string[] = [];
  const get = deps.deliveries.get.bind(deps.deliveries);
  deps.deliveries.get = (id) => {
    gets.push(id);
    return get(id);
  };
  return { deps, http, gets };
}

/** Publish's message for dlv_i: it carries the body, creation time and deadline. */
const fresh = (i: number, giveUpAt = at(3600)): DeliveryMessageBody => ({ deliveryId: `dlv_${i}`, subscriptionId: 'sub_1', eventId: `evt_${i}`, eventType: 'order.created', createdAt: NOW, giveUpAt, body: BODY, fresh: true });
/** A message without what publish's carries (a replay's, the sweeper's, a resume drain's). */
const bare = (i: number): DeliveryMessageBody => ({ deliveryId: `dlv_${i}`, subscriptionId: 'sub_1' });
const row = (w: World, i: number) => w.deps.deliveries.items.get(`dlv_${i}`)!;
/** Makes each claim take `ms` of the fake clock, so a claimed attempt starts that much after it was counted. */
function claimTakes(w: World, ms: number): void {
  const claim = w.deps.deliveries.claim.bind(w.deps.deliveries);
  w.deps.deliveries.claim = async (...args) => {
    w.deps.clock.advance(ms);
    return claim(...args);
  };
}
/** 10/s: sub-windows of 100 ms with one place each; the clock starts at sub-window T. */
const T = Date.parse(NOW) / 100;
/** Takes the place of sub-window `index` at 10/s, as another attempt would. */
const taken = (w: World, index: number) => w.deps.sendRate.count(`send#sub_1#10#w${index}`, 0);

describe('the rate gate', () => {
  it('costs an unlimited subscription nothing: no count, on the happy path or the claimed one', async () => {
    const w = world({}, 2);
    assert.equal((await processDelivery(w.deps, fresh(0), FIRST)).kind, 'done');
    assert.equal((await processDelivery(w.deps, bare(1), AGAIN)).kind, 'done');
    assert.deepEqual(w.deps.sendRate.calls, []);
    assert.equal(w.http.requests.length, 2);
  });

  it('happy path: the quota goes out, the rest waits for its turn with nothing claimed, recorded or counted as an attempt', async () => {
    // 2/s: two sub-windows of 500 ms with one place each.
    const w = world({ rateLimitPerSecond: 2 }, 4);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await processDelivery(w.deps, fresh(i), FIRST));

    assert.equal(outcomes[0]!.kind, 'done');
    assert.deepEqual(outcomes.slice(1).map((o) => [o.kind, o.kind === 'retry_later' ? o.delaySeconds : undefined]), [['retry_later', 1], ['retry_later', 2], ['retry_later', 3]], 'one place per second at this phase: 1, 2, 3 s');
    assert.equal(w.http.requests.length, 1);
    assert.deepEqual([row(w, 0).state, row(w, 0).attempts], ['delivered', 1]);
    for (let i = 1; i < 4; i++) {
      const r = row(w, i);
      assert.deepEqual([r.state, r.attempts, r.attemptSeq, r.nextAttemptAt, r.updatedAt, r.firstAttempt], ['pending', 0, 0, NOW, NOW, undefined], `dlv_${i} untouched`);
      assert.equal(outcomes[i]!.attempt, undefined, 'no attempt to log');
    }
    assert.deepEqual(w.deps.attempts.items, []);
    assert.deepEqual(w.gets, [], 'a short wait inside the deadline reads nothing');
    assert.deepEqual(w.deps.sendRate.calls.map((c) => c.op), ['count', 'count', 'takeTurn', 'count', 'takeTurn', 'count', 'takeTurn']);
    assert.equal(w.deps.metrics.counts.DeliveriesRetried, undefined, 'a wait is not a retry');
  });

  it('a recorded retry told to wait keeps its message, nothing claimed or written; back at its turn, it goes on unclaimed past its own hold', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1, { attempts: 1, attemptSeq: 1, leaseUntil: at(60) });
    await taken(w, T);
    const retry: DeliveryMessageBody = { deliveryId: 'dlv_0', subscriptionId: 'sub_1', eventType: 'order.created', body: BODY, recorded: { attemptSeq: 1, nextAttemptAt: NOW } };
    const before = structuredClone(row(w, 0));

    const waited = await processDelivery(w.deps, retry, FIRST);

    assert.equal(waited.kind, 'retry_later');
    assert.deepEqual(row(w, 0), before);
    assert.equal(w.http.requests.length, 0);

    // The same message back (kept in flight, or moved with `recorded` by waitFor), in the next second.
    w.deps.clock.advance(1000);
    w.deps.deliveries.claim = async (id) => assert.fail(`${id} was claimed`);
    assert.equal((await processDelivery(w.deps, retry, AGAIN)).kind, 'done');
    assert.deepEqual([row(w, 0).state, row(w, 0).attemptSeq], ['delivered', 2]);
  });

  it('claimed path: a held-back retry keeps its attempts, its sequence and its backoff; it goes when its turn comes', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 2, { attempts: 3, attemptSeq: 3, lastStatus: 503 });
    assert.equal((await processDelivery(w.deps, fresh(0), AGAIN)).kind, 'done');
    await taken(w, T + 1); // the next sub-window too, so the second cannot go there either
    const held = await processDelivery(w.deps, fresh(1), AGAIN);
    assert.deepEqual([held.kind, held.kind === 'retry_later' && held.delaySeconds], ['retry_later', 1]);
    assert.deepEqual([row(w, 1).state, row(w, 1).attempts, row(w, 1).attemptSeq, row(w, 1).lastStatus], ['pending', 3, 3, 503]);
    assert.equal(w.deps.attempts.items.filter((a) => a.deliveryId === 'dlv_1').length, 0);

    w.deps.clock.advance(1000);
    assert.equal((await processDelivery(w.deps, fresh(1), AGAIN)).kind, 'done');
    assert.deepEqual([row(w, 1).state, row(w, 1).attempts, row(w, 1).attemptSeq], ['delivered', 4, 4], 'the one attempt it made, numbered after the earlier ones');
    assert.equal(w.http.requests.length, 2);
  });

  it('claimed path: one back at its turn that finds its sub-window full tries the next one, holding for it, before it takes another turn', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    await taken(w, T); // someone came at the same phase
    const started = performance.now();
    assert.equal((await processDelivery(w.deps, fresh(0), AGAIN)).kind, 'done');
    assert.ok(performance.now() - started >= 90, 'held until the next sub-window (100 ms of the fake clock, slept for real)');
    assert.deepEqual(w.deps.sendRate.calls.map((c) => [c.op, c.key]), [['count', `send#sub_1#10#w${T}`], ['count', `send#sub_1#10#w${T}`], ['count', `send#sub_1#10#w${T + 1}`]]);
    assert.deepEqual([row(w, 0).state, row(w, 0).attempts], ['delivered', 1]);
  });

  it('claimed path: an attempt whose claim carried it past its sub-window is counted again where it starts, and holds while that one is full', async () => {
    // 10/s: 100 ms sub-windows of one place each. The claim takes 100 ms, so the POST would start in the next sub-window.
    const w = world({ rateLimitPerSecond: 10 }, 1);
    claimTakes(w, 100);
    const t = Date.parse(NOW) / 100;
    // Someone took the next sub-window's place meanwhile.
    await w.deps.sendRate.count(`send#sub_1#10#w${t + 1}`, 0);
    const posted: number[] = [];
    const post = w.http.post.bind(w.http);
    w.http.post = async (request) => {
      posted.push(performance.now() - started);
      return post(request);
    };

    const started = performance.now();
    assert.equal((await processDelivery(w.deps, bare(0), AGAIN)).kind, 'done');
    const counted = w.deps.sendRate.calls.filter((c) => c.op === 'count').map((c) => c.key);
    // (The first is the place taken meanwhile.) Before the claim, as it starts (full), then at the next sub-window's start.
    assert.deepEqual(counted, [`send#sub_1#10#w${t + 1}`, `send#sub_1#10#w${t}`, `send#sub_1#10#w${t + 1}`, `send#sub_1#10#w${t + 2}`]);
    assert.ok(posted.length === 1 && posted[0]! >= 90, `held in the sender until the next sub-window (the fake clock's 100 ms, slept for real): ${posted}`);
    assert.equal(w.http.requests.length, 1);
    assert.deepEqual([row(w, 0).state, row(w, 0).attempts], ['delivered', 1]);
  });

  it('claimed path: past its sub-window, it holds through as many full ones as it takes (within a second), never starting in a full one', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    claimTakes(w, 100);
    // The next three sub-windows are full.
    for (const index of [T + 1, T + 2, T + 3]) await taken(w, index);
    // The fake clock follows each hold, as the real one would.
    const post = w.http.post.bind(w.http);
    let startedInWindow = -1;
    w.http.post = async (request) => {
      startedInWindow = Math.floor(w.deps.clock.now() / 100);
      return post(request);
    };
    const real = w.deps.clock.now.bind(w.deps.clock);
    let held = 0;
    w.deps.sendRate.count = ((count) => async (key: string, expiresAt: number) => {
      const n = await count(key, expiresAt);
      // Each count after the claim's past-window one is made at the start of the sub-window it names.
      const index = Number(key.slice(key.lastIndexOf('#w') + 2));
      if (index > Math.floor(real() / 100)) w.deps.clock.advance(index * 100 - real()), held++;
      return n;
    })(w.deps.sendRate.count.bind(w.deps.sendRate));

    assert.equal((await processDelivery(w.deps, bare(0), AGAIN)).kind, 'done');

    const counted = w.deps.sendRate.calls.filter((c) => c.op === 'count').map((c) => c.key.slice(c.key.lastIndexOf('#w') + 2)).map(Number);
    assert.deepEqual(counted.slice(3), [T, T + 1, T + 2, T + 3, T + 4], 'before the claim, then each sub-window from where it starts until one admits it');
    assert.equal(startedInWindow, T + 4, 'it starts in the sub-window that admitted it');
    assert.ok(held >= 3);
    assert.deepEqual([row(w, 0).state, row(w, 0).attempts], ['delivered', 1]);
  });

  it('claimed path: an attempt that starts in the sub-window that counted it is not counted again', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    assert.equal((await processDelivery(w.deps, bare(0), AGAIN)).kind, 'done');
    assert.deepEqual(w.deps.sendRate.calls.map((c) => c.op), ['count']);
  });

  it('counts per limit: a changed limit starts its own windows and turns', async () => {
    const w = world({ rateLimitPerSecond: 1 }, 2);
    await processDelivery(w.deps, fresh(0), FIRST);
    w.deps.subscriptions.items.set('sub_1', { ...w.deps.subscriptions.items.get('sub_1')!, rateLimitPerSecond: 5 });
    assert.equal((await processDelivery(w.deps, fresh(1), FIRST)).kind, 'done');
    const keys = w.deps.sendRate.calls.map((c) => c.key);
    assert.equal(new Set(keys).size, 2);
    assert.match(keys[0]!, /^send#sub_1#1#w\d+$/);
    assert.match(keys[1]!, /^send#sub_1#5#w\d+$/);
  });

  it('does not gate a delivery that will not be sent: a disabled subscription fails it, uncounted', async () => {
    const w = world({ rateLimitPerSecond: 1, state: 'disabled', stateReason: '410' }, 1);
    assert.equal((await processDelivery(w.deps, bare(0), AGAIN)).kind, 'done');
    assert.equal(row(w, 0).state, 'failed');
    assert.deepEqual(w.deps.sendRate.calls, []);
  });

  describe('the deadline: a wait never extends it', () => {
    it('a delivery held back past its deadline expires, a dead letter like the sweeper makes', async () => {
      const w = world({ rateLimitPerSecond: 10 }, 2, { giveUpAt: NOW });
      await processDelivery(w.deps, bare(0), AGAIN);
      await taken(w, T + 1);
      const outcome = await processDelivery(w.deps, bare(1), AGAIN);
      assert.equal(outcome.kind, 'done');
      assert.equal(row(w, 1).state, 'expired');
      assert.equal(row(w, 1).attempts, 0);
      assert.match(row(w, 1).lastError ?? '', /deadline .* passed while held back by the rate limit \(10\/s\)/);
      assert.equal(w.deps.metrics.counts.DeliveriesExpired, 1);
      assert.equal(w.deps.metrics.counts.DeadLettered, 1);
      assert.equal(w.deps.subscriptions.items.get('sub_1')!.deadLetterStreak, 1, 'counts toward auto-pause like any dead letter');
      assert.equal(w.http.requests.length, 1);
    });

    it('a wait that would end past the deadline ends at it', async () => {
      const w = world({ rateLimitPerSecond: 1 }, 1, { giveUpAt: at(5) });
      // Twenty deliveries are queued at this phase already: its turn is 21 s away, its deadline 5 s.
      await w.deps.sendRate.count(`send#sub_1#1#w${Date.parse(NOW) / 1000}`, 0);
      w.deps.sendRate.turns.set('send#sub_1#1#t0', (Date.parse(NOW) / 1000 + 1) + 20);
      const outcome = await processDelivery(w.deps, fresh(0, at(5)), FIRST);
      assert.deepEqual([outcome.kind, outcome.kind === 'retry_later' && outcome.delaySeconds], ['retry_later', 5]);
      assert.match(outcome.note, /cut to its deadline/);
    });
  });

  it('a long wait moves the row to its end, so the sweeper does not take the delivery for one whose message was lost', async () => {
    const w = world({ rateLimitPerSecond: 1 }, 1);
    await w.deps.sendRate.count(`send#sub_1#1#w${Date.parse(NOW) / 1000}`, 0);
    // 200 already queued: 201 s, beyond half the sweeper's grace (120 s).
    w.deps.sendRate.turns.set('send#sub_1#1#t0', (Date.parse(NOW) / 1000 + 1) + 200);
    const outcome = await processDelivery(w.deps, fresh(0), FIRST);
    assert.deepEqual([outcome.kind, outcome.kind === 'retry_later' && outcome.delaySeconds], ['retry_later', 201]);
    assert.deepEqual(w.gets, ['dlv_0']);
    assert.deepEqual([row(w, 0).state, row(w, 0).nextAttemptAt, row(w, 0).attempts], ['pending', at(201), 0]);

    // Its turn: it is due, so the claim holds.
    w.deps.clock.advance(201_000);
    assert.equal((await processDelivery(w.deps, fresh(0), AGAIN)).kind, 'done');
    assert.equal(row(w, 0).state, 'delivered');
  });

  it('publish writes no row: a first attempt told to wait gets the row it would have had, a long wait moves it, and its turn claims it', async () => {
    const w = world({ rateLimitPerSecond: 1 }, 2);
    for (const id of ['dlv_0', 'dlv_1']) w.deps.deliveries.items.delete(id);
    await w.deps.sendRate.count(`send#sub_1#1#w${Date.parse(NOW) / 1000}`, 0);
    const short = await processDelivery(w.deps, fresh(0), FIRST);
    // 200 more queued: a wait of 201 s, past half the sweeper's grace.
    w.deps.sendRate.turns.set('send#sub_1#1#t0', (Date.parse(NOW) / 1000 + 1) + 200);
    const long = await processDelivery(w.deps, fresh(1), FIRST);

    assert.deepEqual([short.kind, long.kind, long.kind === 'retry_later' && long.delaySeconds], ['retry_later', 'retry_later', 201]);
    assert.deepEqual([row(w, 0).state, row(w, 0).attempts, row(w, 0).nextAttemptAt], ['pending', 0, NOW], 'the short wait: its row, as publish once wrote it');
    assert.deepEqual([row(w, 1).state, row(w, 1).attempts, row(w, 1).nextAttemptAt], ['pending', 0, at(201)], 'the long wait: its row, moved to the wait\'s end');
    w.deps.clock.advance(201_000);
    assert.equal((await processDelivery(w.deps, fresh(1), AGAIN)).kind, 'done');
    assert.equal(row(w, 1).state, 'delivered');
  });

  it('reads the row for a message that does not carry the deadline (a replay, a resume drain)', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 2);
    await processDelivery(w.deps, bare(0), AGAIN);
    await taken(w, T + 1);
    w.gets.length = 0;
    const outcome = await processDelivery(w.deps, bare(1), AGAIN);
    assert.equal(outcome.kind, 'retry_later');
    assert.deepEqual(w.gets, ['dlv_1']);
    assert.equal(row(w, 1).nextAttemptAt, NOW, 'a short wait leaves the row alone');
  });

  it('the message waits through its visibility: settle sets it to the turn, a batch item failure', async () => {
    const w = world({ rateLimitPerSecond: 1 }, 3);
    const later = (receiptHandle: string) => async (delaySeconds: number) => (await w.deps.queue.setVisibility(receiptHandle, delaySeconds), 'kept' as const);
    await settle(later('rh0'), () => processDelivery(w.deps, fresh(0), FIRST));
    const fates = [await settle(later('rh1'), () => processDelivery(w.deps, fresh(1), FIRST)), await settle(later('rh2'), () => processDelivery(w.deps, fresh(2), FIRST))];
    assert.deepEqual(fates.map((f) => f.kind), ['retry', 'retry']);
    assert.deepEqual(w.deps.queue.retries, [{ receiptHandle: 'rh1', delaySeconds: 1 }, { receiptHandle: 'rh2', delaySeconds: 2 }]);
  });
});
