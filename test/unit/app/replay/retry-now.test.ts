import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '#app/access.ts';
import { ConflictError, NotFoundError, RateLimitedError } from '#app/errors.ts';
import { replayAs } from '#app/replay/replay-delivery.ts';
import { retryNowAs } from '#app/replay/retry-now.ts';
import { processDelivery } from '#app/send/send.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { attemptTtlFor, deadLetterEventTtl } from '#domain/retention.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import type { RetryPolicy } from '#domain/retry-policy.ts';
import { RESPONSE_SNIPPET_BYTES, type Delivery, type EventRecord } from '#domain/types.ts';
import type { FreshMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { aDelivery, aSubscription, fakeDeps } from '#test/fakes.ts';
import { InMemoryRateLimiter } from '#test/memory-stores.ts';

const NOW = '2024-05-01T12:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const at = (seconds: number) => new Date(NOW_MS + seconds * 1000).toISOString();
const BODY = '{"id":"evt_1","type":"order.created","timestamp":"2024-05-01T12:00:00.000Z","data":{}}';
const ID = deliveryIdFor('evt_1', 'sub_1', NOW);
/** A retry ten minutes after a failure: far enough that someone who fixed the endpoint would rather not wait. */
const SLOW_RETRIES: RetryPolicy = {
  initialDelaySeconds: 600,
  multiplier: 2,
  maxDelaySeconds: 3600,
  jitter: 0,
  deadlineSeconds: 86_400,
};
const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_acme' };
const GLOBEX: Principal = { role: 'tenant', tenantId: 'globex', keyId: 'key_globex' };
const ADMIN: Principal = { role: 'admin' };
const FIRST_RECEIVE = { receiveCount: 1 };

/** Answers each POST with the next scripted status and keeps the requests. */
class ScriptedHttp implements HttpSender {
  readonly requests: HttpRequest[] = [];
  constructor(
    private readonly statuses: number[],
    private readonly bodySnippet = '',
  ) {}
  async post(request: HttpRequest): Promise<AttemptResult> {
    this.requests.push(request);
    const status = this.statuses.shift();
    assert.ok(status, 'a POST nobody scripted');
    return { kind: 'response', status, bodySnippet: this.bodySnippet, durationMs: 20 };
  }
}

/** acme's subscription and one event; `limit` replays and Retry nows a window for a tenant; every answer's body `bodySnippet`. */
function world(statuses: number[] = [], limit = 100, bodySnippet = '') {
  const http = new ScriptedHttp(statuses, bodySnippet);
  const limiter = new InMemoryRateLimiter();
  const deps = {
    ...fakeDeps(),
    http,
    attemptTimeoutMs: 15_000,
    rateLimiter: limiter,
    customerReplayLimit: { limit, windowSeconds: 60 },
  };
  deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', tenantId: 'acme', retryPolicy: SLOW_RETRIES }));
  const event: EventRecord = {
    id: 'evt_1',
    type: 'order.created',
    body: BODY,
    tenantId: 'acme',
    subscriptionIds: ['sub_1'],
    deliveryIds: [ID],
    createdAt: NOW,
  };
  deps.events.items.set(event.id, event);
  return { deps, http, limiter };
}
type World = ReturnType<typeof world>;

const FRESH: FreshMessage = {
  kind: 'fresh',
  deliveryId: ID,
  subscriptionId: 'sub_1',
  eventId: 'evt_1',
  eventType: 'order.created',
  createdAt: NOW,
  giveUpAt: at(86_400),
  body: BODY,
};

/** The first attempt fails (503): the row waits ten minutes, and the retry message that carries it is returned. */
async function failedOnce(w: World): Promise<ReceivedDeliveryMessage> {
  const outcome = await processDelivery(w.deps, FRESH, FIRST_RECEIVE);
  assert.equal(outcome.kind, 'retry_later');
  assert.ok(outcome.kind === 'retry_later' && outcome.next?.kind === 'retry', 'a retry message');
  assert.equal(w.deps.deliveries.items.get(ID)?.nextAttemptAt, at(600));
  return outcome.next;
}

const stored = (w: World) => w.deps.deliveries.items.get(ID)!;

describe('retryNowAs: a waiting delivery attempted at once', () => {
  it('moves the row to now with attempts 0 and a fresh deadline, marks the subscription, and sends one due message', async () => {
    const w = world([503]);
    await failedOnce(w);
    w.deps.clock.advance(60_000);
    const before = stored(w);

    const retried = await retryNowAs(w.deps, ACME, ID);

    const now = at(60);
    const expected: Delivery = {
      ...before,
      attempts: 0,
      nextAttemptAt: now,
      giveUpAt: at(60 + 86_400),
      updatedAt: now,
    };
    assert.deepEqual(stored(w), expected);
    assert.equal(retried.nextAttemptAt, now);
    assert.equal(retried.attemptSeq, 1, 'the attempt it hurries is still the next one');
    assert.deepEqual(w.deps.queue.messages(), [
      { kind: 'due', deliveryId: ID, subscriptionId: 'sub_1', attemptSeq: 1 },
    ]);
    assert.equal(w.deps.subscriptions.items.get('sub_1')?.retriedNowAt, now);
    assert.deepEqual(w.limiter.taken, ['replay:sub_1'], "counted as Resend's are");
  });

  it('the due message delivers it at once; the retry message it overtook, arriving later, sends nothing', async () => {
    const w = world([503, 200]);
    const overtaken = await failedOnce(w);
    w.deps.clock.advance(60_000);
    await retryNowAs(w.deps, ACME, ID);

    const [due] = w.deps.queue.messages();
    const hurried = await processDelivery(w.deps, due!, FIRST_RECEIVE);
    assert.equal(hurried.kind, 'done');
    assert.equal(stored(w).state, 'delivered');
    assert.equal(stored(w).attemptSeq, 2);
    assert.equal(stored(w).lastAttempt?.attempt, 1, 'the attempt log restarts its run, as after a replay');
    assert.equal(w.http.requests.length, 2);

    w.deps.clock.advance(540_000);
    const late = await processDelivery(w.deps, overtaken, FIRST_RECEIVE);

    assert.equal(late.kind, 'done');
    assert.match(late.kind === 'done' ? late.note : '', /moved on/);
    assert.equal(w.http.requests.length, 2, 'no second POST');
  });

  it('a retry message made after the mark still goes without reading its row', async () => {
    const w = world([503, 503, 200]);
    await failedOnce(w);
    w.deps.clock.advance(60_000);
    await retryNowAs(w.deps, ACME, ID);
    w.deps.clock.advance(20);
    const [due] = w.deps.queue.messages();
    const again = await processDelivery(w.deps, due!, FIRST_RECEIVE);
    assert.ok(again.kind === 'retry_later' && again.next?.kind === 'retry');
    assert.equal(
      Date.parse(stored(w).nextAttemptAt),
      NOW_MS + 60_020 + 600_000,
      'the backoff restarted: the first delay again',
    );
    let reads = 0;
    const get = w.deps.deliveries.get.bind(w.deps.deliveries);
    w.deps.deliveries.get = (id) => (reads++, get(id));

    w.deps.clock.advance(600_000);
    await processDelivery(w.deps, again.next, FIRST_RECEIVE);

    assert.equal(reads, 0);
    assert.equal(stored(w).state, 'delivered');
  });

  /**
   * Two attempts made (the second's status given), each answered with the longest body kept, so
   * the first does not fit on the row beside the second: it is logged to the attempts table; its TTL then.
   */
  async function twoAttempts(second: number) {
    const w = world([503, second], 100, 'x'.repeat(RESPONSE_SNIPPET_BYTES));
    w.deps.events.expiresAt.set('evt_1', NOW_MS / 1000 + 35 * 86_400);
    const retry = await failedOnce(w);
    w.deps.clock.advance(600_000);
    await processDelivery(w.deps, retry, FIRST_RECEIVE);
    const loggedUntil = w.deps.attempts.expiresAt.get(`${ID} 1`)!;
    assert.equal(loggedUntil, attemptTtlFor(NOW_MS + 86_400_000, w.deps.retention), 'logged for its first run');
    return { w, loggedUntil };
  }

  /** The new run's deadline is a day from now, and the logged attempt and the body are kept for it. */
  function historyKeptFor(w: World, run: Delivery, loggedUntil: number) {
    const giveUpAtMs = Date.parse(run.giveUpAt);
    assert.equal(giveUpAtMs, w.deps.clock.now() + 86_400_000);
    assert.equal(w.deps.attempts.expiresAt.get(`${ID} 1`), attemptTtlFor(giveUpAtMs, w.deps.retention));
    assert.ok(w.deps.attempts.expiresAt.get(`${ID} 1`)! > loggedUntil);
    assert.equal(w.deps.events.expiresAt.get('evt_1'), deadLetterEventTtl(giveUpAtMs, w.deps.retention));
  }

  it('a fresh deadline keeps the history for it: the attempts logged so far and the body move out to its TTLs', async () => {
    const { w, loggedUntil } = await twoAttempts(503);
    // Twenty minutes to wait for the next attempt: one of them is enough to want it now.
    w.deps.clock.advance(60_000);

    historyKeptFor(w, await retryNowAs(w.deps, ACME, ID), loggedUntil);
  });

  it('a replay keeps the history for its new run too: the logged attempts and the body move out to its TTLs', async () => {
    const { w, loggedUntil } = await twoAttempts(400);
    assert.equal(stored(w).state, 'failed');
    w.deps.clock.advance(80 * 86_400_000);

    historyKeptFor(w, await replayAs(w.deps, ACME, ID), loggedUntil);
  });

  const refusals: ReadonlyArray<readonly [string, Partial<Delivery>, string | undefined, RegExp]> = [
    [
      'delivered',
      { state: 'delivered', attemptSeq: 1 },
      undefined,
      /is delivered: it waits for no retry; replay it instead \(POST \/v1\/deliveries\/.+\/replay\)/,
    ],
    ['failed', { state: 'failed', attemptSeq: 1 }, undefined, /is failed: .*replay it instead/],
    ['in flight (an earlier version)', { state: 'in_flight', attemptSeq: 1 }, undefined, /an attempt holds it/],
    ['due already', { attemptSeq: 1, nextAttemptAt: at(-5) }, undefined, /is due .*on its way or being made/],
    ['due in 5 s', { attemptSeq: 1, nextAttemptAt: at(5) }, undefined, /is due/],
    ['not attempted yet', { attemptSeq: 0, nextAttemptAt: at(3600) }, undefined, /first attempt is already on its way/],
    ['of a paused subscription', { attemptSeq: 1, nextAttemptAt: at(3600) }, 'paused', /is paused; resume it/],
    ['of a disabled subscription', { attemptSeq: 1, nextAttemptAt: at(600) }, 'disabled', /subscription disabled/],
  ];
  for (const [what, row, subscriptionState, message] of refusals) {
    it(`409 for a delivery ${what}: nothing written, sent, marked or counted`, async () => {
      const w = world();
      if (subscriptionState)
        w.deps.subscriptions.items.set('sub_1', {
          ...w.deps.subscriptions.items.get('sub_1')!,
          state: subscriptionState as 'paused' | 'disabled',
        });
      const seeded = aDelivery({ id: ID, tenantId: 'acme', attempts: row.attemptSeq ?? 0, ...row });
      w.deps.deliveries.put(seeded);

      await assert.rejects(
        retryNowAs(w.deps, ACME, ID),
        (e: unknown) => e instanceof ConflictError && message.test(e.message),
      );

      assert.deepEqual(stored(w), seeded);
      assert.deepEqual(w.deps.queue.messages(), []);
      assert.equal(w.deps.subscriptions.items.get('sub_1')?.retriedNowAt, undefined);
      assert.deepEqual(w.limiter.taken, []);
    });
  }

  it("another tenant's delivery is not found, like one that does not exist", async () => {
    const w = world([503]);
    await failedOnce(w);
    w.deps.clock.advance(60_000);
    const before = stored(w);

    await assert.rejects(retryNowAs(w.deps, GLOBEX, ID), NotFoundError);
    await assert.rejects(retryNowAs(w.deps, ACME, deliveryIdFor('evt_2', 'sub_1', NOW)), NotFoundError);

    assert.deepEqual(stored(w), before);
    assert.deepEqual(w.deps.queue.messages(), []);
  });

  it("shares Resend's limit: over it, 429 and nothing changes; the admin key is not limited", async () => {
    const w = world([503], 1);
    await failedOnce(w);
    w.deps.clock.advance(60_000);
    w.deps.deliveries.put(aDelivery({ id: 'dlv_done', tenantId: 'acme', state: 'delivered', attemptSeq: 1 }));
    await replayAs(w.deps, ACME, 'dlv_done');
    const before = stored(w);
    const sent = w.deps.queue.messages().length;

    await assert.rejects(
      retryNowAs(w.deps, ACME, ID),
      (e: unknown) =>
        e instanceof RateLimitedError && /at most 1 replays, retries and test events per 60 s/.test(e.message),
    );
    assert.deepEqual(stored(w), before);
    assert.equal(w.deps.queue.messages().length, sent);

    assert.equal((await retryNowAs(w.deps, ADMIN, ID)).nextAttemptAt, at(60));
  });

  it('409 when an attempt is recorded between the read and the write, and no message is sent', async () => {
    const w = world([503]);
    await failedOnce(w);
    w.deps.clock.advance(60_000);
    const write = w.deps.deliveries.write.bind(w.deps.deliveries);
    w.deps.deliveries.write = async (action, row, expect) => {
      if (action === 'retry_now') w.deps.deliveries.put({ ...stored(w), attemptSeq: 2, state: 'delivered' });
      return write(action, row, expect);
    };

    await assert.rejects(
      retryNowAs(w.deps, ACME, ID),
      (e: unknown) => e instanceof ConflictError && /changed while/.test(e.message),
    );
    assert.deepEqual(w.deps.queue.messages(), []);
    assert.equal(stored(w).state, 'delivered');
  });
});
