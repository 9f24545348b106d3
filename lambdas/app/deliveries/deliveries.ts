import type { AttemptRecord, Delivery, EventRecord } from '#domain/types.ts';
import type { Page } from '#ports/page.ts';
import { type Principal, visibleDelivery, visibleSubscription } from '#app/access.ts';
import type { DeadLetterQuery, DeliveryListQuery } from '#app/deliveries/delivery-request.ts';
import type { Deps } from '#app/deps.ts';
import { NotFoundError, ValidationError } from '#app/errors.ts';

/** One delivery by id, whoever owns it (operator paths); NotFoundError when there is none. */
export async function getDelivery(deps: Pick<Deps, 'deliveries'>, id: string): Promise<Delivery> {
  const delivery = await deps.deliveries.get(id);
  if (!delivery) throw new NotFoundError('delivery', id);
  return delivery;
}

/** A delivery with what it sent (the event's body) and every attempt so far. */
export interface DeliveryDetail {
  readonly delivery: Delivery;
  readonly event?: EventRecord;
  readonly attempts: readonly AttemptRecord[];
}

/** The detail of a delivery the principal may see; another tenant's is NotFoundError, like one that does not exist. */
export async function getDeliveryDetail(deps: Pick<Deps, 'deliveries' | 'events' | 'attempts'>, principal: Principal, id: string): Promise<DeliveryDetail> {
  const delivery = await visibleDelivery(deps, principal, id);
  const [event, attempts] = await Promise.all([deps.events.get(delivery.eventId), deps.attempts.list(id)]);
  return { delivery, ...(event ? { event } : {}), attempts };
}

/**
 * A page of one subscription's deliveries. A tenant key must own the subscription (else
 * NotFoundError); the admin key may list any id, and an unknown one is simply an empty page.
 */
export async function listDeliveries(deps: Pick<Deps, 'deliveries' | 'subscriptions'>, principal: Principal, query: DeliveryListQuery): Promise<Page<Delivery>> {
  if (principal.role === 'tenant') await visibleSubscription(deps, principal, query.subscriptionId);
  return deps.deliveries.listBySubscription(query);
}

/**
 * A page of dead letters. The admin key may list them across all subscriptions; a tenant key
 * only per subscription, one of its own, since the overall listing is not partitioned by tenant.
 */
export async function listDeadLetters(deps: Pick<Deps, 'deliveries' | 'subscriptions'>, principal: Principal, query: DeadLetterQuery): Promise<Page<Delivery>> {
  if (principal.role === 'tenant') {
    if (!query.subscriptionId) throw new ValidationError('subscriptionId', 'is required with a tenant key (dead letters are listed per subscription)');
    await visibleSubscription(deps, principal, query.subscriptionId);
  }
  return deps.deliveries.listDeadLetters(query);
}
