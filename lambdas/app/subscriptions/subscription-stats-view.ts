import { HEALTH_SAMPLE } from '#domain/subscription-health.ts';
import { iso } from '#domain/time.ts';
import { inSlowLane } from '#domain/slow-lane.ts';
import type { SubscriptionStats } from '#app/subscriptions/subscription-stats.ts';

/** `GET /v1/subscriptions/{id}/stats` as JSON (docs/api.md, "Subscription stats"). Absent values are null. */
export function subscriptionStatsView(stats: SubscriptionStats) {
  const { subscription: s, figures: f } = stats;
  return {
    subscriptionId: s.id,
    window: { hours: stats.windowHours, from: iso(stats.fromMs), to: iso(stats.toMs) },
    state: s.state,
    stateReason: s.stateReason ?? null,
    stateChangedAt: s.stateChangedAt,
    finished: f.finished,
    open: f.open,
    successRate: f.successRate ?? null,
    latencyMs: { attempts: f.latency.attempts, average: f.latency.averageMs ?? null, p95: f.latency.p95Ms ?? null },
    lastFailure: f.lastFailure
      ? {
          at: f.lastFailure.at,
          deliveryId: f.lastFailure.deliveryId,
          status: f.lastFailure.status ?? null,
          error: f.lastFailure.error ?? null,
        }
      : null,
    failingSince: f.failingSince ?? null,
    deadLetteringSince: s.deadLetteringSince ?? null,
    deadLetterStreak: s.deadLetterStreak ?? 0,
    // Its deliveries go through the slow lane until then (domain/slow-lane.ts): why their latency may be higher.
    slowLaneUntil: inSlowLane(s, stats.toMs) ? s.slowUntil! : null,
    series: {
      bucketMinutes: stats.series.bucketMinutes,
      buckets: stats.series.buckets.map((b) => ({
        from: iso(b.fromMs),
        to: iso(b.toMs),
        attempts: b.attempts,
        succeeded: b.succeeded,
        failed: b.failed,
        successRate: b.successRate ?? null,
        latencyMs: { p50: b.p50Ms ?? null, p95: b.p95Ms ?? null },
        deadLettered: b.deadLettered,
        sampled: b.sampled,
      })),
    },
    sampled: stats.sampled,
    examined: stats.examined,
    attemptsExamined: stats.attemptsExamined,
    // The bounds, so a caller reading `sampled` knows what it was measured against.
    limits: { deliveries: HEALTH_SAMPLE.deliveries, attemptsPerDelivery: HEALTH_SAMPLE.attemptsPerDelivery },
  };
}
