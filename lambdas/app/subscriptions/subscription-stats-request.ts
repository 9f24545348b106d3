import { HEALTH_WINDOW_HOURS } from '#domain/subscription-health.ts';
import { ValidationError } from '#app/errors.ts';
import type { Query } from '#app/parse.ts';

/** What `GET /v1/subscriptions/{id}/stats` was asked for. */
export interface SubscriptionStatsQuery {
  readonly windowHours: number;
}

/** The stats query: `windowHours`, a whole number of hours within HEALTH_WINDOW_HOURS (default 24). */
export function parseSubscriptionStatsQuery(query: Query): SubscriptionStatsQuery {
  const { min, max } = HEALTH_WINDOW_HOURS;
  const raw = query.windowHours;
  if (raw === undefined) return { windowHours: HEALTH_WINDOW_HOURS.default };
  const hours = Number(raw);
  if (!/^\d{1,3}$/.test(raw) || hours < min || hours > max) throw new ValidationError('windowHours', `must be a whole number of hours from ${min} to ${max}`);
  return { windowHours: hours };
}
