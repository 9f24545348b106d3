import type { Delivery, Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';
import { ForbiddenError, NotFoundError } from '#app/errors.ts';

/**
 * Who is calling, as the authorizer established it. An admin (the deployment's key) sees
 * everything; a tenant (a key minted for one tenant) sees only that tenant's subscriptions and
 * their deliveries, and another tenant's ids look exactly like ids that do not exist.
 */
export type Principal =
  | { readonly role: 'admin' }
  | { readonly role: 'tenant'; readonly tenantId: string; readonly keyId: string };

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

/** Whether the principal may see a resource: the admin always, a tenant only its own. */
export function canSee(principal: Principal, resource: { readonly tenantId?: string }): boolean {
  return principal.role === 'admin' || resource.tenantId === principal.tenantId;
}

/** The subscription if the principal may see it; NotFoundError otherwise, the same as for an unknown id. */
export async function visibleSubscription(deps: Pick<Deps, 'subscriptions'>, principal: Principal, id: string): Promise<Subscription> {
  const subscription = await deps.subscriptions.get(id);
  if (!subscription || !canSee(principal, subscription)) throw new NotFoundError('subscription', id);
  return subscription;
}

/** The delivery if the principal may see it; NotFoundError otherwise, the same as for an unknown id. */
export async function visibleDelivery(deps: Pick<Deps, 'deliveries'>, principal: Principal, id: string): Promise<Delivery> {
  const delivery = await deps.deliveries.get(id);
  if (!delivery || !canSee(principal, delivery)) throw new NotFoundError('delivery', id);
  return delivery;
}
