import type { RateDecision, RateLimit } from '#domain/rate-limit.ts';

export interface RateLimiter {
  /** Counts one action against `key` in the current window; `limited` (and nothing counted) once the window is full. */
  take(key: string, limit: RateLimit, nowMs: number): Promise<RateDecision>;
}
