import { isDeadLetter } from './states.ts';
import { attemptSucceeded, percentile, type HealthInput } from './subscription-health.ts';

/**
 * A subscription's health over time: the same deliveries and attempts the window's figures read
 * (subscription-health.ts), split into equal buckets. Computed at read time like the figures,
 * so sending writes nothing for it.
 */

/**
 * The bucket sizes a window may be split into, in minutes, smallest first. The series takes the
 * largest that fits whole in the window at least `minBuckets` times; no size is more than twice the one before it,
 * so that is never more than twice `minBuckets` (24 h: 24 one-hour buckets; 7 d: 28 of six hours;
 * 1 h: 30 of two minutes). Every size up to an hour divides an hour, so a window of whole hours
 * is a whole number of them.
 */
export const HEALTH_SERIES = Object.freeze({
  minBuckets: 24,
  bucketMinutes: Object.freeze([1, 2, 3, 5, 10, 15, 30, 60, 120, 180, 360, 720]),
});

const MINUTE_MS = 60_000;

/** One bucket: what started (attempts) and what ended (dead letters) in `[fromMs, toMs)`. */
export interface HealthBucket {
  readonly fromMs: number;
  /** Exclusive, except for the newest bucket, which ends with the window and includes its end. */
  readonly toMs: number;
  /** Attempts started in the bucket, and how many of them got a 2xx (the sender's own rule). */
  readonly attempts: number;
  readonly succeeded: number;
  readonly failed: number;
  /** succeeded ÷ attempts, 4 decimals; undefined with no attempt (a bucket of nothing is not 0 %). */
  readonly successRate?: number;
  /** Nearest-rank percentiles of those attempts' durations; undefined with no attempt. */
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  /** Deliveries that became dead letters (failed or expired) in the bucket, by their `updatedAt`. */
  readonly deadLettered: number;
  /** Its figures come from a sample of the deliveries created in it, not all of them. */
  readonly sampled: boolean;
}

export interface HealthSeries {
  readonly bucketMinutes: number;
  /** Oldest first, covering the window end to end. */
  readonly buckets: readonly HealthBucket[];
}

/** The bucket size for a window of `windowMs`: the largest of HEALTH_SERIES.bucketMinutes that fits whole at least `minBuckets` times. */
export function bucketMinutesFor(windowMs: number): number {
  const sizes = HEALTH_SERIES.bucketMinutes;
  let chosen = sizes[0]!;
  for (const minutes of sizes)
    if (Math.floor(windowMs / (minutes * MINUTE_MS)) >= HEALTH_SERIES.minBuckets) chosen = minutes;
  return chosen;
}

/** One bucket's span: `[fromMs, toMs)`, the newest one's end included. */
export interface BucketSpan {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * The window `[fromMs, toMs]` in buckets counted back from its end, so the newest bucket is
 * always a whole one; when the window is not a whole number of buckets the oldest one starts at
 * `fromMs`, shorter than the rest. Oldest first.
 */
export function seriesSpans(fromMs: number, toMs: number): { bucketMinutes: number; spans: BucketSpan[] } {
  const bucketMinutes = bucketMinutesFor(toMs - fromMs);
  const size = bucketMinutes * MINUTE_MS;
  const count = Math.max(1, Math.ceil((toMs - fromMs) / size));
  const originMs = toMs - count * size;
  const spans = Array.from({ length: count }, (_, i) => ({
    fromMs: Math.max(fromMs, originMs + i * size),
    toMs: originMs + (i + 1) * size,
  }));
  return { bucketMinutes, spans };
}

/**
 * The window's buckets (seriesSpans): an attempt is in the bucket it started in, a dead letter in
 * the one it ended in. `sampled` names the buckets whose deliveries were read as a sample. Pure:
 * every edge is table-tested (test/unit/domain/health-series.test.ts).
 */
export function healthSeries(input: HealthInput, sampled: ReadonlySet<number> = new Set()): HealthSeries {
  const { fromMs, toMs } = input;
  const { bucketMinutes, spans } = seriesSpans(fromMs, toMs);
  const size = bucketMinutes * MINUTE_MS;
  const count = spans.length;
  const originMs = toMs - count * size;
  /** The bucket an instant falls in, or -1 outside the window. */
  const indexOf = (instant: string) => {
    const ms = Date.parse(instant);
    if (!(ms >= fromMs && ms <= toMs)) return -1;
    return Math.min(count - 1, Math.floor((ms - originMs) / size));
  };

  const durations: number[][] = Array.from({ length: count }, () => []);
  const succeeded = new Array<number>(count).fill(0);
  const deadLettered = new Array<number>(count).fill(0);
  for (const a of input.attempts) {
    const i = indexOf(a.startedAt);
    if (i < 0) continue;
    durations[i]!.push(a.durationMs);
    if (attemptSucceeded(a)) succeeded[i]!++;
  }
  for (const d of input.deliveries) {
    if (!isDeadLetter(d.state)) continue;
    const i = indexOf(d.updatedAt);
    if (i >= 0) deadLettered[i]!++;
  }

  const buckets = durations.map((taken, i): HealthBucket => {
    const sorted = taken.sort((a, b) => a - b);
    const attempts = sorted.length;
    const ok = succeeded[i]!;
    return {
      ...spans[i]!,
      attempts,
      succeeded: ok,
      failed: attempts - ok,
      ...(attempts > 0
        ? {
            successRate: Math.round((ok / attempts) * 10_000) / 10_000,
            p50Ms: percentile(sorted, 50)!,
            p95Ms: percentile(sorted, 95)!,
          }
        : {}),
      deadLettered: deadLettered[i]!,
      sampled: sampled.has(i),
    };
  });
  return { bucketMinutes, buckets };
}
