import { numericPolicy } from './policy.ts';

/** Customer-facing single replay (a tenant key): 100 a minute per subscription. */
const CUSTOMER_REPLAY_LIMIT = numericPolicy('customerReplayLimit', {
  /** Most actions in one window. */
  limit: { default: 100, min: 1, max: 1_000_000, integer: true },
  /** Length of a window. */
  windowSeconds: { default: 60, min: 1, max: 86_400, integer: true },
});

/** At most `limit` actions per `windowSeconds`, counted in fixed windows aligned to the epoch. */
export type RateLimit = typeof DEFAULT_CUSTOMER_REPLAY_LIMIT;
export const DEFAULT_CUSTOMER_REPLAY_LIMIT = CUSTOMER_REPLAY_LIMIT.defaults;
export const resolveRateLimit = CUSTOMER_REPLAY_LIMIT.resolve;

/**
 * Pause and resume by a tenant key, counted together: 10 an hour per subscription. A resume
 * of a paused subscription makes its whole backlog due at once (spread over the drain window),
 * ahead of each delivery's backoff, so a pause/resume loop would otherwise be a way around
 * the backoff; 10 an hour is five maintenance windows, far more than a tenant needs.
 */
const CUSTOMER_PAUSE_LIMIT = numericPolicy('customerPauseLimit', {
  /** Most pauses and resumes in one window. */
  limit: { default: 10, min: 1, max: 1_000_000, integer: true },
  /** Length of a window. */
  windowSeconds: { default: 3600, min: 1, max: 86_400, integer: true },
});

export const DEFAULT_CUSTOMER_PAUSE_LIMIT: RateLimit = CUSTOMER_PAUSE_LIMIT.defaults;
export const resolvePauseLimit: (override: unknown) => RateLimit = CUSTOMER_PAUSE_LIMIT.resolve;

export interface FixedWindow {
  /** Identifies the window in a counter key: its start in epoch seconds. */
  readonly startSeconds: number;
  /** When the next window begins (epoch ms). */
  readonly resetAtMs: number;
}

/**
 * The fixed window `nowMs` falls in. A fixed window (one counter item per window) costs one
 * conditional write per request; its known weakness, up to twice the limit across a window
 * boundary, is acceptable for a resend button.
 */
export function fixedWindow(nowMs: number, windowSeconds: number): FixedWindow {
  const size = windowSeconds * 1000;
  const start = Math.floor(nowMs / size) * size;
  return { startSeconds: start / 1000, resetAtMs: start + size };
}

/** Whole seconds until the window resets, at least 1: the `Retry-After` value. */
export function retryAfterSeconds(nowMs: number, resetAtMs: number): number {
  return Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
}

export type RateDecision =
  | { readonly kind: 'allowed'; readonly remaining: number }
  | { readonly kind: 'limited'; readonly retryAfterSeconds: number };
