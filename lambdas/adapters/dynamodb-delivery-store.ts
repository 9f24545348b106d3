import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { withLastResponse } from '#domain/attempt-log.ts';
import { DEFAULT_RETENTION, ttlFor, type RetentionPolicy } from '#domain/retention.ts';
import {
  isDeadLetter,
  isLive,
  STATE,
  statesAllowing,
  targetOf,
  type DeliveryAction,
  type DeliveryState,
} from '#domain/states.ts';
import { filterVerdict } from '#domain/delivery-filter.ts';
import { deliveryIdParts, idOfListKey, lastListKeyAt } from '#domain/ids.ts';
import type { Delivery, Expectation } from '#domain/types.ts';
import { INDEXES, TABLES } from '#config/topology.ts';
import {
  writtenFields,
  type DeliveryPage,
  type DeliveryStore,
  type DueDelivery,
  type RowAction,
  type SubscriptionPageRequest,
} from '#ports/delivery-store.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import {
  activeDueKey,
  activeShardKey,
  activeShardKeys,
  deadLetterShardKey,
  deadLetterShardKeys,
  deliveryKey,
  subscriptionDeadLetterShardKey,
  subscriptionDeadLetterShardKeys,
  subscriptionShardKeys,
  type DeliveryKey,
} from './delivery-keys.ts';
import { conditionHeld, ifConditionHolds } from './dynamodb.ts';
import { decodePosition, encodePosition, ShardedReader, type ShardedIndex } from './sharded-query.ts';
import { updateExpression } from './update-expression.ts';

/** BatchGets one getMany has in flight: quick for a sweeper pass, without a burst that throttles the table. */
const BATCH_GETS_IN_FLIGHT = 4;

type Key = Record<string, string | number>;

const TABLE_KEYS = [TABLES.deliveries.partitionKey.name, TABLES.deliveries.sortKey!.name] as const;

/** An index of the deliveries table as topology.ts declares it: its name and key attributes, read there, not restated. */
function declared(
  indexName: string,
): Pick<ShardedIndex, 'indexName' | 'tableKeys' | 'partitionAttribute' | 'sortAttribute'> {
  const def = TABLES.deliveries.indexes.find((i) => i.indexName === indexName)!;
  return {
    indexName,
    tableKeys: TABLE_KEYS,
    partitionAttribute: def.partitionKey.name,
    sortAttribute: def.sortKey!.name,
  };
}

/** The sharded listings of a deliveries table, as the merged reader reads them (delivery-keys.ts makes their partition values). */
export const deliveryIndexes = {
  /** One subscription's deliveries by creation: the table's own partitions, `createdFrom`…`createdTo` both included. */
  bySubscription: (
    table: string,
    subscriptionId: string,
    order: ShardedIndex['order'],
    created?: { readonly from?: string | undefined; readonly to?: string | undefined },
  ): ShardedIndex => ({
    table,
    tableKeys: TABLE_KEYS,
    partitionAttribute: TABLE_KEYS[0],
    sortAttribute: TABLE_KEYS[1],
    partitions: subscriptionShardKeys(subscriptionId),
    order,
    ...(created
      ? { range: { from: created.from, to: created.to === undefined ? undefined : lastListKeyAt(created.to) } }
      : {}),
  }),
  deadLetters: (
    table: string,
    subscriptionId: string | undefined,
    order: ShardedIndex['order'],
    range?: ShardedIndex['range'],
    keysOnly = false,
  ): ShardedIndex => ({
    table,
    order,
    keysOnly,
    ...(range ? { range } : {}),
    ...(subscriptionId === undefined
      ? { ...declared(INDEXES.deliveries.deadLetters), partitions: deadLetterShardKeys() }
      : {
          ...declared(INDEXES.deliveries.deadLettersBySubscription),
          partitions: subscriptionDeadLetterShardKeys(subscriptionId),
        }),
  }),
};

/**
 * Strips the index bookkeeping attributes so callers see a plain Delivery (its last response
 * read back from its latest attempt); a live row's due instant is `dueAt`, its `nextAttemptAt`
 * the index's minute (a row an earlier version wrote has the instant there and no `dueAt`).
 */
function toDelivery(item: Record<string, unknown>): Delivery {
  const {
    activeShard: _a,
    subscriptionShard: _l,
    listKey: _k,
    dlShard: _d,
    dlSubscriptionShard: _s,
    expiresAt: _e,
    dueAt,
    ...rest
  } = item;
  const row = dueAt === undefined ? rest : { ...rest, nextAttemptAt: dueAt };
  return withLastResponse(row as unknown as Delivery);
}

/**
 * The state half of every conditional write: the item must be in one of the states the domain's
 * diagram allows `action` from (`#state IN (...)`), so the rule lives in domain/states.ts only.
 */
function stateCondition(action: DeliveryAction): {
  readonly condition: string;
  readonly values: Record<string, string>;
} {
  const from = statesAllowing(action);
  return {
    condition: `#state IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
    values: Object.fromEntries(from.map((state, i) => [`:from${i}`, state])),
  };
}

/**
 * The index attributes a delivery in `state` carries: live ones sit in `active`, keyed on the
 * minute they are due (ACTIVE_DUE_BUCKET_SECONDS; the instant in `dueAt`, which no index
 * holds, so a retry due within the same minute writes no index entry), dead ones in the
 * dead-letter indexes. Its TTL follows the deployment's retention: for a delivered row nobody
 * archives it is how the row goes.
 */
export function indexAttributes(
  d: Pick<Delivery, 'id' | 'subscriptionId' | 'nextAttemptAt'>,
  state: DeliveryState,
  updatedAt: string,
  retention: RetentionPolicy = DEFAULT_RETENTION,
) {
  const { id, subscriptionId, nextAttemptAt } = d;
  const live = isLive(state);
  const dead = isDeadLetter(state);
  return {
    activeShard: live ? activeShardKey(id) : undefined,
    ...(live ? liveDue(nextAttemptAt) : { nextAttemptAt, dueAt: undefined }),
    dlShard: dead ? deadLetterShardKey(id) : undefined,
    dlSubscriptionShard: dead ? subscriptionDeadLetterShardKey(subscriptionId, id) : undefined,
    expiresAt: ttlFor(state, Date.parse(updatedAt), retention),
  };
}

/** A live row's due time as stored: its minute in `nextAttemptAt` (the `active` index's sort key), the instant in `dueAt`. */
function liveDue(dueAt: string): { readonly nextAttemptAt: string; readonly dueAt: string } {
  return { nextAttemptAt: activeDueKey(dueAt), dueAt };
}

/**
 * The table key of a delivery about to be written whole. Its id says its subscription and
 * creation time, and the row must say the same: a row keyed apart from what it holds would be
 * listed under another subscription or time.
 */
export function keyOfRow(d: Pick<Delivery, 'id' | 'subscriptionId' | 'createdAt'>): DeliveryKey {
  const parts = deliveryIdParts(d.id);
  if (!parts || parts.subscriptionId !== d.subscriptionId || parts.createdAt !== d.createdAt) {
    throw new Error(
      `delivery ${d.id} is not the id of a delivery of ${d.subscriptionId} created at ${d.createdAt} (domain/ids.ts deliveryIdFor)`,
    );
  }
  return deliveryKey(d.id)!;
}

/**
 * Every attribute a whole row written in `state` carries beyond the delivery: its key, which is
 * its place in its subscription's listing, and the state's index attributes.
 */
export function rowAttributes(
  d: Pick<Delivery, 'id' | 'subscriptionId' | 'createdAt' | 'nextAttemptAt'>,
  state: DeliveryState,
  updatedAt: string,
  retention: RetentionPolicy = DEFAULT_RETENTION,
) {
  return { ...keyOfRow(d), ...indexAttributes(d, state, updatedAt, retention) };
}

export interface DeliveryStoreOptions {
  /** The retention the rows' TTL follows. @default DEFAULT_RETENTION */
  readonly retention?: RetentionPolicy;
}

export class DynamoDbDeliveryStore implements DeliveryStore {
  private readonly retention: RetentionPolicy;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    options: DeliveryStoreOptions = {},
  ) {
    this.retention = options.retention ?? DEFAULT_RETENTION;
  }

  async write(action: RowAction, row: Delivery, expect: Expectation): Promise<boolean> {
    const state = targetOf(action);
    if (expect.row === 'none') {
      // The first write of a delivery's attempt, whole: its outcome, or the row it waits in; over a row written before any attempt too.
      const { lastResponse: _once, ...item } = row;
      return conditionHeld(
        this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: { ...item, state, ...rowAttributes(row, state, row.updatedAt, this.retention) },
            ConditionExpression: 'attribute_not_exists(id) OR (#state = :pending AND #attemptSeq = :zero)',
            ExpressionAttributeNames: { '#state': 'state', '#attemptSeq': 'attemptSeq' },
            ExpressionAttributeValues: { ':pending': STATE.pending, ':zero': 0 },
          }),
        ),
      );
    }
    return this.transition(row.id, action, {
      set: {
        ...writtenFields(action, row),
        ...indexAttributes(row, state, row.updatedAt, this.retention),
      },
      condition: '#attemptSeq = :seq',
      values: { ':seq': expect.attemptSeq },
    });
  }

  async get(id: string): Promise<Delivery | undefined> {
    const key = deliveryKey(id);
    if (!key) return undefined;
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? toDelivery(out.Item) : undefined;
  }

  async getMany(ids: readonly string[], read: 'consistent' | 'eventual' = 'consistent'): Promise<readonly Delivery[]> {
    // Each id once, in the order first asked: BatchGetItem refuses duplicate keys and answers in no order. An id no row can have is skipped.
    const unique = [...new Set(ids)].filter((id) => deliveryKey(id) !== undefined);
    const found: Delivery[] = [];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
    // A few BatchGets at once: a sweeper pass reads thousands of rows, one call after another would take seconds.
    let next = 0;
    const reader = async () => {
      while (next < chunks.length) {
        let keys: Record<string, unknown>[] | undefined = chunks[next++]!.map((id) => ({ ...deliveryKey(id)! }));
        for (let round = 0; keys && keys.length > 0; round++) {
          if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** round)));
          const out: BatchGetCommandOutput = await this.db.send(
            new BatchGetCommand({
              RequestItems: { [this.table]: { Keys: keys, ConsistentRead: read === 'consistent' } },
            }),
          );
          found.push(...(out.Responses?.[this.table] ?? []).map(toDelivery));
          keys = out.UnprocessedKeys?.[this.table]?.Keys;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_GETS_IN_FLIGHT, chunks.length) }, reader));
    const order = new Map(unique.map((id, i) => [id, i]));
    return found.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  /** Only for a row an earlier version left claimed: this version claims nothing. */
  release(id: string, seq: number, nowIso: string): Promise<boolean> {
    return this.transition(id, 'release', {
      set: {
        ...liveDue(nowIso),
        updatedAt: nowIso,
        leaseUntil: undefined,
        lastError: 'released: the worker holding this attempt stopped answering',
      },
      condition: '#attemptSeq = :seq AND #leaseUntil < :now',
      values: { ':seq': seq, ':now': nowIso },
    });
  }

  async replay(
    id: string,
    nowIso: string,
    giveUpAtIso: string,
    nextAttemptAtIso: string = nowIso,
  ): Promise<Delivery | undefined> {
    const key = deliveryKey(id);
    if (!key) return undefined;
    const from = stateCondition('replay');
    const expr = updateExpression(
      {
        state: targetOf('replay'),
        attempts: 0,
        ...liveDue(nextAttemptAtIso),
        giveUpAt: giveUpAtIso,
        updatedAt: nowIso,
        activeShard: activeShardKey(id),
      },
      ['lastError', 'dlShard', 'dlSubscriptionShard', 'expiresAt'],
    );
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          ...expr,
          ConditionExpression: from.condition,
          ExpressionAttributeValues: { ...expr.ExpressionAttributeValues, ...from.values },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return out && toDelivery(out.Attributes!);
  }

  /**
   * A page is read from the subscription's partitions of the table, merged in creation order
   * (whole rows, consistently: no index to lag). The time range is the key condition (the sort
   * key starts with the creation time), so only rows inside it are read. State and event type
   * are not in the key: rows are filtered as they are read, which is what a FilterExpression
   * would cost too (DynamoDB charges for the items read before its filter), and keeps the rule
   * in filterVerdict alone.
   */
  async listBySubscription(request: SubscriptionPageRequest): Promise<DeliveryPage> {
    const index = deliveryIndexes.bySubscription(
      this.table,
      request.subscriptionId,
      request.order === 'oldest' ? 'ascending' : 'descending',
      request.since !== undefined || request.until !== undefined
        ? { from: request.since, to: request.until }
        : undefined,
    );
    // A cursor is a position among one subscription's partitions: another's would read another listing.
    const reader = new ShardedReader(this.db, index, decodePosition(request.cursor, index));
    const items: Delivery[] = [];
    const itemCursors: string[] = [];
    let last: string | undefined;
    while (items.length < request.limit && !reader.done) {
      for (const { item, position } of await reader.next(request.limit - items.length)) {
        last = encodePosition(position);
        const d = toDelivery(item);
        if (filterVerdict(d, request) === 'out') continue;
        items.push(d);
        // An item's own position is the cursor that reads on right after it.
        itemCursors.push(last);
      }
    }
    return !reader.done && last ? { items, itemCursors, nextCursor: last } : { items, itemCursors };
  }

  /** Newest first, over every dead-letter shard (or the subscription's): no day partitions to walk. */
  async listDeadLetters(request: PageRequest & { subscriptionId?: string }): Promise<Page<Delivery>> {
    const index = deliveryIndexes.deadLetters(this.table, request.subscriptionId, 'descending');
    const reader = new ShardedReader(this.db, index, decodePosition(request.cursor, index));
    const page = await reader.next(request.limit);
    const items = page.map((m) => toDelivery(m.item));
    return !reader.done && page.length > 0 ? { items, nextCursor: encodePosition(page.at(-1)!.position) } : { items };
  }

  async listDue(beforeIso: string, limit: number): Promise<readonly DueDelivery[]> {
    const active = declared(INDEXES.deliveries.active);
    const due: DueDelivery[] = [];
    for (const shard of activeShardKeys()) {
      if (due.length >= limit) break;
      let key: Key | undefined;
      do {
        const out = await this.db.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: INDEXES.deliveries.active,
            KeyConditionExpression: '#pk = :pk AND #sk < :before',
            ExpressionAttributeNames: { '#pk': active.partitionAttribute, '#sk': active.sortAttribute },
            ExpressionAttributeValues: { ':pk': shard, ':before': beforeIso },
            Limit: limit - due.length,
            ExclusiveStartKey: key,
          }),
        );
        for (const item of out.Items ?? []) due.push({ id: idOfListKey(item[TABLE_KEYS[1]] as string) });
        key = out.LastEvaluatedKey as Key | undefined;
      } while (key && due.length < limit);
    }
    return due;
  }

  /**
   * One edge of the state diagram as one conditional write: `#state IN (statesAllowing(action))`
   * AND the caller's own condition, and `state = targetOf(action)` with the caller's updates.
   */
  private async transition(
    id: string,
    action: DeliveryAction,
    spec: { set: Record<string, unknown>; condition: string; values: Record<string, unknown> },
  ): Promise<boolean> {
    const key = deliveryKey(id);
    if (!key) return false;
    const from = stateCondition(action);
    const expr = updateExpression({ state: targetOf(action), ...spec.set });
    const condition = `${from.condition} AND ${spec.condition}`;
    const conditionNames = Object.fromEntries(
      [...condition.matchAll(/#(\w+)/g)].map(([alias, name]) => [alias, name!]),
    );
    return conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          ...expr,
          ConditionExpression: condition,
          ExpressionAttributeNames: { ...expr.ExpressionAttributeNames, ...conditionNames },
          ExpressionAttributeValues: { ...expr.ExpressionAttributeValues, ...from.values, ...spec.values },
        }),
      ),
    );
  }
}
