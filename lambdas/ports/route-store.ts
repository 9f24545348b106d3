import type { Audience } from '#domain/audience.ts';
import type { RouteEntry } from '#domain/routing.ts';

/**
 * A change to a subscription's routing that has started and not yet been written to the index
 * (the subscription row first, then its entries): what the sweeper finishes when the writer
 * stopped in between.
 */
export interface RouteIntent {
  readonly subscriptionId: string;
  /** Tells this writer's intent from a concurrent one's for the same subscription. */
  readonly key: string;
  readonly at: string;
}

/**
 * Whether the index holds every subscription: false in a deployment that had subscriptions
 * before the index existed, until they have all been indexed (app/subscriptions/routing.ts,
 * `buildRoutes`); `cursor` is where that walk resumes.
 */
export type RouteIndexStatus =
  | { readonly kind: 'built'; readonly at: string; readonly indexed: number }
  | { readonly kind: 'building'; readonly indexed: number; readonly cursor?: string };

/**
 * The routing index: each subscription's entry per event-type pattern, keyed on (its audience,
 * the pattern's segment), so an event's subscriptions are a lookup of two keys
 * (domain/routing.ts `typeSegments`) however many subscriptions and tenants there are.
 */
export interface RouteStore {
  /**
   * The entries filed under these segments for the audience (every audience for `all`), stale
   * versions included (domain/routing.ts `resolveTargets` decides). May be served from a
   * per-container cache a few seconds old; writes through this instance are seen at once.
   */
  lookup(audience: Audience, segments: readonly string[]): Promise<readonly RouteEntry[]>;
  /** Writes each entry unless the index holds the same (subscription, pattern) at this version or a newer one. */
  put(entries: readonly RouteEntry[]): Promise<void>;
  noteIntent(subscriptionId: string, nowIso: string): Promise<RouteIntent>;
  clearIntent(intent: RouteIntent): Promise<void>;
  /** Intents noted before `beforeIso`, oldest first: their writer stopped, or is slow. */
  intents(beforeIso: string, limit: number): Promise<readonly RouteIntent[]>;
  status(): Promise<RouteIndexStatus | undefined>;
  /** Records the build's progress; never overwrites a `built` status (of two builders, the one that finished wins). */
  setStatus(status: RouteIndexStatus): Promise<void>;
}
