import type { Delivery, Subscription } from '#domain/types.ts';
import type { ServiceDeps } from '#app/deps.ts';
import { ForbiddenError, NotFoundError } from '#app/errors.ts';

/**
 * Who is calling, as the authorizer established it. An admin (the deployment's key) sees
 * everything; a tenant (a key minted for one tenant) sees only that tenant's subscriptions and
 * their deliveries, and another tenant's ids look exactly like ids that do not exist.
 */
export type Principal =
  | { readonly role: 'admin' }
  | { readonly role: 'tenant'; readonly tenantId: string; readonly keyId: string };

export const ADMIN: Principal = Object.freeze({ role: 'admin' });

export function requireAdmin(principal: Principal, action: string): void {
  if (principal.role !== 'admin') throw new ForbiddenError(`${action} needs the admin key; tenant keys cannot do this`);
}

/** The tenant a listing must be limited to, if any. */
export function tenantScope(principal: Principal): string | undefined {
  return principal.role === 'tenant' ? principal.tenantId : undefined;
}

export function canSee(principal: Principal, resource: { readonly tenantId?: string }): boolean {
  return principal.role === 'admin' || resource.tenantId === principal.tenantId;
}

export async function visibleSubscription(deps: Pick<ServiceDeps, 'subscriptions'>, principal: Principal, id: string): Promise<Subscription> {
  const subscription = await deps.subscriptions.get(id);
  if (!subscription || !canSee(principal, subscription)) throw new NotFoundError('subscription', id);
  return subscription;
}

export async function visibleDelivery(deps: Pick<ServiceDeps, 'deliveries'>, principal: Principal, id: string): Promise<Delivery> {
  const delivery = await deps.deliveries.get(id);
  if (!delivery || !canSee(principal, delivery)) throw new NotFoundError('delivery', id);
  return delivery;
}
