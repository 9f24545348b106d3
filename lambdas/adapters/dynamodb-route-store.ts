import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Audience } from '#domain/audience.ts';
import { patternSegment, type RouteEntry, type RouteTarget } from '#domain/routing.ts';
import { INDEXES, ROUTE_INTENT_SHARDS } from '#config/topology.ts';
import { shardOf } from './delivery-keys.ts';
import type { RouteIndexStatus, RouteIntent, RouteStore } from '#ports/route-store.ts';
import { conditionHeld } from './dynamodb.ts';

/** A tombstone (an entry no longer live) stays this long, far beyond any writer that could still hold an older version. */
const TOMBSTONE_TTL_SECONDS = 7 * 86_400;
/**
 * The intents' partitions: `#intent#0` … `#15`, by a hash of the subscription id, so a bulk import
 * is not held to one partition's 1,000 writes a second. `#intent` alone is where a version before
 * the shards noted them: still read, and an intent found there is cleared there.
 */
const INTENTS = '#intent';
const intentPartition = (subscriptionId: string) => `${INTENTS}#${shardOf(subscriptionId, ROUTE_INTENT_SHARDS)}`;
const INTENT_PARTITIONS = [INTENTS, ...Array.from({ length: ROUTE_INTENT_SHARDS }, (_, k) => `${INTENTS}#${k}`)];
/** Marks, in its key, an intent read from the unsharded partition, so clearIntent deletes it there. */
const UNSHARDED = 'unsharded:';
const STATUS = '#status';
/** The key of the index's build status item. */
export const ROUTE_STATUS_KEY = { route: STATUS, entry: STATUS } as const;

/** The partition a tenant's (or the producer's) patterns of one segment live in: `t:<tenant>|<segment>`, `p|<segment>`. */
function routePartition(tenantId: string | undefined, segment: string): string {
  // '|' is in neither a tenant id (schema/common.ts) nor a pattern (domain/event-types.ts).
  return `${tenantId === undefined ? 'p' : `t:${tenantId}`}|${segment}`;
}

/** Within a partition: one item per (pattern, subscription); a space is in neither. */
const entryKey = (pattern: string, subscriptionId: string) => `${pattern} ${subscriptionId}`;

interface EntryItem {
  readonly route: string;
  readonly entry: string;
  /** The GSI `bySegment` key: a broadcast (every tenant) reads a segment across all audiences. */
  readonly segment: string;
  readonly pattern: string;
  readonly v: number;
  readonly live: boolean;
  readonly target: RouteTarget;
  readonly expiresAt?: number;
}

const fromItem = (item: Record<string, unknown>): RouteEntry => {
  const e = item as unknown as EntryItem;
  return { pattern: e.pattern, version: e.v, live: e.live, target: e.target };
};

/**
 * The routing index in DynamoDB (topology TABLES.routes). Lookups are eventually consistent
 * queries of one partition each (half a read unit per 4 KB of entries), cached per container
 * for `cacheMs`: fan-out sees a subscription change within that time plus the index's
 * replication lag. Every entry write is conditional on its version, so of two changes of one
 * subscription written out of order the newer stays.
 */
export class DynamoDbRouteStore implements RouteStore {
  private readonly cache = new Map<string, { at: number; entries: Promise<readonly RouteEntry[]> }>();

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly cacheMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  async lookup(audience: Audience, segments: readonly string[]): Promise<readonly RouteEntry[]> {
    const reads =
      audience.kind === 'all'
        ? segments.map((s) =>
            this.cached(`*|${s}`, () =>
              this.query({
                IndexName: INDEXES.routes.bySegment,
                KeyConditionExpression: '#k = :k',
                ExpressionAttributeNames: { '#k': 'segment' },
                ExpressionAttributeValues: { ':k': s },
              }),
            ),
          )
        : segments.map((s) => {
            const route = routePartition(audience.kind === 'tenant' ? audience.tenantId : undefined, s);
            return this.cached(route, () =>
              this.query({
                KeyConditionExpression: '#k = :k',
                ExpressionAttributeNames: { '#k': 'route' },
                ExpressionAttributeValues: { ':k': route },
              }),
            );
          });
    return (await Promise.all(reads)).flat();
  }

  /** A read shared by every caller within `cacheMs` of its start (a batch's events mostly share a few partitions); a failed one is not kept. */
  private cached(key: string, read: () => Promise<readonly RouteEntry[]>): Promise<readonly RouteEntry[]> {
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.entries;
    const entries = read();
    if (this.cacheMs > 0) {
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(key, { at: this.now(), entries });
      entries.catch(() => {
        if (this.cache.get(key)?.entries === entries) this.cache.delete(key);
      });
    }
    return entries;
  }

  private async query(input: Omit<QueryCommandInput, 'TableName'>): Promise<readonly RouteEntry[]> {
    const found: RouteEntry[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(new QueryCommand({ TableName: this.table, ...input, ExclusiveStartKey: start }));
      found.push(...(out.Items ?? []).map(fromItem));
      start = out.LastEvaluatedKey;
    } while (start);
    return found;
  }

  async put(entries: readonly RouteEntry[]): Promise<void> {
    const expiresAt = Math.floor(this.now() / 1000) + TOMBSTONE_TTL_SECONDS;
    await Promise.all(
      entries.map((e) => {
        const segment = patternSegment(e.pattern);
        const item: EntryItem = {
          route: routePartition(e.target.tenantId, segment),
          entry: entryKey(e.pattern, e.target.id),
          segment,
          pattern: e.pattern,
          v: e.version,
          live: e.live,
          target: e.target,
          ...(e.live ? {} : { expiresAt }),
        };
        // Refused when the index already holds this version or a newer one: nothing to do.
        return conditionHeld(
          this.db.send(
            new PutCommand({
              TableName: this.table,
              Item: item,
              ConditionExpression: 'attribute_not_exists(#v) OR #v < :v',
              ExpressionAttributeNames: { '#v': 'v' },
              ExpressionAttributeValues: { ':v': e.version },
            }),
          ),
        );
      }),
    );
    this.cache.clear();
  }

  async noteIntent(subscriptionId: string, nowIso: string): Promise<RouteIntent> {
    const intent: RouteIntent = { subscriptionId, key: randomUUID(), at: nowIso };
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { route: intentPartition(subscriptionId), entry: intentKey(intent), ...intent },
      }),
    );
    return intent;
  }

  async clearIntent(intent: RouteIntent): Promise<void> {
    const unsharded = intent.key.startsWith(UNSHARDED);
    const stored = unsharded ? { ...intent, key: intent.key.slice(UNSHARDED.length) } : intent;
    const route = unsharded ? INTENTS : intentPartition(intent.subscriptionId);
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { route, entry: intentKey(stored) } }));
  }

  /** Every partition read at once, each up to `limit`, merged oldest first. */
  async intents(beforeIso: string, limit: number): Promise<readonly RouteIntent[]> {
    const pages = await Promise.all(
      INTENT_PARTITIONS.map(async (route) => {
        const out = await this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#k = :k AND #e < :before',
            ExpressionAttributeNames: { '#k': 'route', '#e': 'entry' },
            ExpressionAttributeValues: { ':k': route, ':before': beforeIso },
            ConsistentRead: true,
            Limit: limit,
          }),
        );
        return (out.Items ?? []).map((i) => ({
          entry: i.entry as string,
          intent: {
            subscriptionId: i.subscriptionId as string,
            key: `${route === INTENTS ? UNSHARDED : ''}${i.key as string}`,
            at: i.at as string,
          },
        }));
      }),
    );
    return pages
      .flat()
      .sort((a, b) => (a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0))
      .slice(0, limit)
      .map((p) => p.intent);
  }

  async status(): Promise<RouteIndexStatus | undefined> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: ROUTE_STATUS_KEY, ConsistentRead: true }),
    );
    if (!out.Item) return undefined;
    const { route: _r, entry: _e, ...status } = out.Item;
    return status as unknown as RouteIndexStatus;
  }

  async setStatus(status: RouteIndexStatus): Promise<void> {
    // A built index stays built: a slower builder's progress never overwrites the one that finished.
    await conditionHeld(
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...ROUTE_STATUS_KEY, ...status },
          ConditionExpression: 'attribute_not_exists(#k) OR #k <> :built',
          ExpressionAttributeNames: { '#k': 'kind' },
          ExpressionAttributeValues: { ':built': 'built' },
        }),
      ),
    );
  }
}

/** Oldest first within the intents partition: `<at>#<subscription>#<key>`. */
const intentKey = (i: RouteIntent) => `${i.at}#${i.subscriptionId}#${i.key}`;
