import { randomUUID } from 'node:crypto';
import type { Audience } from '#domain/audience.ts';
import { patternSegment, routeEntriesOf, type RouteEntry } from '#domain/routing.ts';
import type { Subscription } from '#domain/types.ts';
import type { RouteIndexStatus, RouteIntent, RouteStore } from '#ports/route-store.ts';

const audienceKey = (tenantId: string | undefined) => (tenantId === undefined ? 'p' : `t:${tenantId}`);

/**
 * The routing index as DynamoDbRouteStore keeps it: entries keyed on (audience, segment,
 * pattern, subscription), each put refused unless its version is newer than the one held.
 * Uncached, so a test sees each write at once.
 */
export class InMemoryRouteStore implements RouteStore {
  readonly entries = new Map<string, RouteEntry>();
  readonly intentsNoted = new Map<string, RouteIntent>();
  statusHeld: RouteIndexStatus | undefined;

  async lookup(audience: Audience, segments: readonly string[]): Promise<readonly RouteEntry[]> {
    return [...this.entries.values()]
      .filter(
        (e) =>
          segments.includes(patternSegment(e.pattern)) &&
          (audience.kind === 'all' ||
            audienceKey(e.target.tenantId) === audienceKey(audience.kind === 'tenant' ? audience.tenantId : undefined)),
      )
      .map((e) => structuredClone(e));
  }

  async put(entries: readonly RouteEntry[]): Promise<void> {
    for (const e of entries) {
      const key = `${audienceKey(e.target.tenantId)}|${e.pattern} ${e.target.id}`;
      const held = this.entries.get(key);
      if (!held || held.version < e.version) this.entries.set(key, structuredClone(e));
    }
  }

  async noteIntent(subscriptionId: string, nowIso: string): Promise<RouteIntent> {
    const intent = { subscriptionId, key: randomUUID(), at: nowIso };
    this.intentsNoted.set(intent.key, intent);
    return intent;
  }

  async clearIntent(intent: RouteIntent): Promise<void> {
    this.intentsNoted.delete(intent.key);
  }

  async intents(beforeIso: string, limit: number): Promise<readonly RouteIntent[]> {
    return [...this.intentsNoted.values()]
      .filter((i) => i.at < beforeIso)
      .sort((a, b) => (a.at < b.at ? -1 : 1))
      .slice(0, limit);
  }

  async status(): Promise<RouteIndexStatus | undefined> {
    return this.statusHeld;
  }

  async setStatus(status: RouteIndexStatus): Promise<void> {
    if (this.statusHeld?.kind !== 'built') this.statusHeld = status;
  }
}

/**
 * For service unit tests that seed subscriptions straight into the in-memory subscription
 * store: an index that is always exactly up to date, its entries derived from the rows as they
 * stand (what the routing writes converge to). Built from the start. The writes themselves are
 * tested on InMemoryRouteStore and DynamoDbRouteStore (test/support/route-store-contract.ts).
 */
export class SyncedRouteStore extends InMemoryRouteStore {
  constructor(private readonly rows: ReadonlyMap<string, Subscription>) {
    super();
    this.statusHeld = { kind: 'built', at: '2024-01-01T00:00:00.000Z', indexed: 0 };
  }

  override async lookup(audience: Audience, segments: readonly string[]): Promise<readonly RouteEntry[]> {
    this.entries.clear();
    await this.put(
      [...this.rows.values()].flatMap((s) =>
        routeEntriesOf({ ...s, routeVersion: s.routeVersion ?? 1, routedPatterns: s.routedPatterns ?? [] }),
      ),
    );
    return super.lookup(audience, segments);
  }
}
