/**
 * Types under this prefix are Hookline's own: producers may not publish them (publish refuses
 * them, naming `type`), so a receiver can trust that a `hookline.…` event came from Hookline.
 */
export const RESERVED_EVENT_TYPE_PREFIX = 'hookline.';

/**
 * Operational events (docs/operations.md, "Failure notices and operational webhooks"): they
 * describe other subscriptions, so a catch-all `*` never selects them; only a pattern that
 * names them (`hookline.*`, `hookline.subscription.*`, an exact type) does.
 */
export const OPERATIONAL_EVENT_PREFIXES = ['hookline.subscription.', 'hookline.replay.'] as const;

export function isReservedEventType(type: string): boolean {
  return type.startsWith(RESERVED_EVENT_TYPE_PREFIX);
}

export function isOperationalEventType(type: string): boolean {
  return OPERATIONAL_EVENT_PREFIXES.some((prefix) => type.startsWith(prefix));
}

/**
 * Whether a subscription's `eventTypes` select an event type: `*` matches everything but the
 * operational events, `invoice.*` matches `invoice.paid` and `invoice.line.added`, anything else
 * must be equal.
 */
export function matchesEventType(patterns: readonly string[], type: string): boolean {
  const operational = isOperationalEventType(type);
  return patterns.some((pattern) => {
    if (pattern === type) return true;
    if (pattern === '*') return !operational;
    if (!pattern.endsWith('.*') || !type.startsWith(pattern.slice(0, -1))) return false;
    return !operational || pattern.startsWith(RESERVED_EVENT_TYPE_PREFIX);
  });
}

/**
 * Whether a subscription receives events of this type: its patterns select it, and an
 * operational event (which names other subscriptions, whatever their tenant) goes only to a
 * producer-owned subscription, one without a tenant.
 */
export function subscriptionSelects(
  subscription: { readonly eventTypes: readonly string[]; readonly tenantId?: string },
  type: string,
): boolean {
  if (isOperationalEventType(type) && subscription.tenantId !== undefined) return false;
  return matchesEventType(subscription.eventTypes, type);
}

/** The type of the event `POST /v1/subscriptions/{id}/test` sends unless asked for another; every subscription receives it, whatever its event types. */
export const TEST_EVENT_TYPE = 'hookline.test';

/**
 * Why a test event of `type` may not go to this subscription, or undefined when it may. The
 * test type always may. Another of Hookline's own types never: a receiver trusts those to
 * describe what Hookline did, and a test would make one up. Any other type only when the
 * subscription receives it (subscriptionSelects), so a test shows what it would really be sent.
 */
export function testEventRefusal(
  subscription: { readonly eventTypes: readonly string[]; readonly tenantId?: string },
  type: string,
): string | undefined {
  if (type === TEST_EVENT_TYPE) return undefined;
  if (isReservedEventType(type))
    return `must not start with '${RESERVED_EVENT_TYPE_PREFIX}' other than ${TEST_EVENT_TYPE} (Hookline's own events are never made up)`;
  if (!subscriptionSelects(subscription, type))
    return `'${type}' is not a type this subscription receives (its eventTypes: ${subscription.eventTypes.join(', ')})`;
  return undefined;
}

export const EVENT_TYPE_PATTERN = /^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?)$/;
