import { z } from 'zod';
import { HEALTH_WINDOW_HOURS } from '#domain/subscription-health.ts';
import { parseQuery, type Query } from '#app/parse.ts';
import { wholeNumberParam } from '#app/schema/common.ts';

/** What `GET /v1/subscriptions/{id}/stats` was asked for. */
export interface SubscriptionStatsQuery {
  readonly windowHours: number;
}

/** The stats query: `windowHours`, a whole number of hours within HEALTH_WINDOW_HOURS (default 24). */
export const subscriptionStatsQuery = z.object({
  windowHours: wholeNumberParam(
    HEALTH_WINDOW_HOURS,
    `must be a whole number of hours from ${HEALTH_WINDOW_HOURS.min} to ${HEALTH_WINDOW_HOURS.max}`,
  ),
});

export function parseSubscriptionStatsQuery(query: Query): SubscriptionStatsQuery {
  return parseQuery(subscriptionStatsQuery, query);
}
