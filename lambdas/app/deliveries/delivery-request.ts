import { z } from 'zod';
import type { DeliveryFilter } from '#domain/delivery-filter.ts';
import type { PageRequest } from '#ports/page.ts';
import { parseQuery, type Query } from '#app/parse.ts';
import {
  deliveryState,
  eventType,
  ID_PREFIXES,
  instantBound,
  pageQuery,
  prefixedId,
  subscriptionId,
} from '#app/schema/common.ts';

/** A page of one subscription's deliveries, newest first, optionally filtered (domain/delivery-filter.ts). */
export interface DeliveryListQuery extends PageRequest, DeliveryFilter {
  readonly subscriptionId: string;
}

/** A page of dead letters, newest first, overall or of one subscription. */
export interface DeadLetterQuery extends PageRequest {
  readonly subscriptionId?: string;
}

/**
 * The `GET /v1/deliveries` query: `subscriptionId` (required), the filters `state`, `eventType`
 * (exactly), `since` and `until` (the creation time, both ends included), `limit`, `cursor`.
 */
export const deliveryListQuery = z
  .object({
    subscriptionId: prefixedId(ID_PREFIXES.subscription, {
      required: 'is required (deliveries are listed per subscription; use /v1/dead-letters across all)',
    }),
    state: deliveryState.optional(),
    eventType: eventType.optional().meta({ description: 'only deliveries of events of exactly this type' }),
    since: instantBound('from').optional().meta({
      description:
        'only deliveries created at or after this time: an ISO 8601 time with a zone, or a day (YYYY-MM-DD: the start of that UTC day)',
    }),
    until: instantBound('to').optional().meta({
      description:
        'only deliveries created at or before this time, not before since: an ISO 8601 time with a zone, or a day (YYYY-MM-DD: the end of that UTC day)',
    }),
    ...pageQuery.shape,
  })
  .superRefine((query, ctx) => {
    if (query.since !== undefined && query.until !== undefined && query.until < query.since)
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'must not be before since' });
  });

/** The `GET /v1/dead-letters` query: `subscriptionId` (optional for the admin key), `limit`, `cursor`. */
export const deadLetterQuery = z.object({ subscriptionId: subscriptionId.optional(), ...pageQuery.shape });

export function parseDeliveryListQuery(query: Query): DeliveryListQuery {
  return parseQuery(deliveryListQuery, query);
}

export function parseDeadLetterQuery(query: Query): DeadLetterQuery {
  return parseQuery(deadLetterQuery, query);
}
