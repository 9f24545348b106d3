import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bucketMinutesFor, HEALTH_SERIES, healthSeries, type HealthBucket } from '#domain/health-series.ts';
import { STATE, type DeliveryState } from '#domain/states.ts';
import { HEALTH_WINDOW_HOURS, type AttemptFacts, type DeliveryFacts } from '#domain/subscription-health.ts';

const HOUR = 3_600_000;
const TO = Date.parse('2025-03-02T12:00:00.000Z');
const day = { fromMs: TO - 24 * HOUR, toMs: TO };
/** An instant `ms` after the 24 h window's start. */
const at = (ms: number) => new Date(day.fromMs + ms).toISOString();

const attempt = (startedMs: number, durationMs: number, status?: number): AttemptFacts => ({
  deliveryId: 'dlv_1',
  startedAt: at(startedMs),
  durationMs,
  ...(status !== undefined ? { status } : { error: 'connection refused' }),
});
const delivery = (state: DeliveryState, updatedMs: number): DeliveryFacts => ({ state, updatedAt: at(updatedMs) });

const EMPTY = { attempts: 0, succeeded: 0, failed: 0, deadLettered: 0, sampled: false };

describe('the bucket size', () => {
  const CASES: readonly { hours: number; minutes: number; buckets: number }[] = [
    { hours: 24, minutes: 60, buckets: 24 },
    { hours: 168, minutes: 360, buckets: 28 },
    { hours: 1, minutes: 2, buckets: 30 },
    { hours: 6, minutes: 15, buckets: 24 },
    { hours: 48, minutes: 120, buckets: 24 },
    { hours: 47, minutes: 60, buckets: 47 },
    { hours: 100, minutes: 180, buckets: 34 },
  ];
  for (const c of CASES)
    it(`${c.hours} h: ${c.buckets} buckets of ${c.minutes} min`, () => {
      assert.equal(bucketMinutesFor(c.hours * HOUR), c.minutes);
      const series = healthSeries({ fromMs: TO - c.hours * HOUR, toMs: TO, deliveries: [], attempts: [] });
      assert.equal(series.bucketMinutes, c.minutes);
      assert.equal(series.buckets.length, c.buckets);
    });

  it('gives 24 to 48 buckets for every window the API accepts', () => {
    for (let hours = HEALTH_WINDOW_HOURS.min; hours <= HEALTH_WINDOW_HOURS.max; hours++) {
      const { buckets } = healthSeries({ fromMs: TO - hours * HOUR, toMs: TO, deliveries: [], attempts: [] });
      assert.ok(buckets.length >= 24 && buckets.length <= 48, `${hours} h: ${buckets.length} buckets`);
    }
  });

  it('steps at most ×2 from one size to the next, which is what keeps the count under twice the minimum', () => {
    const sizes = HEALTH_SERIES.bucketMinutes;
    for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i]! <= 2 * sizes[i - 1]!, `${sizes[i - 1]} → ${sizes[i]}`);
  });
});

describe('healthSeries', () => {
  it('covers the window end to end in equal buckets, oldest first, the last ending with the window', () => {
    const { buckets } = healthSeries({ ...day, deliveries: [], attempts: [] });
    assert.equal(buckets[0]!.fromMs, day.fromMs);
    assert.equal(buckets.at(-1)!.toMs, day.toMs);
    for (const [i, b] of buckets.entries()) {
      assert.equal(b.toMs - b.fromMs, HOUR, `bucket ${i} is an hour`);
      if (i > 0) assert.equal(b.fromMs, buckets[i - 1]!.toMs, `bucket ${i} starts where ${i - 1} ends`);
    }
  });

  it('counts a window that is not a whole number of buckets back from its end: only the oldest is short', () => {
    // 100 h in 3 h buckets: 33 whole ones and 1 h left over at the start.
    const fromMs = TO - 100 * HOUR;
    const { buckets } = healthSeries({ fromMs, toMs: TO, deliveries: [], attempts: [] });
    assert.deepEqual([buckets[0]!.fromMs, buckets[0]!.toMs], [fromMs, fromMs + HOUR]);
    assert.ok(buckets.slice(1).every((b) => b.toMs - b.fromMs === 3 * HOUR));
  });

  it('has null rates and latency for a bucket with no attempt: never 0 % of nothing', () => {
    const { buckets } = healthSeries({ ...day, deliveries: [], attempts: [attempt(30 * 60_000, 40, 200)] });
    assert.deepEqual(buckets[1], { fromMs: day.fromMs + HOUR, toMs: day.fromMs + 2 * HOUR, ...EMPTY });
    assert.equal(buckets[1]!.successRate, undefined);
    assert.equal(buckets[1]!.p50Ms, undefined);
    assert.equal(buckets[0]!.successRate, 1);
  });

  it('puts an attempt on a boundary in the bucket it opens, and the window’s last instant in the newest bucket', () => {
    const { buckets } = healthSeries({
      ...day,
      deliveries: [],
      attempts: [
        attempt(0, 10, 200), // the window's first instant
        attempt(HOUR - 1, 11, 200), // the last ms of bucket 0
        attempt(HOUR, 12, 500), // the first of bucket 1
        attempt(24 * HOUR, 13, 200), // the window's end
        attempt(-1, 99, 200), // before the window: not counted
        attempt(24 * HOUR + 1, 99, 200), // after it
      ],
    });
    const counts = (b: HealthBucket) => [b.attempts, b.succeeded, b.failed];
    assert.deepEqual(counts(buckets[0]!), [2, 2, 0]);
    assert.deepEqual(counts(buckets[1]!), [1, 0, 1]);
    assert.deepEqual(counts(buckets[23]!), [1, 1, 0]);
    assert.equal(
      buckets.reduce((n, b) => n + b.attempts, 0),
      4,
    );
  });

  it('rates the attempts by the sender’s rule and takes p50 and p95 by nearest rank', () => {
    // 20 attempts in bucket 3: durations 10..200 ms; 5 of them failed (a 503, a 400, three refused connections).
    const attempts = Array.from({ length: 20 }, (_, i) =>
      attempt(3 * HOUR + i * 1000, (20 - i) * 10, i === 0 ? 503 : i === 1 ? 400 : i < 5 ? undefined : 204),
    );
    const b = healthSeries({ ...day, deliveries: [], attempts }).buckets[3]!;
    assert.deepEqual(
      [b.attempts, b.succeeded, b.failed, b.successRate, b.p50Ms, b.p95Ms],
      [20, 15, 5, 0.75, 100, 190],
      'p50 is the 10th of 20 (100 ms), p95 the 19th (190 ms)',
    );
    const one = healthSeries({ ...day, deliveries: [], attempts: [attempt(5 * HOUR, 321, 200)] }).buckets[5]!;
    assert.deepEqual([one.p50Ms, one.p95Ms], [321, 321]);
    const third = healthSeries({
      ...day,
      deliveries: [],
      attempts: [attempt(0, 1, 200), attempt(1, 1, 500), attempt(2, 1, 500)],
    }).buckets[0]!;
    assert.equal(third.successRate, 0.3333, 'rounded to 4 decimals');
  });

  it('counts a dead letter in the bucket it ended in, and only dead letters', () => {
    const { buckets } = healthSeries({
      ...day,
      deliveries: [
        delivery(STATE.failed, 2 * HOUR + 5),
        delivery(STATE.expired, 2 * HOUR + 10),
        delivery(STATE.expired, 23 * HOUR),
        delivery(STATE.delivered, 2 * HOUR),
        delivery(STATE.pending, 2 * HOUR),
        delivery(STATE.inFlight, 2 * HOUR),
        delivery(STATE.failed, -HOUR), // dead-lettered before the window
      ],
      attempts: [],
    });
    assert.deepEqual(
      buckets.map((b) => b.deadLettered),
      Array.from({ length: 24 }, (_, i) => (i === 2 ? 2 : i === 23 ? 1 : 0)),
    );
    assert.equal(buckets[2]!.successRate, undefined, 'dead letters alone are not attempts');
  });

  it('buckets a week in six hours: an attempt at the start of day 3 lands in bucket 8', () => {
    const week = { fromMs: TO - 168 * HOUR, toMs: TO };
    const startedAt = new Date(week.fromMs + 48 * HOUR).toISOString();
    const { buckets } = healthSeries({
      ...week,
      deliveries: [],
      attempts: [{ deliveryId: 'dlv_1', startedAt, durationMs: 5, status: 200 }],
    });
    assert.equal(buckets.length, 28);
    assert.deepEqual(
      buckets.flatMap((b, i) => (b.attempts > 0 ? [i] : [])),
      [8],
    );
    assert.equal(buckets[8]!.fromMs, week.fromMs + 48 * HOUR);
  });
});
