import type { Subscription } from './types.ts';

/**
 * What each subscription state means for its deliveries, in one place: publish fans out to
 * active and paused subscriptions (a paused one's deliveries wait), never to a disabled or a
 * deleted one; a delivery of a disabled, deleted or vanished subscription is dead-lettered as
 * `failed` at its next attempt, with this reason, instead of being sent.
 */
export function receivesEvents(subscription: Subscription): boolean {
  return subscription.state === 'active' || subscription.state === 'paused';
}

/** Why a delivery of this subscription may no longer be sent, or undefined when it may. */
export function endedReason(subscription: Subscription | undefined): string | undefined {
  if (!subscription) return 'subscription no longer exists';
  if (subscription.state === 'deleted') return 'subscription deleted';
  if (subscription.state === 'disabled')
    return `subscription disabled: ${subscription.stateReason ?? 'no reason recorded'}`;
  return undefined;
}

/** A rotation keeps the old secret signing this long by default, and at most a week. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400;

/** The signing secrets still in use at `nowMs`: a rotated-out one drops out when its overlap ends. */
export function liveSecretIndexes(
  subscription: Pick<Subscription, 'secretExpiry'>,
  count: number,
  nowMs: number,
): number[] {
  const expiry = subscription.secretExpiry ?? [];
  return Array.from({ length: count }, (_, i) => i).filter((i) => {
    const until = expiry[i];
    return until === undefined || until === null || Date.parse(until) > nowMs;
  });
}
