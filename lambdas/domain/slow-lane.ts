import { iso } from './time.ts';
import type { Subscription } from './types.ts';

/*
 * The slow lane (docs/design.md, "Slow endpoints"). A sender batch holds its concurrency slot
 * until its slowest POST ends, so a few endpoints that hang keep most batches waiting on them and
 * starve every other subscription of the sender's concurrency. An attempt still waiting for its
 * answer after `slowAttemptMs` (HOOKLINE_SLOW_LANE_AFTER_MS) marks its subscription (one write, `slowUntil`), at that moment,
 * not when the timeout ends it; while marked, its deliveries are
 * sent on to a queue of their own with its own, smaller concurrency, where they wait only on each
 * other. The mark lapses by itself: a subscription that turns fast again is back in the main lane
 * after SLOW_LANE.holdSeconds, with no write to clear it.
 */
export const SLOW_LANE = {
  /**
   * The default of how long an attempt may go unanswered before it is slow
   * (HOOKLINE_SLOW_LANE_AFTER_MS): ten times what a webhook receiver that acknowledges and queues
   * takes, a third of the 15 s attempt timeout.
   */
  slowAfterMs: 5000,
  /** How long one slow attempt keeps its subscription in the slow lane. */
  holdSeconds: 600,
  /**
   * A mark with less than this left is renewed by the next slow attempt; one with more is left
   * alone, so a hanging endpoint costs one write per (holdSeconds − renewWithinSeconds) at most,
   * per container, not one per attempt.
   */
  renewWithinSeconds: 300,
} as const;

/**
 * How long an attempt may go unanswered before it counts as slow: the setting, or half a timeout
 * shorter than twice it; undefined when the setting is 0 (no subscription is ever marked).
 */
export function slowAttemptMs(slowAfterMs: number, attemptTimeoutMs: number): number | undefined {
  return slowAfterMs > 0 ? Math.min(slowAfterMs, attemptTimeoutMs / 2) : undefined;
}

/** Whether the subscription's deliveries go to the slow lane now. */
export function inSlowLane(subscription: Pick<Subscription, 'slowUntil'>, nowMs: number): boolean {
  return subscription.slowUntil !== undefined && Date.parse(subscription.slowUntil) > nowMs;
}

/**
 * The `slowUntil` to write after an attempt that showed the endpoint slow, or undefined when the
 * mark the subscription carries still has long enough to run.
 */
export function slowMarkToWrite(subscription: Pick<Subscription, 'slowUntil'>, nowMs: number): string | undefined {
  const until = subscription.slowUntil === undefined ? 0 : Date.parse(subscription.slowUntil);
  if (until - nowMs > SLOW_LANE.renewWithinSeconds * 1000) return undefined;
  return iso(nowMs + SLOW_LANE.holdSeconds * 1000);
}
