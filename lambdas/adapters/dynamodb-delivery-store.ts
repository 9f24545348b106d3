import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ttlFor } from '#domain/retention.ts';
import { isDeadLetter, isLive, statesAllowing, targetOf, type DeliveryAction, type DeliveryState } from '#domain/states.ts';
import { deliveryIdParts, idOfListKey, lastListKeyAt } from '#domain/ids.ts';
import type { Delivery, RecordedAttempt } from '#domain/types.ts';
import { INDEXES, TABLES } from '#config/topology.ts';
import { completionAttributes, type ClaimResult, type Completion, type DeliveryPage, type DeliveryStore, type DueDelivery } from '#ports/delivery-store.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import { activeShardKey, activeShardKeys, deadLetterShardKey, deadLetterShardKeys, deliveryKey, subscriptionDeadLetterShardKey, subscriptionDeadLetterShardKeys, subscriptionShardKeys, type DeliveryKey } from './delivery-keys.ts';
import { conditionHeld, ifConditionHolds, isConditionFailure } from './dynamodb.ts';
import { decodePosition, encodePosition, ShardedReader, type ShardedIndex } from './sharded-query.ts';
import { updateExpression } from './update-expression.ts';

type Key = Record<string, string | number>;

const TABLE_KEYS = [TABLES.deliveries.partitionKey.name, TABLES.deliveries.sortKey!.name] as const;

/** An index of the deliveries table as topology.ts declares it: its name and key attributes, read there, not restated. */
function declared(indexName: string): Pick<ShardedIndex, 'indexName' | 'tableKeys' | 'partitionAttribute' | 'sortAttribute'> {
  const def = TABLES.deliveries.indexes.find((i) => i.indexName === indexName)!;
  return { indexName, tableKeys: TABLE_KEYS, partitionAttribute: def.partitionKey.name, sortAttribute: def.sortKey!.name };
}

/** The sharded listings of a deliveries table, as the merged reader reads them (delivery-keys.ts makes their partition values). */
export const deliveryIndexes = {
  /** One subscription's deliveries by creation: the table's own partitions, `createdFrom`…`createdTo` both included. */
  bySubscription: (table: string, subscriptionId: string, order: ShardedIndex['order'], created?: { readonly from?: string | undefined; readonly to?: string | undefined }): ShardedIndex => ({
    table, tableKeys: TABLE_KEYS, partitionAttribute: TABLE_KEYS[0], sortAttribute: TABLE_KEYS[1], partitions: subscriptionShardKeys(subscriptionId), order,
    ...(created ? { range: { from: created.from, to: created.to === undefined ? undefined : lastListKeyAt(created.to) } } : {}),
  }),
  deadLetters: (table: string, subscriptionId: string | undefined, order: ShardedIndex['order'], range?: ShardedIndex['range'], keysOnly = false): ShardedIndex => ({
    table, order, keysOnly, ...(range ? { range } : {}),
    ...(subscriptionId === undefined
      ? { ...declared(INDEXES.deliveries.deadLetters), partitions: deadLetterShardKeys() }
      : { ...declared(INDEXES.deliveries.deadLettersBySubscription), partitions: subscriptionDeadLetterShardKeys(subscriptionId) }),
  }),
};

/**
 * Strips the index bookkeeping attributes so callers see a plain Delivery. A row whose only
 * attempt is its inline first one keeps that response once (recordFirst leaves `lastResponse`
 * out when it is the same text), so it is read back from there.
 */
function toDelivery(item: Record<string, unknown>): Delivery {
  const { activeShard: _a, subscriptionShard: _l, listKey: _k, dlShard: _d, dlSubscriptionShard: _s, expiresAt: _e, ...rest } = item;
  const d = rest as unknown as Delivery;
  const inherited = d.lastResponse === undefined && d.attemptSeq === 1 ? d.firstAttempt?.responseSnippet : undefined;
  return inherited === undefined ? d : { ...d, lastResponse: inherited };
}

/**
 * The state half of every conditional write: the item must be in one of the states the domain's
 * diagram allows `action` from (`#state IN (...)`), so the rule lives in domain/states.ts only.
 */
function stateCondition(action: DeliveryAction): { readonly condition: string; readonly values: Record<string, string> } {
  const from = statesAllowing(action);
  return {
    condition: `#state IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
    values: Object.fromEntries(from.map((state, i) => [`:from${i}`, state])),
  };
}

/** The index attributes a delivery in `state` carries: live ones sit in `active`, dead ones in the dead-letter indexes. */
export function indexAttributes(id: string, subscriptionId: string, state: DeliveryState, updatedAt: string) {
  const live = isLive(state);
  const dead = isDeadLetter(state);
  return {
    activeShard: live ? activeShardKey(id) : undefined,
    dlShard: dead ? deadLetterShardKey(id) : undefined,
    dlSubscriptionShard: dead ? subscriptionDeadLetterShardKey(subscriptionId, id) : undefined,
    expiresAt: ttlFor(state, Date.parse(updatedAt)),
  };
}

/**
 * The table key of a delivery about to be written whole. Its id says its subscription and
 * creation time, and the row must say the same: a row keyed apart from what it holds would be
 * listed under another subscription or time.
 */
export function keyOfRow(d: Pick<Delivery, 'id' | 'subscriptionId' | 'createdAt'>): DeliveryKey {
  const parts = deliveryIdParts(d.id);
  if (!parts || parts.subscriptionId !== d.subscriptionId || parts.createdAt !== d.createdAt) {
    throw new Error(`delivery ${d.id} is not the id of a delivery of ${d.subscriptionId} created at ${d.createdAt} (domain/ids.ts deliveryIdFor)`);
  }
  return deliveryKey(d.id)!;
}

/**
 * Every attribute a whole row written in `state` carries beyond the delivery: its key, which is
 * its place in its subscription's listing, and the state's index attributes.
 */
export function rowAttributes(d: Pick<Delivery, 'id' | 'subscriptionId' | 'createdAt'>, state: DeliveryState, updatedAt: string) {
  return { ...keyOfRow(d), ...indexAttributes(d.id, d.subscriptionId, state, updatedAt) };
}

export class DynamoDbDeliveryStore implements DeliveryStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(d: Delivery, options: { readonly waiting?: boolean } = {}): Promise<boolean> {
    const index = rowAttributes(d, d.state, d.updatedAt);
    return conditionHeld(this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...d, ...index, ...(options.waiting === false ? { activeShard: undefined } : {}) },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    ));
  }

  async recordFirst(attempted: Delivery, c: Completion): Promise<boolean> {
    const state = targetOf(c.action);
    const from = stateCondition('claim');
    const item = { ...attempted, ...completionAttributes(c), state, ...rowAttributes(attempted, state, c.updatedAt) };
    // The response is kept once: the inline attempt holds it, toDelivery reads it back from there.
    if (item.lastResponse !== undefined && item.lastResponse === attempted.firstAttempt?.responseSnippet) item.lastResponse = undefined;
    return conditionHeld(this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: item,
        ConditionExpression: `attribute_not_exists(id) OR (${from.condition} AND #attemptSeq = :unattempted)`,
        ExpressionAttributeNames: { '#state': 'state', '#attemptSeq': 'attemptSeq' },
        ExpressionAttributeValues: { ...from.values, ':unattempted': 0 },
      }),
    ));
  }

  async get(id: string): Promise<Delivery | undefined> {
    const key = deliveryKey(id);
    if (!key) return undefined;
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? toDelivery(out.Item) : undefined;
  }

  async getMany(ids: readonly string[]): Promise<readonly Delivery[]> {
    // Each id once, in the order first asked: BatchGetItem refuses duplicate keys and answers in no order. An id no row can have is skipped.
    const unique = [...new Set(ids)].filter((id) => deliveryKey(id) !== undefined);
    const found: Delivery[] = [];
    for (let i = 0; i < unique.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((id) => ({ ...deliveryKey(id)! }));
      for (let round = 0; keys && keys.length > 0; round++) {
        if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** round)));
        const out: BatchGetCommandOutput = await this.db.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }));
        found.push(...(out.Responses?.[this.table] ?? []).map(toDelivery));
        keys = out.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    const order = new Map(unique.map((id, i) => [id, i]));
    return found.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  async claim(id: string, nowIso: string, leaseUntilIso: string): Promise<ClaimResult> {
    const key = deliveryKey(id);
    if (!key) return { kind: 'not_claimable' };
    const from = stateCondition('claim');
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          // The lease goes in its own attribute: moving nextAttemptAt (the active index's sort key)
          // would cost a GSI delete + insert on every claim.
          // `activeShard` too: a fresh row (created out of view) enters the sweeper's index once claimed, so a worker that dies holding it is found.
          UpdateExpression: 'SET #state = :to, #lease = :lease, #updatedAt = :now, #shard = :shard ADD #attempts :one, #attemptSeq :one',
          // A recorded retry's hold (leaseUntil on a pending row) keeps other copies off until it passes.
          ConditionExpression: `${from.condition} AND #next <= :now AND (attribute_not_exists(#lease) OR #lease < :now)`,
          ExpressionAttributeNames: { '#state': 'state', '#next': 'nextAttemptAt', '#lease': 'leaseUntil', '#updatedAt': 'updatedAt', '#attempts': 'attempts', '#attemptSeq': 'attemptSeq', '#shard': 'activeShard' },
          ExpressionAttributeValues: { ':to': targetOf('claim'), ...from.values, ':lease': leaseUntilIso, ':now': nowIso, ':one': 1, ':shard': activeShardKey(id) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { kind: 'claimed', delivery: toDelivery(out.Attributes!) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.get(id);
      return current ? { kind: 'not_claimable', current } : { kind: 'not_claimable' };
    }
  }

  complete(claimed: Delivery, c: Completion): Promise<boolean> {
    const state = targetOf(c.action);
    return this.transition(claimed.id, c.action, {
      set: {
        ...completionAttributes(c),
        ...indexAttributes(claimed.id, claimed.subscriptionId, state, c.updatedAt),
      },
      // The claim is still this worker's: no release (and re-claim) happened meanwhile.
      condition: '#attemptSeq = :seq',
      values: { ':seq': claimed.attemptSeq },
    });
  }

  recordUnclaimed(attempted: Delivery, c: Completion, found: RecordedAttempt): Promise<boolean> {
    const state = targetOf(c.action);
    return this.transition(attempted.id, c.action, {
      set: { ...completionAttributes(c), attemptSeq: attempted.attemptSeq, ...indexAttributes(attempted.id, attempted.subscriptionId, state, c.updatedAt) },
      condition: '#attemptSeq = :seq AND #nextAttemptAt = :expected',
      values: { ':seq': found.attemptSeq, ':expected': found.nextAttemptAt },
    }, 'claim');
  }

  reschedule(id: string, expectedNextAttemptAt: string, nextAttemptAt: string, nowIso: string): Promise<boolean> {
    return this.transition(id, 'reschedule', {
      // In view of the sweeper from here on, also when it was a fresh row out of view.
      set: { nextAttemptAt, updatedAt: nowIso, activeShard: activeShardKey(id), leaseUntil: undefined },
      condition: '#nextAttemptAt = :expected',
      values: { ':expected': expectedNextAttemptAt },
    });
  }

  release(id: string, seq: number, nowIso: string): Promise<boolean> {
    return this.transition(id, 'release', {
      set: { nextAttemptAt: nowIso, updatedAt: nowIso, leaseUntil: undefined, lastError: 'released: the worker holding this attempt stopped answering' },
      condition: '#attemptSeq = :seq AND #leaseUntil < :now',
      values: { ':seq': seq, ':now': nowIso },
    });
  }

  expire(delivery: Delivery, reason: string, nowIso: string): Promise<boolean> {
    return this.transition(delivery.id, 'expire', {
      set: { lastError: reason, updatedAt: nowIso, ...indexAttributes(delivery.id, delivery.subscriptionId, targetOf('expire'), nowIso) },
      condition: '#nextAttemptAt = :expected',
      values: { ':expected': delivery.nextAttemptAt },
    });
  }

  async replay(id: string, nowIso: string, giveUpAtIso: string, nextAttemptAtIso: string = nowIso): Promise<Delivery | undefined> {
    const key = deliveryKey(id);
    if (!key) return undefined;
    const from = stateCondition('replay');
    const expr = updateExpression(
      { state: targetOf('replay'), attempts: 0, nextAttemptAt: nextAttemptAtIso, giveUpAt: giveUpAtIso, updatedAt: nowIso, activeShard: activeShardKey(id) },
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
   * (whole rows, consistently: no index to lag) and filtered by state.
   */
  async listBySubscription(request: PageRequest & { subscriptionId: string; state?: DeliveryState; order?: 'newest' | 'oldest' }): Promise<DeliveryPage> {
    const index = deliveryIndexes.bySubscription(this.table, request.subscriptionId, request.order === 'oldest' ? 'ascending' : 'descending');
    // A cursor is a position among one subscription's partitions: another's would read another listing.
    const reader = new ShardedReader(this.db, index, decodePosition(request.cursor, index));
    const items: Delivery[] = [];
    const itemCursors: string[] = [];
    let last: string | undefined;
    while (items.length < request.limit && !reader.done) {
      for (const { item, position } of await reader.next(request.limit - items.length)) {
        last = encodePosition(position);
        const d = toDelivery(item);
        if (request.state && d.state !== request.state) continue;
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
        for (const item of out.Items ?? []) due.push({ id: idOfListKey(item[TABLE_KEYS[1]] as string), nextAttemptAt: item[active.sortAttribute] as string });
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
    /** The edge whose source states the row must be in, when not `action`'s own (an unclaimed attempt's: the claim's). */
    fromAction: DeliveryAction = action,
  ): Promise<boolean> {
    const key = deliveryKey(id);
    if (!key) return false;
    const from = stateCondition(fromAction);
    const expr = updateExpression({ state: targetOf(action), ...spec.set });
    const condition = `${from.condition} AND ${spec.condition}`;
    const conditionNames = Object.fromEntries(
      [...condition.matchAll(/#(\w+)/g)].map(([alias, name]) => [alias, name!]),
    );
    return conditionHeld(this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        ...expr,
        ConditionExpression: condition,
        ExpressionAttributeNames: { ...expr.ExpressionAttributeNames, ...conditionNames },
        ExpressionAttributeValues: { ...expr.ExpressionAttributeValues, ...from.values, ...spec.values },
      }),
    ));
  }
}
