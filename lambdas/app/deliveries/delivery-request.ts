import type { DeliveryState } from '#domain/states.ts';
import type { PageRequest } from '#ports/page.ts';
import { ValidationError } from '#app/errors.ts';
import { parseId, parsePageRequest, parseState, type Query } from '#app/parse.ts';

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
export function parseDeliveryListQuery(query: Query): DeliveryListQuery {
  if (!query.subscriptionId) throw new ValidationError('subscriptionId', 'is required (deliveries are listed per subscription; use /v1/dead-letters across all)');
  const state = parseState(query.state);
  const subscriptionId = parseId(query.subscriptionId, 'sub', 'subscriptionId');
  return { subscriptionId, ...parsePageRequest(query), ...(state ? { state } : {}) };
}

/** The `GET /v1/dead-letters` query: `subscriptionId` (optional for the admin key), `limit`, `cursor`. */
export function parseDeadLetterQuery(query: Query): DeadLetterQuery {
  const subscriptionId = query.subscriptionId ? parseId(query.subscriptionId, 'sub', 'subscriptionId') : undefined;
  return { ...parsePageRequest(query), ...(subscriptionId ? { subscriptionId } : {}) };
}
