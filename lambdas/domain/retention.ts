import { mergeNumericPolicy } from './policy.ts';
import type { DeliveryState } from './states.ts';

/** How long terminal deliveries stay queryable before the archiver moves them to S3 (DESIGN.md "Retention"). */
export interface RetentionPolicy {
  readonly deliveredDays: number;
  readonly deadLetterDays: number;
  /** DynamoDB TTL deletes this long after the archiver should have run: a net, not the mechanism. */
  readonly ttlSafetyMarginDays: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = Object.freeze({ deliveredDays: 30, deadLetterDays: 90, ttlSafetyMarginDays: 30 });

const DAY_MS = 86_400_000;

/** Epoch seconds for DynamoDB TTL, or undefined for live deliveries (never auto-deleted). */
export function ttlFor(state: DeliveryState, updatedAtMs: number, policy: RetentionPolicy = DEFAULT_RETENTION): number | undefined {
  if (state === 'pending' || state === 'in_flight') return undefined;
  const days = (state === 'delivered' ? policy.deliveredDays : policy.deadLetterDays) + policy.ttlSafetyMarginDays;
  return Math.floor((updatedAtMs + days * DAY_MS) / 1000);
}

/**
 * Merges a partial retention override (HOOKLINE_RETENTION_POLICY) over the default. Days may
 * be fractional and 0 (archive as soon as terminal), which is how tests shorten a month to seconds.
 */
export function resolveRetentionPolicy(override: unknown, base: RetentionPolicy = DEFAULT_RETENTION): RetentionPolicy {
  return mergeNumericPolicy('retention', override, base, {
    deliveredDays: { min: 0, max: 3650, integer: false },
    deadLetterDays: { min: 0, max: 3650, integer: false },
    ttlSafetyMarginDays: { min: 1, max: 3650, integer: true },
  });
}
