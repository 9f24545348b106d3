import type { PortalAccess } from '#domain/portal-session.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';
import { ForbiddenError, NotFoundError } from '#app/errors.ts';
import { readDelivery } from '#app/deliveries/reads.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';

/**
 * Who is calling, as the authorizer established it. An admin (the deployment's key) sees
 * everything; a tenant (a key minted for one tenant, or a customer portal session) sees only
 * that tenant's subscriptions and their deliveries, and another tenant's ids look exactly like
 * ids that do not exist. A portal session may be limited to one subscription (`subscriptionId`):
 * then it sees that subscription and its deliveries only, and the tenant's others look like
 * ids that do not exist too.
 */
export type Principal =
  | { readonly role: 'admin' }
  | {
      readonly role: 'tenant';
      readonly tenantId: string;
      /** The key's id, or the portal session's (`psn_…`). */
      readonly keyId: string;
      /** The one subscription this principal may see (a portal link limited to it). */
      readonly subscriptionId?: string;
      /**
       * A customer portal session (app/portal/), not a tenant key, with the level its link was
       * minted with: the router allows it the routes of that level (handlers/api/portal-access.ts).
       */
      readonly portal?: PortalAccess;
    };

/** The deployment's own key (and IAM-signed callers): sees and may do everything. */
export const ADMIN: Principal = Object.freeze({ role: 'admin' });

/** ForbiddenError unless the caller is the admin; `action` names what was refused (`POST /v1/events`). */
export function requireAdmin(principal: Principal, action: string): void {
  if (principal.role !== 'admin') throw new ForbiddenError(`${action} needs the admin key; tenant keys cannot do this`);
}

/** The tenant a listing must be limited to, if any. */
export function tenantScope(principal: Principal): string | undefined {
  return principal.role === 'tenant' ? principal.tenantId : undefined;
}

/** The one subscription a principal is limited to, if it is (a portal link for one subscription). */
export function subscriptionLimit(principal: Principal): string | undefined {
  return principal.role === 'tenant' ? principal.subscriptionId : undefined;
}

/**
 * Whether the principal may see a resource: the admin always, a tenant only its own, and one
 * limited to a subscription only what belongs to that subscription (a resource that names none,
 * such as an event seen through its tenant alone, is not its to see).
 */
export function canSee(
  principal: Principal,
  resource: { readonly tenantId?: string; readonly subscriptionId?: string },
): boolean {
  if (principal.role === 'admin') return true;
  if (resource.tenantId !== principal.tenantId) return false;
  return principal.subscriptionId === undefined || resource.subscriptionId === principal.subscriptionId;
}

/** A subscription as canSee judges it: its tenant, and itself as the subscription it belongs to. */
const ownerOf = (subscription: Subscription) => ({ tenantId: subscription.tenantId, subscriptionId: subscription.id });

/** The subscription if the principal may see it; NotFoundError otherwise, the same as for an unknown id. */
export async function visibleSubscription(
  deps: Pick<Deps, 'subscriptions'>,
  principal: Principal,
  id: string,
): Promise<Subscription> {
  const subscription = await deps.subscriptions.get(id);
  if (!subscription || !canSee(principal, ownerOf(subscription))) throw new NotFoundError('subscription', id);
  return subscription;
}

/**
 * The listing of a principal limited to one subscription: that subscription alone (none when it
 * is gone). Undefined for every other principal, whose listing is the store's, by tenant.
 */
export async function limitedSubscriptionListing(
  deps: Pick<Deps, 'subscriptions'>,
  principal: Principal,
): Promise<{ items: Subscription[] } | undefined> {
  const only = subscriptionLimit(principal);
  if (only === undefined) return undefined;
  const subscription = await deps.subscriptions.get(only);
  return { items: subscription && canSee(principal, ownerOf(subscription)) ? [subscription] : [] };
}

/**
 * The delivery if the principal may see it, also one not yet written (app/deliveries/reads.ts);
 * NotFoundError otherwise, the same as for an unknown id.
 */
export async function visibleDelivery(deps: UnwrittenDeps, principal: Principal, id: string): Promise<Delivery> {
  const delivery = await readDelivery(deps, id);
  if (!delivery || !canSee(principal, delivery)) throw new NotFoundError('delivery', id);
  return delivery;
}
