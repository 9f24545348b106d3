import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import type { SubscriptionChange } from '#ports/subscription-store.ts';
import type { Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { ConflictError } from '#app/errors.ts';
import { checkTarget, getSubscription, refuseDeleted } from '#app/subscriptions/subscriptions.ts';
import { routedChange } from '#app/subscriptions/routing.ts';

/**
 * Applies an owner's change (PATCH). A new URL passes the same target rules as at creation and
 * is stored normalised. The change applies to attempts made after it: the sender reads the URL,
 * headers, rate limit and retry policy from the subscription at each attempt (within the
 * sender's few-second subscription cache on AWS), and deliveries already made keep their history.
 */
export async function updateSubscription(
  deps: Pick<Deps, 'subscriptions' | 'routes' | 'clock' | 'allowPrivateTargets' | 'allowedPorts' | 'resolver'>,
  principal: Principal,
  id: string,
  change: SubscriptionChange,
): Promise<Subscription> {
  const current = await getSubscription(deps, principal, id);
  refuseDeleted(current, 'be updated');
  const checked: SubscriptionChange = change.url
    ? { ...change, url: (await checkTarget(deps, change.url)).href }
    : change;
  // New event types, a deadline or a rate limit change fan-out: the routing index follows (within its cache period).
  const updated = await routedChange(deps, id, () => deps.subscriptions.update(id, checked, iso(deps.clock.now())));
  // Deleted between the read and the write.
  if (!updated) throw new ConflictError(`subscription ${id} was deleted meanwhile; it cannot be updated`);
  return updated;
}
