import type { Clock } from '#ports/clock.ts';

/**
 * The pauses before each new try of a write that must not be given up lightly: longer than the
 * SDK's own backoff (its three tries are spent within about a quarter of a second), so a
 * throttled DynamoDB partition or table has refilled by the last one.
 */
export const REFUSED_WRITE_PAUSES_MS = [500, 1000, 2000] as const;

/**
 * Runs `write`, and again after each pause while it throws; the last error if every try did, or
 * once the next pause would reach `deadlineMs` (a function's budget: better to hand the work
 * back than to time out in the middle of it). For writes that are safe to repeat (conditional,
 * or a put of the same bytes) and dear to lose: the outcome of a POST already made, whose loss
 * would have the endpoint sent it again; a bulk replay's page.
 */
export async function patiently<T>(
  clock: Pick<Clock, 'sleep' | 'now'>,
  write: () => Promise<T>,
  deadlineMs = Number.POSITIVE_INFINITY,
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await write();
    } catch (error) {
      const pause = REFUSED_WRITE_PAUSES_MS[tried];
      if (pause === undefined || clock.now() + pause >= deadlineMs) throw error;
      await clock.sleep(pause);
    }
  }
}
