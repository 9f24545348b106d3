import type { EventSummary } from '#ports/event-store.ts';
import type { EventDetail, SubscriptionEvent } from './events.ts';

/**
 * `GET /v1/events/{eventId}`: the event, its payload as JSON (the `data` of the body every
 * attempt sent; the exact bytes are in a delivery's detail) and its delivery per subscription.
 */
export function eventDetailView({ event, deliveries }: EventDetail) {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    ...audienceView(event),
    ...(event.narrowedTo ? { narrowedTo: event.narrowedTo } : {}),
    payload: (JSON.parse(event.body) as { data: unknown }).data,
    deliveries: deliveries.map((d) => ({
      subscriptionId: d.subscriptionId,
      deliveryId: d.id,
      state: d.state,
      attempts: d.attempts,
      ...(d.lastStatus !== undefined ? { lastStatus: d.lastStatus } : {}),
    })),
  };
}

/** An item of `GET /v1/events`. */
export function eventSummaryView(event: EventSummary) {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    ...audienceView(event),
    deliveries: event.deliveryIds.length,
  };
}

/** Who an event was published for, as the request said it. */
function audienceView(event: EventSummary) {
  return {
    ...(event.tenantId ? { tenantId: event.tenantId } : {}),
    ...(event.audience ? { audience: event.audience } : {}),
  };
}

/** An item of `GET /v1/subscriptions/{subscriptionId}/events`: `cursor` continues the walk after it. */
export function subscriptionEventView(item: SubscriptionEvent) {
  const d = item.delivery;
  return {
    eventId: d.eventId,
    eventType: item.eventType ?? null,
    createdAt: d.createdAt,
    deliveryId: d.id,
    state: d.state,
    attempts: d.attempts,
    ...(d.lastStatus !== undefined ? { lastStatus: d.lastStatus } : {}),
    cursor: item.cursor,
  };
}
