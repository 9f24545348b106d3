import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import type { Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { drainBacklog } from '#app/subscriptions/drain.ts';
import { getSubscription } from '#app/subscriptions/subscriptions.ts';
import { routedChange } from '#app/subscriptions/routing.ts';

/**
 * Ends a subscription without losing anything silently. The row stays, state `deleted`, so its
 * history reads; publish no longer fans out to it; every pending delivery is made due at once
 * and handed to the sender, which dead-letters it as failed with the reason "subscription
 * deleted" (domain/subscription-states.ts) instead of POSTing it. A delivery in flight at that
 * moment finishes its attempt; if that attempt asks for a retry, its next message is dead-lettered
 * the same way. `deadLettered` counts the pending deliveries handed over; deleting a deleted
 * subscription changes nothing.
 */
export async function deleteSubscription(
  deps: Pick<Deps, 'subscriptions' | 'routes' | 'deliveries' | 'queue' | 'clock'>,
  principal: Principal,
  id: string,
): Promise<{ subscription: Subscription; deadLettered: number }> {
  const current = await getSubscription(deps, principal, id);
  if (current.state === 'deleted') return { subscription: current, deadLettered: 0 };
  // Out of the routing index (its entries become tombstones) before its backlog is handed over.
  const deleted = await routedChange(deps, id, () =>
    deps.subscriptions.setState(id, 'deleted', 'deleted by request', iso(deps.clock.now())),
  );
  if (!deleted) return { subscription: await getSubscription(deps, principal, id), deadLettered: 0 };
  return { subscription: deleted, deadLettered: await drainBacklog(deps, id, { spread: false }) };
}
