import { z } from 'zod';
import type { DeliveryState } from '#domain/states.ts';
import type { PageRequest } from '#ports/page.ts';
import { parseQuery, type Query } from '#app/parse.ts';
import { deliveryState, ID_PREFIXES, pageQuery, prefixedId, subscriptionId } from '#app/schema/common.ts';

/** A page of one subscription's deliveries, newest first, optionally in one state. */
export interface DeliveryListQuery extends PageRequest {
  readonly subscriptionId: string;
  readonly state?: DeliveryState;
}

/** A page of dead letters, newest first, overall or of one subscription. */
export interface DeadLetterQuery extends PageRequest {
  readonly subscriptionId?: string;
}

/** The `GET /v1/deliveries` query: `subscriptionId` (required), `state`, `limit`, `cursor`. */
export const deliveryListQuery = z.object({
  subscriptionId: prefixedId(ID_PREFIXES.subscription, {
    required: 'is required (deliveries are listed per subscription; use /v1/dead-letters across all)',
  }),
  state: deliveryState.optional(),
  ...pageQuery.shape,
});

/** The `GET /v1/dead-letters` query: `subscriptionId` (optional for the admin key), `limit`, `cursor`. */
export const deadLetterQuery = z.object({ subscriptionId: subscriptionId.optional(), ...pageQuery.shape });

export function parseDeliveryListQuery(query: Query): DeliveryListQuery {
  return parseQuery(deliveryListQuery, query);
}

export function parseDeadLetterQuery(query: Query): DeadLetterQuery {
  return parseQuery(deadLetterQuery, query);
}
