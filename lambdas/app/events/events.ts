import type { Delivery, EventRecord } from '#domain/types.ts';
import type { EventSummary } from '#ports/event-store.ts';
import type { EventLogRequest } from '#ports/ingest-manifest-store.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import { canSee, visibleSubscription, type Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { NotFoundError } from '#app/errors.ts';
import { listSubscriptionDeliveries, readDeliveries, withEventTypes } from '#app/deliveries/reads.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';

/** An event with its deliveries, as far as the caller may see them. */
export interface EventDetail {
  readonly event: EventRecord;
  /** One per subscription it went to, the caller's own only with a tenant key; rows already archived are left out. */
  readonly deliveries: readonly Delivery[];
}

/**
 * One event and its delivery to each subscription. The admin key sees every delivery; a tenant
 * key only those to its own subscriptions, and an event none of whose deliveries it may see is
 * NotFoundError, exactly like an id that does not exist (it learns nothing of other tenants').
 */
export async function getEventDetail(deps: UnwrittenDeps, principal: Principal, id: string): Promise<EventDetail> {
  const event = await deps.events.get(id);
  if (!event) throw new NotFoundError('event', id);
  const deliveries = (await readDeliveries(deps, event.deliveryIds)).filter((d) => canSee(principal, d));
  if (deliveries.length === 0 && !canSee(principal, { ...(event.tenantId ? { tenantId: event.tenantId } : {}) }))
    throw new NotFoundError('event', id);
  return { event, deliveries };
}

/**
 * Events newest first, from the publish manifests (the event log: no write per event), each
 * checked against the events table: an event a publish never stored, or an id listed again by
 * a repeated publish, is left out, so a page may hold fewer than `limit`.
 */
export async function listEvents(
  deps: Pick<Deps, 'events' | 'ingestManifests'>,
  request: EventLogRequest,
): Promise<Page<EventSummary>> {
  const page = await deps.ingestManifests.listEvents(request);
  const stored = new Map((await deps.events.getSummaries(page.items.map((e) => e.eventId))).map((e) => [e.id, e]));
  const listed = new Set<string>();
  const items = page.items.flatMap((entry) => {
    const event = stored.get(entry.eventId);
    // The event's own creation time names the one publish that stored it; a later repeat of its id lists it under another.
    if (!event || event.createdAt !== entry.createdAt || listed.has(event.id)) return [];
    listed.add(event.id);
    return [event];
  });
  return { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}

/** One event a subscription should have received, with its delivery, and where a walk resumes after it. */
export interface SubscriptionEvent {
  readonly delivery: Delivery;
  /** Undefined when neither the delivery's row (an earlier version's) nor the event's (gone by TTL, after its retention) says it. */
  readonly eventType?: string;
  readonly cursor: string;
}

/**
 * Every event a subscription should have received, in publish order (oldest first), with its
 * delivery's state: what a consumer walks to reconcile, from the cursor of the last one it
 * handled. The admin key or the owning tenant's; another tenant's subscription is NotFoundError.
 */
export async function listSubscriptionEvents(
  deps: UnwrittenDeps,
  principal: Principal,
  subscriptionId: string,
  request: PageRequest,
): Promise<Page<SubscriptionEvent>> {
  await visibleSubscription(deps, principal, subscriptionId);
  const page = await listSubscriptionDeliveries(deps, { ...request, subscriptionId, order: 'oldest' });
  const items = (await withEventTypes(deps, page.items)).map(
    (delivery, i): SubscriptionEvent => ({
      delivery,
      ...(delivery.eventType !== undefined ? { eventType: delivery.eventType } : {}),
      cursor: page.itemCursors[i]!,
    }),
  );
  return { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}
