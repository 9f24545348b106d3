import { InvalidRetryPolicyError } from './errors.ts';

/** Retry schedule as data (docs/design.md, "Retry policy"). Delays are whole seconds. */
export interface RetryPolicy {
  readonly initialDelaySeconds: number;
  readonly multiplier: number;
  readonly maxDelaySeconds: number;
  /** Fraction of each delay added or removed at random: 0.2 means ±20 %. */
  readonly jitter: number;
  /** Seconds after the delivery is created when retrying stops (`give_up_at`). */
  readonly deadlineSeconds: number;
  /** Attempts after which a still-failing delivery is dead-lettered, before the deadline. */
  readonly maxAttempts?: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  initialDelaySeconds: 10,
  multiplier: 2,
  maxDelaySeconds: 3600,
  jitter: 0.2,
  deadlineSeconds: 259_200,
});

/** Named schedules people ask for. `tenSecondsToThirtyMinutes` is the seeds' "10 s doubling to 30 min, 6 tries". */
export const RETRY_PRESETS = Object.freeze({
  default: DEFAULT_RETRY_POLICY,
  tenSecondsToThirtyMinutes: Object.freeze({
    initialDelaySeconds: 10,
    multiplier: 2,
    maxDelaySeconds: 1800,
    jitter: 0.2,
    deadlineSeconds: 259_200,
    maxAttempts: 6,
  }),
} satisfies Record<string, RetryPolicy>);

/** SQS cannot hold a message invisible longer than 12 h, nor keep it longer than 14 days. */
export const MAX_DELAY_SECONDS = 43_200;
export const MAX_DEADLINE_SECONDS = 14 * 24 * 3600 - 3600;

const LIMITS: Record<keyof RetryPolicy, { min: number; max: number; integer: boolean }> = {
  initialDelaySeconds: { min: 1, max: MAX_DELAY_SECONDS, integer: true },
  multiplier: { min: 1, max: 10, integer: false },
  maxDelaySeconds: { min: 1, max: MAX_DELAY_SECONDS, integer: true },
  jitter: { min: 0, max: 1, integer: false },
  deadlineSeconds: { min: 1, max: MAX_DEADLINE_SECONDS, integer: true },
  maxAttempts: { min: 1, max: 1000, integer: true },
};

/**
 * Merges a partial override onto `base` and checks every bound, so a stored policy is
 * always one the backoff can use. Unknown fields are refused rather than ignored.
 */
export function resolveRetryPolicy(override: unknown, base: RetryPolicy = DEFAULT_RETRY_POLICY): RetryPolicy {
  if (override === undefined || override === null) return base;
  if (typeof override !== 'object' || Array.isArray(override)) {
    throw new InvalidRetryPolicyError('', 'must be an object');
  }
  const merged: Record<string, number> = { ...(base as unknown as Record<string, number>) };
  for (const [key, value] of Object.entries(override)) {
    const limit = Object.hasOwn(LIMITS, key) ? LIMITS[key as keyof RetryPolicy] : undefined;
    if (!limit) throw new InvalidRetryPolicyError(key, 'is not a retry policy field');
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidRetryPolicyError(key, 'must be a number');
    }
    if (limit.integer && !Number.isInteger(value)) throw new InvalidRetryPolicyError(key, 'must be a whole number');
    if (value < limit.min || value > limit.max) {
      throw new InvalidRetryPolicyError(key, `must be between ${limit.min} and ${limit.max}`);
    }
    merged[key] = value;
  }
  if (merged.maxDelaySeconds! < merged.initialDelaySeconds!) {
    throw new InvalidRetryPolicyError('maxDelaySeconds', 'must be at least initialDelaySeconds');
  }
  return Object.freeze(merged) as unknown as RetryPolicy;
}
