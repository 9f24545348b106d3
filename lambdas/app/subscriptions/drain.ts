import { STATE } from '#domain/states.ts';
import { expectationOf } from '#domain/types.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import { iso } from '#domain/time.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';
import { forEachLimit } from '#app/concurrency.ts';
import type { Deps } from '#app/deps.ts';

/** Pending deliveries read, rescheduled and enqueued at a time: a resume never holds more of the backlog. */
export const DRAIN_PAGE_SIZE = 100;
/** How fast a resumed backlog becomes due: about 50 deliveries a second... */
export const DRAIN_PER_SECOND = 50;
/** ...within at most 5 minutes. */
export const DRAIN_WINDOW_SECONDS = 300;
/** Reschedules in flight at once within a page. */
const DRAIN_CONCURRENCY = 16;

/**
 * Seconds until the `position`-th drained delivery is due: 50 a second in drain order, so a
 * backlog of n takes n/50 s. The drain cannot know n up front (it reads a page at a time), so a
 * backlog longer than the 5-minute window wraps around it: seconds fill up again from the
 * start, and any backlog ends up spread evenly over the window.
 */
export function drainDelaySeconds(position: number): number {
  return Math.floor(position / DRAIN_PER_SECOND) % DRAIN_WINDOW_SECONDS;
}

/**
 * Makes a resumed subscription's pending deliveries due, spread over the drain window, one page
 * at a time: each page is rescheduled (a conditional write: a delivery that moved meanwhile is
 * left alone) and its messages enqueued before the next page is read. Returns how many were drained.
 * `spread: false` makes them all due now: a deleted subscription's deliveries are dead-lettered
 * by the sender, not POSTed, so there is no endpoint to spare.
 */
export async function drainBacklog(
  deps: Pick<Deps, 'deliveries' | 'queue' | 'clock'>,
  subscriptionId: string,
  options: { readonly spread?: boolean } = {},
): Promise<number> {
  const spread = options.spread ?? true;
  const nowMs = deps.clock.now();
  let position = 0;
  let drained = 0;
  let cursor: string | undefined;
  do {
    const page = await deps.deliveries.listBySubscription({
      subscriptionId,
      state: STATE.pending,
      limit: DRAIN_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    const first = position;
    position += page.items.length;
    const messages: DeliveryMessage[] = [];
    await forEachLimit(page.items, DRAIN_CONCURRENCY, async (d, index) => {
      const delaySeconds = spread ? drainDelaySeconds(first + index) : 0;
      if (
        await deps.deliveries.write(
          'reschedule',
          { ...d, nextAttemptAt: iso(nowMs + delaySeconds * 1000), updatedAt: iso(nowMs) },
          expectationOf(d),
        )
      )
        messages.push(dueMessage(d, delaySeconds));
    });
    await deps.queue.enqueue(messages);
    drained += messages.length;
    cursor = page.nextCursor;
  } while (cursor);
  return drained;
}
