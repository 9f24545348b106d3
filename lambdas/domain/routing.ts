import { inAudience, type Audience } from './audience.ts';
import { subscriptionSelects } from './event-types.ts';
import { receivesEvents } from './subscription-states.ts';
import type { Subscription } from './types.ts';

/**
 * What fan-out needs of a subscription, kept in the routing index beside each of its event-type
 * patterns: publish reads these and nothing else (no subscription row, no scan). The URL, the
 * headers and the secrets are not here: the sender reads them at each attempt.
 */
export interface RouteTarget {
  readonly id: string;
  readonly tenantId?: string;
  readonly eventTypes: readonly string[];
  readonly rateLimitPerSecond?: number;
  /** The subscription's own retry deadline, when its policy sets one (else the deployment's). */
  readonly deadlineSeconds?: number;
  /** Whether its state takes new deliveries (active and paused do: domain/subscription-states.ts). */
  readonly receives: boolean;
}

/**
 * One (subscription, pattern) of the routing index, as of the subscription's `routeVersion`.
 * An entry whose pattern the subscription no longer has, or whose subscription no longer
 * receives, stays as a tombstone (`live` false, dropped by TTL), so a late write of an older
 * version cannot bring it back.
 */
export interface RouteEntry {
  readonly pattern: string;
  readonly version: number;
  readonly live: boolean;
  readonly target: RouteTarget;
}

/** A subscription as the routing index knows it: every write that can change routing counts `routeVersion` up. */
export type Routed = Subscription & { readonly routeVersion: number; readonly routedPatterns: readonly string[] };

/** The segment a pattern is filed under: its first dot-separated part (`invoice` for `invoice.*` and `invoice.paid`), or `*`. */
export function patternSegment(pattern: string): string {
  return pattern === '*' ? '*' : pattern.split('.')[0]!;
}

/**
 * The segments whose patterns can select an event type: its first part and `*`. Any pattern
 * that selects `a.b.c` (`a.b.c`, `a.b.*`, `a.*`, `*`) is filed under one of the two, so a lookup
 * is two keys whatever the type's depth and however many subscriptions there are.
 */
export function typeSegments(type: string): readonly [string, '*'] {
  return [patternSegment(type), '*'];
}

export function routeTargetOf(subscription: Subscription): RouteTarget {
  return {
    id: subscription.id,
    ...(subscription.tenantId !== undefined ? { tenantId: subscription.tenantId } : {}),
    eventTypes: [...subscription.eventTypes],
    ...(subscription.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: subscription.rateLimitPerSecond } : {}),
    ...(subscription.retryPolicy ? { deadlineSeconds: subscription.retryPolicy.deadlineSeconds } : {}),
    receives: receivesEvents(subscription),
  };
}

/**
 * The entries a subscription's routing consists of at its current version: one per pattern it
 * was ever routed under and not yet pruned (`routedPatterns`, a superset of its event types),
 * live where it still has the pattern and takes deliveries.
 */
export function routeEntriesOf(subscription: Routed): readonly RouteEntry[] {
  const target = routeTargetOf(subscription);
  const patterns = new Set([...subscription.routedPatterns, ...subscription.eventTypes]);
  return [...patterns].sort().map((pattern) => ({
    pattern,
    version: subscription.routeVersion,
    live: target.receives && subscription.eventTypes.includes(pattern),
    target,
  }));
}

/** The patterns a subscription no longer needs entries for once its current version is written (tombstones from then on). */
export function prunablePatterns(subscription: Routed): readonly string[] {
  return subscription.routedPatterns.filter((p) => !subscription.eventTypes.includes(p));
}

/** Whether a subscription takes an event of `type` now: its state takes deliveries and its event types select the type. */
export function takesType(target: RouteTarget, type: string): boolean {
  return target.receives && subscriptionSelects(target, type);
}

/**
 * The subscriptions an event reaches, from the entries of its lookup. Each subscription is
 * judged by its newest entry (several of its patterns can be found, written by different
 * versions while a change is under way): the target as of that version must take deliveries,
 * select the type and be in the audience. Never anything outside the audience, whatever the
 * entries say. In id order, so a publish is repeatable.
 */
export function resolveTargets(
  entries: readonly RouteEntry[],
  audience: Audience,
  type: string,
): readonly RouteTarget[] {
  const newest = new Map<string, RouteEntry>();
  for (const e of entries) {
    const seen = newest.get(e.target.id);
    if (!seen || e.version > seen.version) newest.set(e.target.id, e);
  }
  return [...newest.values()]
    .map((e) => e.target)
    .filter((t) => takesType(t, type) && inAudience(audience, t))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
