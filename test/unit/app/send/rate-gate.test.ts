import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processDelivery, type SendDeps } from '#app/send/send.ts';
import { settle } from '#app/redelivery/settle.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { sendWindowAt } from '#domain/send-rate.ts';
import type { Delivery, InlineAttempt, Subscription } from '#domain/types.ts';
import type { DueMessage, FreshMessage, RetryMessage } from '#ports/delivery-queue.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { aDelivery, aSubscription, fakeDeps, type FakeDeps } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z'; // the fake clock's start: slot 0 of its second
const NOW_MS = Date.parse(NOW);
const at = (seconds: number) => new Date(NOW_MS + seconds * 1000).toISOString();
const BODY = '{"id":"evt_1","type":"order.created","data":{}}';
const FIRST = { receiveCount: 1 };
const AGAIN = { receiveCount: 2 };

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
  /** Row reads, so a test can tell a carried expectation (none) from a read one. */
  readonly gets: string[];
}

/** One subscription and the events of dlv_0..dlv_{n-1}; no delivery rows, as publish leaves them. */
function world(subscription: Partial<Subscription>, n: number): World {
  const http = new OkHttp();
  const deps = { ...fakeDeps(), http, attemptTimeoutMs: 2000 };
  deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', ...subscription }));
  for (let i = 0; i < n; i++) {
    deps.events.items.set(`evt_${i}`, {
      id: `evt_${i}`,
      type: 'order.created',
      body: BODY,
      subscriptionIds: ['sub_1'],
      deliveryIds: [`dlv_${i}`],
      createdAt: NOW,
    });
  }
  const gets: string[] = [];
  const get = deps.deliveries.get.bind(deps.deliveries);
  deps.deliveries.get = (id) => (gets.push(id), get(id));
  return { deps, http, gets };
}

/** Publish's message for dlv_i: it carries the body, creation time and deadline. */
const fresh = (i: number, giveUpAt = at(3600)): FreshMessage => ({
  kind: 'fresh',
  deliveryId: `dlv_${i}`,
  subscriptionId: 'sub_1',
  eventId: `evt_${i}`,
  eventType: 'order.created',
  createdAt: NOW,
  giveUpAt,
  body: BODY,
});
/** A replay's, the sweeper's or a resume drain's message: the row is read. */
const due = (i: number): DueMessage => ({
  kind: 'due',
  deliveryId: `dlv_${i}`,
  subscriptionId: 'sub_1',
  attemptSeq: 0,
});
/** Stores dlv_i's row, pending and due now. */
const stored = (w: World, i: number, fields: Partial<Delivery> = {}) =>
  w.deps.deliveries.put(
    aDelivery({
      id: `dlv_${i}`,
      eventId: `evt_${i}`,
      subscriptionId: 'sub_1',
      createdAt: NOW,
      nextAttemptAt: NOW,
      giveUpAt: at(3600),
      ...fields,
    }),
  );
const row = (w: World, i: number) => w.deps.deliveries.items.get(`dlv_${i}`);
/** 10/s: sub-windows of 100 ms with one place each; the clock starts at sub-window T. */
const T = NOW_MS / 100;
/** Takes the place of sub-window `index` at 10/s, as another attempt would. */
const taken = (w: World, index: number) => w.deps.sendRate.count(`send#sub_1#10#w${index}`, 0);
/**
 * A backlog at `limit`/s: this sub-window full, and `queued` seconds of turns ahead in the
 * subscription's queue, so the next turn is the first place of the second `queued + 1` s on.
 */
async function backlog(w: World, queued: number, limit = 1): Promise<void> {
  const window = sendWindowAt(limit, w.deps.clock.now());
  for (let i = 0; i < window.quota; i++) await w.deps.sendRate.count(`send#sub_1#${limit}#w${window.index}`, 0);
  w.deps.sendRate.turns.set(`send#sub_1#${limit}#t`, (window.second + 1 + queued) * limit);
}

describe('the rate gate', () => {
  it('costs an unlimited subscription nothing: no count, whatever message brought the attempt', async () => {
    const w = world({}, 2);
    stored(w, 1);
    assert.equal((await processDelivery(w.deps, fresh(0), FIRST)).kind, 'done');
    assert.equal((await processDelivery(w.deps, due(1), FIRST)).kind, 'done');
    assert.deepEqual(w.deps.sendRate.calls, []);
    assert.equal(w.http.requests.length, 2);
  });

  it('a burst: the quota goes out, and one whose turn is within the second holds for it in the sender and goes then', async () => {
    // 2/s: two sub-windows of 500 ms with one place each.
    const w = world({ rateLimitPerSecond: 2 }, 3);
    const postedAt: number[] = [];
    const post = w.http.post.bind(w.http);
    w.http.post = async (request) => (postedAt.push(w.deps.clock.now() - NOW_MS), post(request));

    for (let i = 0; i < 3; i++) assert.equal((await processDelivery(w.deps, fresh(i), FIRST)).kind, 'done');

    assert.deepEqual(postedAt, [0, 500, 1000], 'one a sub-window: each held for the next one');
    assert.deepEqual(
      w.deps.sendRate.calls.map((c) => c.op),
      ['count', 'count', 'takeTurn', 'count', 'count', 'takeTurn', 'count'],
    );
    assert.equal(w.deps.metrics.counts.DeliveriesRetried, undefined, 'a wait is not a retry');
  });

  it('a backlog: one whose turn is seconds away leaves at once for the whole seconds, carrying its turn, with nothing read or written', async () => {
    // 10/s, sub-windows of 100 ms with one place each; the turns are taken up to 1.25 s ahead.
    const w = world({ rateLimitPerSecond: 10 }, 1);
    await backlog(w, 0, 10);
    w.deps.sendRate.turns.set('send#sub_1#10#t', (NOW_MS / 1000 + 1) * 10 + 2);

    const held = await processDelivery(w.deps, fresh(0), FIRST);

    assert.deepEqual([held.kind, held.kind === 'retry_later' && held.delaySeconds], ['retry_later', 1]);
    assert.equal(held.kind === 'retry_later' && held.until, NOW_MS + 1200, 'its turn: the sub-window at 1.2 s');
    assert.equal(
      w.deps.clock.now(),
      NOW_MS,
      'not held here: a hold would keep its whole sender batch, and a burst behind it in the queue',
    );
    assert.equal(row(w, 0), undefined, 'a short wait writes no row');
    assert.equal(held.attempt, undefined, 'no attempt to log');
    assert.equal(held.kind === 'retry_later' ? held.next : 'done', undefined, 'its message comes back as it is');
    assert.deepEqual(w.gets, []);
    assert.equal(w.http.requests.length, 0);
  });

  it('one back early for its turn (SQS delays are whole seconds) holds for its sub-window and is counted there', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    let startedIn = -1;
    const post = w.http.post.bind(w.http);
    w.http.post = async (request) => ((startedIn = Math.floor(w.deps.clock.now() / 100)), post(request));

    // Back 800 ms before its turn, the sub-window at 0.8 s.
    const back = await processDelivery(w.deps, { ...fresh(0), notBefore: at(0.8) }, FIRST);

    assert.equal(back.kind, 'done');
    assert.deepEqual(
      w.deps.sendRate.calls.map((c) => c.key),
      [`send#sub_1#10#w${T + 8}`],
      'counted in its turn, not in the sub-window it came back in (that is another turn)',
    );
    assert.equal(startedIn, T + 8);
  });

  it('a retry held back keeps its row, its attempt count and its backoff untouched; back at its turn it goes, numbered after the earlier attempts', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    const earlier: InlineAttempt = { seq: 3, attempt: 3, startedAt: at(-40), durationMs: 5, status: 503 };
    stored(w, 0, { attempts: 3, attemptSeq: 3, lastAttempt: earlier, lastStatus: 503, lastError: 'HTTP 503' });
    const retry: RetryMessage = {
      ...fresh(0),
      kind: 'retry',
      attemptSeq: 3,
      attempts: 3,
      nextAttemptAt: NOW,
      previousAttempt: earlier,
    };
    await backlog(w, 0, 10); // a full second of turns ahead
    const before = structuredClone(row(w, 0));

    const held = await processDelivery(w.deps, retry, FIRST);

    assert.deepEqual([held.kind, held.kind === 'retry_later' && held.delaySeconds], ['retry_later', 1]);
    assert.deepEqual(row(w, 0), before);
    assert.equal(w.deps.attempts.items.length, 0, 'nothing logged: no attempt was made');

    // The same message back in the next second (kept in flight: received again, so its row is read first).
    w.deps.clock.advance(1000);
    assert.equal((await processDelivery(w.deps, retry, AGAIN)).kind, 'done');
    assert.deepEqual([row(w, 0)!.state, row(w, 0)!.attempts, row(w, 0)!.attemptSeq], ['delivered', 4, 4]);
    assert.deepEqual(
      w.deps.attempts.items.map((a) => a.seq),
      [3],
      'the attempt the row held, logged before the outcome replaced it',
    );
    assert.deepEqual(w.gets, ['dlv_0']);
  });

  it('one that finds its sub-window full takes a turn, and holds (in the sender) for it when it is within the second', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    await taken(w, T); // someone came at the same phase

    assert.equal((await processDelivery(w.deps, fresh(0), FIRST)).kind, 'done');

    assert.equal(w.deps.clock.now() - NOW_MS, 100, 'held until the next sub-window');
    assert.deepEqual(
      w.deps.sendRate.calls.map((c) => [c.op, c.key]),
      [
        ['count', `send#sub_1#10#w${T}`],
        ['count', `send#sub_1#10#w${T}`],
        ['takeTurn', 'send#sub_1#10#t'],
        ['count', `send#sub_1#10#w${T + 1}`],
      ],
    );
    assert.equal(row(w, 0)!.state, 'delivered');
  });

  it('one whose count came back after its sub-window ended is counted again, as far ahead as a count now takes, and holds for that sub-window: it never starts in a sub-window that did not admit it', async () => {
    const w = world({ rateLimitPerSecond: 10 }, 1);
    // The first count takes 100 ms of the fake clock: it admits the attempt into a sub-window that has ended.
    const count = w.deps.sendRate.count.bind(w.deps.sendRate);
    let slow = true;
    w.deps.sendRate.count = async (key, expiresAt) => {
      const n = await count(key, expiresAt);
      if (slow) (slow = false), w.deps.clock.advance(100);
      return n;
    };
    let startedIn = -1;
    const post = w.http.post.bind(w.http);
    w.http.post = async (request) => ((startedIn = Math.floor(w.deps.clock.now() / 100)), post(request));

    assert.equal((await processDelivery(w.deps, fresh(0), FIRST)).kind, 'done');

    // Counts take 100 ms now: counted in T + 1 as it began, it would be back when T + 1 ends and waste its place again.
    assert.deepEqual(
      w.deps.sendRate.calls.map((c) => c.key),
      [`send#sub_1#10#w${T}`, `send#sub_1#10#w${T + 2}`],
    );
    assert.equal(startedIn, T + 2);
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
    assert.equal((await processDelivery(w.deps, fresh(0), FIRST)).kind, 'done');
    assert.equal(row(w, 0)!.state, 'failed');
    assert.deepEqual(w.deps.sendRate.calls, []);
  });

  describe('the deadline: a wait never extends it', () => {
    it('a delivery held back at its deadline expires in its one write, a dead letter like the sweeper makes', async () => {
      const w = world({ rateLimitPerSecond: 10 }, 2);
      await processDelivery(w.deps, fresh(0, NOW), FIRST);
      w.deps.sendRate.turns.set('send#sub_1#10#t', (NOW_MS / 1000 + 2) * 10);

      const outcome = await processDelivery(w.deps, fresh(1, NOW), FIRST);

      assert.equal(outcome.kind, 'done');
      assert.deepEqual([row(w, 1)!.state, row(w, 1)!.attempts], ['expired', 0]);
      assert.match(row(w, 1)!.lastError ?? '', /deadline .* passed while held back by the rate limit \(10\/s\)/);
      assert.deepEqual([w.deps.metrics.counts.DeliveriesExpired, w.deps.metrics.counts.DeadLettered], [1, 1]);
      assert.equal(
        w.deps.subscriptions.items.get('sub_1')!.deadLetterStreak,
        1,
        'counts toward auto-pause like any dead letter',
      );
      assert.equal(w.http.requests.length, 1);
    });

    it('a wait that would end past the deadline ends at it', async () => {
      const w = world({ rateLimitPerSecond: 1 }, 1);
      await backlog(w, 20); // its turn is 21 s away, its deadline 5 s

      const outcome = await processDelivery(w.deps, fresh(0, at(5)), FIRST);

      assert.deepEqual([outcome.kind, outcome.kind === 'retry_later' && outcome.delaySeconds], ['retry_later', 5]);
    });
  });

  describe("a long wait (past half the sweeper's grace) is written into the row, so the sweeper does not take it for a lost message", () => {
    it('a first attempt: its one write makes the row, pending until the turn, and a due message brings it back', async () => {
      const w = world({ rateLimitPerSecond: 1 }, 1);
      await backlog(w, 200); // 201 s: beyond half the grace (120 s)

      const outcome = await processDelivery(w.deps, fresh(0), FIRST);

      assert.deepEqual([outcome.kind, outcome.kind === 'retry_later' && outcome.delaySeconds], ['retry_later', 201]);
      assert.deepEqual(outcome.kind === 'retry_later' && outcome.next, due(0), 'its due message, sent for attempt 0');
      assert.deepEqual([row(w, 0)!.state, row(w, 0)!.nextAttemptAt, row(w, 0)!.attempts], ['pending', at(201), 0]);
      assert.deepEqual(w.gets, [], 'the expectation (no row yet) was carried');

      w.deps.clock.advance(201_000);
      assert.equal((await processDelivery(w.deps, due(0), FIRST)).kind, 'done');
      assert.equal(row(w, 0)!.state, 'delivered');
    });

    it('a due message: the row read moves to the turn; a short wait leaves it alone', async () => {
      const w = world({ rateLimitPerSecond: 1 }, 2);
      stored(w, 0);
      stored(w, 1);
      await backlog(w, 2);

      const short = await processDelivery(w.deps, due(0), FIRST);
      await backlog(w, 200);
      const long = await processDelivery(w.deps, due(1), FIRST);

      assert.deepEqual([short.kind, row(w, 0)!.nextAttemptAt], ['retry_later', NOW]);
      assert.deepEqual([long.kind, row(w, 1)!.nextAttemptAt], ['retry_later', at(201)]);
      assert.deepEqual(w.gets, ['dlv_0', 'dlv_1']);
    });
  });

  it("a short wait goes through its message's visibility (a batch item failure); a written one sends its due message", async () => {
    const w = world({ rateLimitPerSecond: 1 }, 3);
    const sent: unknown[] = [];
    const later =
      (receiptHandle: string) =>
      async (delaySeconds: number, how: { next?: unknown } = {}) => {
        if (how.next) return (sent.push(how.next), 'moved' as const);
        await w.deps.queue.setVisibility(receiptHandle, delaySeconds);
        return 'kept' as const;
      };
    await settle(later('rh0'), () => processDelivery(w.deps, fresh(0), FIRST));
    const short = await settle(later('rh1'), () => processDelivery(w.deps, fresh(1), FIRST));
    await backlog(w, 200);
    const long = await settle(later('rh2'), () => processDelivery(w.deps, fresh(2), FIRST));

    assert.deepEqual([short.kind, short.kind === 'retry' && short.released], ['retry', false]);
    assert.deepEqual([long.kind, long.kind === 'retry' && long.released], ['retry', true]);
    assert.deepEqual(w.deps.queue.retries, [{ receiptHandle: 'rh1', delaySeconds: 1 }]);
    assert.deepEqual(sent, [due(2)]);
  });
});
