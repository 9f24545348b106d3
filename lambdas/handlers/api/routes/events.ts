import { eventDetailView, eventSummaryView, subscriptionEventView } from '#app/events/event-view.ts';
import { parseEventIdSegment, parseEventListQuery, parseSubscriptionEventsQuery } from '#app/events/event-request.ts';
import { getEventDetail, listEvents, listSubscriptionEvents } from '#app/events/events.ts';
import { IdempotencyKeyReusedError } from '#app/errors.ts';
import { IDEMPOTENCY_KEY_HEADER, withKeyAsEventId } from '#app/idempotency/idempotency.ts';
import { parsePublishBatch, parsePublishRequest } from '#app/publish/publish-request.ts';
import { publish, publishBatch, type PublishResult } from '#app/publish/publish.ts';
import { scopePublish } from '#app/publish/publish-access.ts';
import { listed, ok, type Route } from '../route.ts';

const reused = (eventId: string) =>
  `event ${eventId} was already published with another type, payload or audience; an event id (or Idempotency-Key) names one event, so publish a new one under a new id`;

/** What the event-type catalog said of an accepted event, when it said anything (HOOKLINE_EVENT_TYPE_CHECK). */
const warned = (r: Exclude<PublishResult, { kind: 'refused' }>) => (r.warnings ? { warnings: r.warnings } : {});

/** A batch item: a conflict says why nothing was stored, like the single publish's 422 would (a refusal refuses the whole batch first). */
const batchItem = (r: Exclude<PublishResult, { kind: 'refused' }>) =>
  r.kind === 'conflict'
    ? {
        eventId: r.eventId,
        kind: r.kind,
        deliveryIds: [],
        error: { code: 'idempotency_key_reused', message: reused(r.eventId) },
      }
    : { eventId: r.eventId, kind: r.kind, deliveryIds: r.deliveryIds, ...warned(r) };

/** Publishing events, one or a batch; reading them back, and a subscription's events for reconciliation. */
export const EVENT_ROUTES: readonly Route[] = [
  {
    // An Idempotency-Key here is the event id (the body's `id` may say the same, not something else).
    // A tenant key publishes for its own tenant (app/publish/publish-access.ts).
    method: 'POST',
    path: '/v1/events',
    access: 'tenant',
    run: async (deps, req) => {
      const result = await publish(
        deps,
        scopePublish(
          req.principal,
          withKeyAsEventId(parsePublishRequest(req.body), req.headers?.[IDEMPOTENCY_KEY_HEADER]),
        ),
      );
      if (result.kind === 'conflict') throw new IdempotencyKeyReusedError(reused(result.eventId));
      return ok(
        { eventId: result.eventId, deliveryIds: result.deliveryIds, ...warned(result) },
        result.kind === 'accepted' ? 202 : 200,
      );
    },
  },
  {
    // One result per event, in request order; 200 whatever each was (accepted, a duplicate, or a conflict).
    // Any refused event refuses the batch (400 naming it), before anything is stored.
    method: 'POST',
    path: '/v1/events/batch',
    access: 'tenant',
    run: async (deps, req) => {
      const requests = parsePublishBatch(req.body).map((r) => scopePublish(req.principal, r));
      const results = await publishBatch(deps, requests, { wholeOrNothing: true });
      return ok({ items: results.map(batchItem) });
    },
  },
  {
    method: 'GET',
    path: '/v1/events',
    access: 'admin',
    run: async (deps, req) => listed(await listEvents(deps, parseEventListQuery(req.query)), eventSummaryView),
  },
  {
    // A tenant key sees the event only through its own deliveries (app/events/events.ts).
    method: 'GET',
    path: '/v1/events/{eventId}',
    access: 'tenant',
    run: async (deps, req, p) =>
      ok(eventDetailView(await getEventDetail(deps, req.principal, parseEventIdSegment(p.eventId!)))),
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{subscriptionId}/events',
    access: 'tenant',
    run: async (deps, req, p) =>
      listed(
        await listSubscriptionEvents(deps, req.principal, p.subscriptionId!, parseSubscriptionEventsQuery(req.query)),
        subscriptionEventView,
      ),
  },
];
