import type { Deps } from '#app/deps.ts';
import type { SendOutcome } from '#app/send/outcome.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { inSlowLane, slowAttemptMs, slowMarkToWrite } from '#domain/slow-lane.ts';
import type { Subscription } from '#domain/types.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';

/** What the lane rules use: the (cached) subscription, the slow lane's queue, the clock. */
export type SlowLaneDeps = Pick<Deps, 'subscriptions' | 'slowLane' | 'clock'>;

/**
 * In the main lane, before anything else is read: a delivery of a subscription marked slow goes
 * on to the slow lane as it came (its message carries all it needs, so nothing is written), and
 * is done here. Undefined for any other, which is attempted. The subscription read is the one
 * its attempt makes anyway, from the container's cache, so a fast endpoint pays nothing for this.
 */
export async function divertToSlowLane(
  deps: SlowLaneDeps,
  message: ReceivedDeliveryMessage,
): Promise<SendOutcome | undefined> {
  const subscription = await deps.subscriptions.getCached(message.subscriptionId);
  if (!subscription || !inSlowLane(subscription, deps.clock.now())) return undefined;
  await deps.slowLane.enqueue([message]);
  return { kind: 'done', note: `sent on to the slow lane: its endpoint was slow (until ${subscription.slowUntil})` };
}

/**
 * The POST, watched: if it is still unanswered after `slowAttemptMs`, its subscription is marked
 * slow then (domain/slow-lane.ts), so the next deliveries take the slow lane while this one still
 * waits. Best effort: the answer is returned whatever becomes of the mark's write, and a mark that
 * failed is made by the next slow attempt.
 */
export async function postWatchingForSlowness(
  deps: Pick<Deps, 'subscriptions' | 'clock' | 'attemptTimeoutMs' | 'slowAfterMs'>,
  subscription: Subscription,
  post: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const slowAfter = slowAttemptMs(deps.slowAfterMs, deps.attemptTimeoutMs);
  if (slowAfter === undefined) return post();
  let mark: Promise<void> | undefined;
  const timer = setTimeout(() => {
    const until = slowMarkToWrite(subscription, deps.clock.now());
    if (until) mark = deps.subscriptions.markSlow(subscription.id, until).catch(() => undefined);
  }, slowAfter);
  try {
    return await post();
  } finally {
    clearTimeout(timer);
    // Never left running past the invocation that started it.
    await mark;
  }
}
