import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import { NotFoundError, ValidationError } from '#app/errors.ts';
import { getSubscriptionStats } from '#app/subscriptions/subscription-stats.ts';
import { parseSubscriptionStatsQuery } from '#app/subscriptions/subscription-stats-request.ts';
import { subscriptionStatsView } from '#app/subscriptions/subscription-stats-view.ts';
import { STATE } from '#domain/states.ts';
import { HEALTH_SAMPLE } from '#domain/subscription-health.ts';
import type { Delivery } from '#domain/types.ts';
import { aDelivery, aSubscription, fakeDeps, SEEDED_TTL, InMemoryDeliveryStore } from '#test/fakes.ts';

const NOW = Date.parse('2024-05-10T12:00:00.000Z');
const HOUR = 3_600_000;
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_acme' };
const DAY_WINDOW = { windowHours: 24 };
/** The subscription's own deadline (1 h), so the look-back is the window plus 1 h. */
const POLICY = { initialDelaySeconds: 1, multiplier: 2, maxDelaySeconds: 60, jitter: 0, deadlineSeconds: 3600 };

/** Counts the writes a read must never make. */
class WriteCountingDeliveryStore extends InMemoryDeliveryStore {
  writes = 0;
  override async write(...args: Parameters<InMemoryDeliveryStore['write']>) {
    this.writes++;
    return super.write(...args);
  }
  override async replay(...args: Parameters<InMemoryDeliveryStore['replay']>) {
    this.writes++;
    return super.replay(...args);
  }
}

function setup() {
  const deliveries = new WriteCountingDeliveryStore();
  const deps = fakeDeps({ deliveries });
  deps.clock.nowMs = NOW;
  deps.subscriptions.items.set(
    'sub_1',
    aSubscription({
      id: 'sub_1',
      tenantId: 'acme',
      retryPolicy: POLICY,
      deadLetteringSince: ago(2 * HOUR),
      deadLetterStreak: 1,
    }),
  );
  return { deps, deliveries };
}

/** A delivery created and last written `agoMs` ago, after one attempt. */
const attemptedOnce = (id: string, state: Delivery['state'], agoMs: number) =>
  aDelivery({ id, attemptSeq: 1, state, createdAt: ago(agoMs), updatedAt: ago(agoMs) });

describe('getSubscriptionStats', () => {
  it('counts what finished in the window, reads back the retry deadline before it, and writes nothing', async () => {
    const { deps, deliveries } = setup();
    const seed = [
      // Created before the window but within its deadline of it: expired inside the window, so it counts.
      aDelivery({ id: 'dlv_old_exp', state: STATE.expired, createdAt: ago(24.5 * HOUR), updatedAt: ago(23.9 * HOUR) }),
      // Beyond the look-back (window + 1 h deadline): not read at all.
      aDelivery({ id: 'dlv_ancient', state: STATE.delivered, createdAt: ago(26 * HOUR), updatedAt: ago(1 * HOUR) }),
      // Attempted once each, the attempt in the attempts table.
      attemptedOnce('dlv_ok', STATE.delivered, 3 * HOUR),
      attemptedOnce('dlv_fail', STATE.failed, 2 * HOUR),
      attemptedOnce('dlv_wait', STATE.pending, HOUR),
    ];
    for (const d of seed) deliveries.put({ ...d, subscriptionId: 'sub_1' });
    await deps.attempts.put(
      {
        deliveryId: 'dlv_ok',
        seq: 1,
        attempt: 1,
        startedAt: ago(3 * HOUR),
        durationMs: 20,
        status: 200,
      },
      SEEDED_TTL,
    );
    await deps.attempts.put(
      {
        deliveryId: 'dlv_fail',
        seq: 1,
        attempt: 1,
        startedAt: ago(2 * HOUR),
        durationMs: 40,
        status: 400,
      },
      SEEDED_TTL,
    );
    await deps.attempts.put(
      {
        deliveryId: 'dlv_wait',
        seq: 1,
        attempt: 1,
        startedAt: ago(HOUR),
        durationMs: 60,
        error: 'connection refused',
      },
      SEEDED_TTL,
    );

    const stats = await getSubscriptionStats(deps, ACME, 'sub_1', DAY_WINDOW);
    const view = subscriptionStatsView(stats);

    assert.deepEqual(view.window, { hours: 24, from: ago(24 * HOUR), to: ago(0) });
    assert.deepEqual(view.finished, { delivered: 1, failed: 1, expired: 1, total: 3 });
    assert.deepEqual(view.open, { pending: 1, inFlight: 0 });
    assert.equal(view.successRate, 0.3333);
    assert.deepEqual(view.latencyMs, { attempts: 3, average: 40, p95: 60 });
    assert.deepEqual(view.lastFailure, {
      at: ago(HOUR),
      deliveryId: 'dlv_wait',
      status: null,
      error: 'connection refused',
    });
    assert.equal(view.failingSince, ago(2 * HOUR));
    assert.equal(view.deadLetteringSince, ago(2 * HOUR));
    assert.deepEqual([view.sampled, view.examined, view.attemptsExamined], [false, 4, 3]);
    // The same reads by the hour: the newest bucket is [now - 1 h, now], so the attempt 1 h ago opens it.
    assert.equal(view.series.bucketMinutes, 60);
    assert.equal(view.series.buckets.length, 24);
    assert.deepEqual(view.series.buckets[0], {
      from: ago(24 * HOUR),
      to: ago(23 * HOUR),
      attempts: 0,
      succeeded: 0,
      failed: 0,
      successRate: null,
      latencyMs: { p50: null, p95: null },
      deadLettered: 1,
      sampled: false,
    });
    const busy = view.series.buckets.flatMap((b, i) =>
      b.attempts ? [[i, b.succeeded, b.failed, b.deadLettered]] : [],
    );
    assert.deepEqual(busy, [
      [21, 1, 0, 0],
      [22, 0, 1, 1],
      [23, 0, 1, 0],
    ]);
    assert.equal(deliveries.writes, 0);
  });

  it(`reads at most ${HEALTH_SAMPLE.deliveries} deliveries and says sampled when the bound left some out`, async () => {
    const { deps, deliveries } = setup();
    for (let i = 0; i < HEALTH_SAMPLE.deliveries + 5; i++) {
      const t = ago(i * 1000);
      deliveries.put(
        aDelivery({
          id: `dlv_${String(i).padStart(5, '0')}`,
          subscriptionId: 'sub_1',
          state: STATE.delivered,
          createdAt: t,
          updatedAt: t,
        }),
      );
    }
    const stats = await getSubscriptionStats(deps, ADMIN, 'sub_1', DAY_WINDOW);
    assert.deepEqual(
      [stats.sampled, stats.examined, stats.figures.finished.delivered],
      [true, HEALTH_SAMPLE.deliveries, HEALTH_SAMPLE.deliveries],
    );
  });

  it("spreads the chart of a busy endpoint over the whole window: each bucket older than the bound's reach gets its own sample", async () => {
    const { deps, deliveries } = setup();
    const put = (id: string, at: string, state: typeof STATE.delivered | typeof STATE.failed) =>
      deliveries.put(aDelivery({ id, subscriptionId: 'sub_1', state, createdAt: at, updatedAt: at }));
    // The newest read's worth in the last 1,005 s, and 60 dead letters an hour from 2 h to 23 h ago.
    for (let i = 0; i < HEALTH_SAMPLE.deliveries + 5; i++)
      put(`dlv_n${String(i).padStart(5, '0')}`, ago(i * 1000), STATE.delivered);
    for (let hour = 2; hour <= 22; hour++)
      for (let m = 0; m < 60; m++) put(`dlv_h${hour}_${m}`, ago(hour * HOUR + m * 60_000 + 1000), STATE.failed);

    const stats = await getSubscriptionStats(deps, ADMIN, 'sub_1', DAY_WINDOW);
    const perBucket = Math.ceil(HEALTH_SAMPLE.deliveries / 24);
    const buckets = stats.series.buckets;
    // Bucket i spans [now - (24 - i) h, now - (23 - i) h): the hour k h ago is bucket 23 - k.
    assert.deepEqual(
      buckets.map((b) => b.sampled),
      buckets.map((_, i) => i >= 1 && i <= 21),
      'the sampled hours, each with more than its share',
    );
    assert.ok(
      buckets.slice(1, 22).every((b) => b.deadLettered === perBucket),
      'each older hour drawn from its own sample',
    );
    assert.equal(buckets[22]!.deadLettered, 0, 'an hour with nothing created in it stays empty');
    assert.equal(stats.figures.finished.delivered, HEALTH_SAMPLE.deliveries, "the window's figures: the newest read's");
    assert.equal(stats.figures.finished.failed, 0, 'the samples count in the chart only');
    assert.equal(stats.sampled, true);
  });

  it('is not sampled when the deliveries past the bound are all older than the look-back', async () => {
    const { deps, deliveries } = setup();
    for (let i = 0; i < HEALTH_SAMPLE.deliveries; i++) {
      const t = ago(i * 1000);
      deliveries.put(
        aDelivery({
          id: `dlv_${String(i).padStart(5, '0')}`,
          subscriptionId: 'sub_1',
          state: STATE.delivered,
          createdAt: t,
          updatedAt: t,
        }),
      );
    }
    deliveries.put(
      aDelivery({
        id: 'dlv_ancient',
        subscriptionId: 'sub_1',
        state: STATE.delivered,
        createdAt: ago(100 * HOUR),
        updatedAt: ago(100 * HOUR),
      }),
    );
    const stats = await getSubscriptionStats(deps, ADMIN, 'sub_1', DAY_WINDOW);
    assert.deepEqual([stats.sampled, stats.examined], [false, HEALTH_SAMPLE.deliveries]);
  });

  it(`reads a delivery's latest ${HEALTH_SAMPLE.attemptsPerDelivery} attempts and says sampled when older ones were in the window`, async () => {
    const { deps, deliveries } = setup();
    deliveries.put(
      aDelivery({
        id: 'dlv_busy',
        subscriptionId: 'sub_1',
        state: STATE.pending,
        attemptSeq: HEALTH_SAMPLE.attemptsPerDelivery + 10,
        createdAt: ago(HOUR),
        updatedAt: ago(0),
      }),
    );
    for (let seq = 1; seq <= HEALTH_SAMPLE.attemptsPerDelivery + 10; seq++) {
      await deps.attempts.put(
        {
          deliveryId: 'dlv_busy',
          seq,
          attempt: seq,
          startedAt: ago(HOUR - seq * 1000),
          durationMs: 5,
          status: 503,
        },
        SEEDED_TTL,
      );
    }
    const stats = await getSubscriptionStats(deps, ADMIN, 'sub_1', DAY_WINDOW);
    assert.deepEqual([stats.sampled, stats.attemptsExamined], [true, HEALTH_SAMPLE.attemptsPerDelivery]);
  });

  it('shows the slow-lane mark while it lasts, and null once it has run out', async () => {
    const { deps } = setup();
    const later = new Date(NOW + 10 * 60_000).toISOString();
    deps.subscriptions.items.set('sub_1', { ...deps.subscriptions.items.get('sub_1')!, slowUntil: later });
    const marked = subscriptionStatsView(await getSubscriptionStats(deps, ADMIN, 'sub_1', DAY_WINDOW));
    assert.equal(marked.slowLaneUntil, later);

    deps.clock.nowMs = NOW + 10 * 60_000;
    const ended = subscriptionStatsView(await getSubscriptionStats(deps, ADMIN, 'sub_1', DAY_WINDOW));
    assert.equal(ended.slowLaneUntil, null);
  });

  it("answers another tenant's subscription as NotFoundError, like an unknown id", async () => {
    const { deps } = setup();
    const globex: Principal = { role: 'tenant', tenantId: 'globex', keyId: 'key_globex' };
    await assert.rejects(getSubscriptionStats(deps, globex, 'sub_1', DAY_WINDOW), NotFoundError);
    await assert.rejects(getSubscriptionStats(deps, ADMIN, 'sub_nope', DAY_WINDOW), NotFoundError);
  });
});

describe('parseSubscriptionStatsQuery', () => {
  it('defaults to 24 h and takes 1 to 168', () => {
    assert.deepEqual(parseSubscriptionStatsQuery({}), { windowHours: 24 });
    assert.deepEqual(parseSubscriptionStatsQuery({ windowHours: '1' }), { windowHours: 1 });
    assert.deepEqual(parseSubscriptionStatsQuery({ windowHours: '168' }), { windowHours: 168 });
  });

  for (const bad of ['0', '169', '1.5', '-1', '', 'abc', '24h', '1e2', '0024']) {
    it(`refuses windowHours=${JSON.stringify(bad)}, naming the field`, () => {
      assert.throws(
        () => parseSubscriptionStatsQuery({ windowHours: bad }),
        (e: unknown) => e instanceof ValidationError && e.field === 'windowHours' && /1 to 168/.test(e.message),
      );
    });
  }
});
