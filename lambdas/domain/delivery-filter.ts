import type { DeliveryState } from './states.ts';
import type { Delivery } from './types.ts';

/** What a subscription's delivery listing may be narrowed to; every filter given applies. */
export interface DeliveryFilter {
  readonly state?: DeliveryState;
  /** Exactly this event type. */
  readonly eventType?: string;
  /** Created at or after this instant (ISO 8601, UTC). */
  readonly since?: string;
  /** Created at or before this instant (ISO 8601, UTC). */
  readonly until?: string;
}

/**
 * Whether a filtered listing shows a delivery: `in` or `out`, or `unknown_type` for a row an
 * earlier version wrote without its event type when the filter names one. A store lists such a
 * row (it cannot tell), and the listing's reader settles it from the event
 * (app/deliveries/reads.ts), so the rule is this one function wherever it runs.
 */
export function filterVerdict(
  d: Pick<Delivery, 'state' | 'createdAt' | 'eventType'>,
  filter: DeliveryFilter,
): 'in' | 'out' | 'unknown_type' {
  if (filter.state !== undefined && d.state !== filter.state) return 'out';
  if (filter.since !== undefined && d.createdAt < filter.since) return 'out';
  if (filter.until !== undefined && d.createdAt > filter.until) return 'out';
  if (filter.eventType === undefined || d.eventType === filter.eventType) return 'in';
  return d.eventType === undefined ? 'unknown_type' : 'out';
}
