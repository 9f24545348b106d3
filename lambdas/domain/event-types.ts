/**
 * Whether a subscription's `eventTypes` select an event type: `*` matches everything,
 * `invoice.*` matches `invoice.paid` and `invoice.line.added`, anything else must be equal.
 */
export function matchesEventType(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => {
    if (pattern === '*' || pattern === type) return true;
    return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
  });
}

export const EVENT_TYPE_PATTERN = /^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?)$/;
