import { attemptLog } from '#domain/attempt-log.ts';
import type { AttemptRecord, Delivery, EventRecord } from '#domain/types.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import { type Principal, visibleDelivery, visibleSubscription } from '#app/access.ts';
import type { DeadLetterQuery, DeliveryListQuery } from '#app/deliveries/delivery-request.ts';
import type { Deps } from '#app/deps.ts';
import { NotFoundError, ValidationError } from '#app/errors.ts';
import { listSubscriptionDeliveries } from '#app/deliveries/reads.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';

/** One delivery's row by id, whoever owns it (operator paths that act on it); NotFoundError when there is none. */
export async function getDelivery(deps: Pick<Deps, 'deliveries'>, id: string): Promise<Delivery> {
  const delivery = await deps.deliveries.get(id);
  if (!delivery) throw new NotFoundError('delivery', id);
  return delivery;
}

/** How many attempts the detail of a delivery shows: the latest; older ones page through `listAttempts`. */
export const DETAIL_ATTEMPTS = 50;

/** A delivery with what it sent (the event's body) and its latest attempts. */
export interface DeliveryDetail {
  readonly delivery: Delivery;
  readonly event?: EventRecord;
  /** The latest DETAIL_ATTEMPTS attempts, oldest first. */
  readonly attempts: readonly AttemptRecord[];
  /** Leads to the attempts before those (listAttempts); absent when there are none. */
  readonly attemptsNextCursor?: string;
}

/** The detail of a delivery the principal may see; another tenant's is NotFoundError, like one that does not exist. */
export async function getDeliveryDetail(deps: UnwrittenDeps & Pick<Deps, 'attempts'>, principal: Principal, id: string): Promise<DeliveryDetail> {
  const delivery = await visibleDelivery(deps, principal, id);
  const [event, attempts] = await Promise.all([deps.events.get(delivery.eventId), attemptPage(deps, delivery, { limit: DETAIL_ATTEMPTS })]);
  return { delivery, ...(event ? { event } : {}), attempts: attempts.items, ...(attempts.nextCursor ? { attemptsNextCursor: attempts.nextCursor } : {}) };
}

/** A page of a visible delivery's attempt log: the latest before the cursor, oldest first within the page. */
export async function listAttempts(deps: UnwrittenDeps & Pick<Deps, 'attempts'>, principal: Principal, id: string, request: PageRequest): Promise<Page<AttemptRecord>> {
  return attemptPage(deps, await visibleDelivery(deps, principal, id), request);
}

/** The cursor of the last page when it holds only the row's inline first attempt (attempt stores never issue it). */
const FIRST_ATTEMPT_CURSOR = 'first-attempt';

/**
 * A page of the whole attempt log (domain/attempt-log.ts): the attempts table's pages, newest
 * first, then the row's inline first attempt, the oldest of all, on the page that reaches it.
 */
export async function attemptPage(deps: Pick<Deps, 'attempts'>, delivery: Delivery, request: PageRequest): Promise<Page<AttemptRecord>> {
  const inline = delivery.firstAttempt && { deliveryId: delivery.id, ...delivery.firstAttempt };
  if (request.cursor === FIRST_ATTEMPT_CURSOR) return { items: inline ? [inline] : [] };
  const page = await deps.attempts.latest(delivery.id, request);
  if (!inline || page.nextCursor || page.items.some((a) => a.seq === inline.seq)) return page;
  return page.items.length < request.limit ? { items: attemptLog(delivery, page.items) } : { items: page.items, nextCursor: FIRST_ATTEMPT_CURSOR };
}

/**
 * A page of one subscription's deliveries. A tenant key must own the subscription (else
 * NotFoundError); the admin key may list any id, and an unknown one is simply an empty page.
 */
export async function listDeliveries(deps: UnwrittenDeps, principal: Principal, query: DeliveryListQuery): Promise<Page<Delivery>> {
  if (principal.role === 'tenant') await visibleSubscription(deps, principal, query.subscriptionId);
  return listSubscriptionDeliveries(deps, query);
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
