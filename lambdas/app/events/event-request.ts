import { z } from 'zod';
import type { EventLogRequest } from '#ports/ingest-manifest-store.ts';
import type { PageRequest } from '#ports/page.ts';
import { decodePathSegment, parseQuery, type Query } from '#app/parse.ts';
import { cursor, eventId, eventType, instantBound, limit, tenantId } from '#app/schema/common.ts';
import { parseWith } from '#app/schema/refuse.ts';

/** An event id from a path (`/v1/events/{eventId}`): percent-escapes decoded, then the publish id's rule. */
export function parseEventIdSegment(segment: string): string {
  return parseWith(eventId, decodePathSegment(segment, 'eventId'), 'eventId');
}

/** The `GET /v1/events` query: `type` (exactly), `tenantId` (published for that tenant), `since` (created at or after), `limit`, `cursor`. */
export const eventListQuery = z.object({
  type: eventType.optional(),
  tenantId: tenantId.optional().meta({ description: 'only events published for this tenant' }),
  since: instantBound('from').optional(),
  limit,
  cursor,
});

export function parseEventListQuery(query: Query): EventLogRequest {
  return parseQuery(eventListQuery, query);
}

/**
 * The `GET /v1/subscriptions/{subscriptionId}/events` query: `after` (an item's `cursor`, or a
 * page's `nextCursor`: the listing continues after it) and `limit`.
 */
export const subscriptionEventsQuery = z.object({
  after: cursor.meta({
    description: "an item's cursor or a page's nextCursor, unchanged: the listing continues after it",
  }),
  limit,
});

export function parseSubscriptionEventsQuery(query: Query): PageRequest {
  const { after, limit: size } = parseQuery(subscriptionEventsQuery, query);
  return { limit: size, ...(after ? { cursor: after } : {}) };
}
