import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArchiveRecord } from '#domain/archive.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { isTerminal } from '#domain/states.ts';
import type { Delivery, EventRecord, RestoreMarker } from '#domain/types.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { DynamoDbDeliveryStore, indexAttributes } from './dynamodb-delivery-store.ts';
import { DynamoDbEventStore, eventItem } from './dynamodb-event-store.ts';
import { conditionHeld, isConditionFailure } from './dynamodb.ts';
import { INDEXES } from '#config/topology.ts';

type Key = Record<string, string | number>;
const DAY_MS = 86_400_000;
const dayOf = (iso: string) => iso.slice(0, 10);
/** The UTC day after `day`; years below 1000 keep their four digits (Date's ISO form does too). */
const nextDay = (day: string) => dayOf(new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString());

export interface RecoveryTables {
  readonly deliveries: string;
  /** Needed to delete and restore attempt logs (the archiver); range reads work without it. */
  readonly attempts?: string;
  /** Needed to restore event bodies. */
  readonly events?: string;
}

/**
 * Range reads, archive-safe deletes and restores over the deliveries, attempts and events
 * tables. Index pages are read as keys and then fetched with consistent reads, so a replay
 * or an archive batch always acts on the current version of each row.
 */
export class DynamoDbRecoveryStore implements RecoveryStore {
  private readonly deliveries: DynamoDbDeliveryStore;
  private readonly events: DynamoDbEventStore | undefined;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tables: RecoveryTables,
    private readonly now: () => number = Date.now,
  ) {
    this.deliveries = new DynamoDbDeliveryStore(db, tables.deliveries, now);
    this.events = tables.events ? new DynamoDbEventStore(db, tables.events) : undefined;
  }

  async listCreated(request: PageRequest & { subscriptionId: string; createdFrom?: string; createdTo: string }): Promise<Page<Delivery>> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tables.deliveries,
        IndexName: INDEXES.deliveries.bySubscription,
        KeyConditionExpression: request.createdFrom ? '#pk = :pk AND #sk BETWEEN :from AND :to' : '#pk = :pk AND #sk <= :to',
        ExpressionAttributeNames: { '#pk': 'subscriptionId', '#sk': 'createdAt' },
        ExpressionAttributeValues: { ':pk': request.subscriptionId, ':to': request.createdTo, ...(request.createdFrom ? { ':from': request.createdFrom } : {}) },
        ScanIndexForward: true,
        Limit: request.limit,
        ExclusiveStartKey: decodeCursor<Key>(request.cursor),
      }),
    );
    const items = await this.deliveries.getMany((out.Items ?? []).map((i) => i.id as string));
    return out.LastEvaluatedKey ? { items, nextCursor: encodeCursor(out.LastEvaluatedKey)! } : { items };
  }

  async listDeadLettersChanged(request: PageRequest & { subscriptionId?: string; changedFrom: string; changedTo: string; deadlineMs?: number }): Promise<Page<Delivery>> {
    const query = (index: string, pk: string, key: Key | undefined, limit: number) =>
      this.db.send(
        new QueryCommand({
          TableName: this.tables.deliveries,
          IndexName: index,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': index === INDEXES.deliveries.deadLetters ? 'dlDay' : 'dlSubscription', '#sk': 'updatedAt' },
          ExpressionAttributeValues: { ':pk': pk, ':from': request.changedFrom, ':to': request.changedTo },
          ScanIndexForward: true,
          Limit: limit,
          ExclusiveStartKey: key,
          ProjectionExpression: 'id',
        }),
      );
    const fetch = async (ids: string[]) => this.deliveries.getMany(ids);

    if (request.subscriptionId) {
      const out = await query(INDEXES.deliveries.deadLettersBySubscription, request.subscriptionId, decodeCursor<Key>(request.cursor), request.limit);
      const items = await fetch((out.Items ?? []).map((i) => i.id as string));
      return out.LastEvaluatedKey ? { items, nextCursor: encodeCursor(out.LastEvaluatedKey)! } : { items };
    }
    // Without a subscription, walk the day partitions oldest first; the cursor remembers the day and the key within it.
    const cursor = decodeCursor<{ day: string; key?: Key }>(request.cursor);
    const lastDay = dayOf(request.changedTo);
    let day = cursor?.day ?? dayOf(request.changedFrom);
    let key = cursor?.key;
    const ids: string[] = [];
    while (day <= lastDay && ids.length < request.limit) {
      const out = await query(INDEXES.deliveries.deadLetters, day, key, request.limit - ids.length);
      ids.push(...(out.Items ?? []).map((i) => i.id as string));
      key = out.LastEvaluatedKey as Key | undefined;
      if (!key) day = nextDay(day);
      // Checked after each query, so every call moves on by at least one: a long run of empty
      // days ends at the deadline with the day reached in the cursor, not after walking them all.
      if (request.deadlineMs !== undefined && this.now() >= request.deadlineMs) break;
    }
    const items = await fetch(ids);
    return day > lastDay ? { items } : { items, nextCursor: encodeCursor(key ? { day, key } : { day })! };
  }

  async deleteArchived(id: string, updatedAt: string): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tables.deliveries,
          Key: { id },
          // Gone already (finishing an interrupted batch) is fine; changed since it was archived is not.
          ConditionExpression: 'attribute_not_exists(id) OR #u = :u',
          ExpressionAttributeNames: { '#u': 'updatedAt' },
          ExpressionAttributeValues: { ':u': updatedAt },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await this.deleteAttempts(id);
    return true;
  }

  private async deleteAttempts(deliveryId: string): Promise<void> {
    let key: Key | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.need('attempts'),
          KeyConditionExpression: '#d = :d',
          ExpressionAttributeNames: { '#d': 'deliveryId' },
          ExpressionAttributeValues: { ':d': deliveryId },
          ProjectionExpression: 'deliveryId, seq',
          ExclusiveStartKey: key,
        }),
      );
      const keys = (out.Items ?? []).map((i) => ({ deliveryId: i.deliveryId, seq: i.seq }));
      for (let i = 0; i < keys.length; i += 25) await this.batchDelete(this.need('attempts'), keys.slice(i, i + 25));
      key = out.LastEvaluatedKey as Key | undefined;
    } while (key);
  }

  private async batchDelete(table: string, keys: Record<string, unknown>[]): Promise<void> {
    let pending = keys.map((Key) => ({ DeleteRequest: { Key } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round > 0) await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** round)));
      if (round > 8) throw new Error(`${pending.length} deletes from ${table} stayed unprocessed`);
      const out = await this.db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  }

  async restore(record: ArchiveRecord, marker: RestoreMarker): Promise<boolean> {
    const d = record.delivery;
    if (!isTerminal(d.state)) throw new Error(`archived delivery ${d.id} is ${d.state}: only terminal deliveries are archived`);
    // TTL from the hold, not from the row's own dates: those are months old and TTL would delete the row at once.
    const expiresAt = Math.floor(Date.parse(marker.until) / 1000) + DEFAULT_RETENTION.ttlSafetyMarginDays * 86_400;
    // Attempts and event first: a delivery row that is back always has its history with it.
    for (const attempt of record.attempts) {
      await this.putIfAbsent(this.need('attempts'), { ...attempt, expiresAt }, 'deliveryId');
    }
    if (record.event) {
      const { id, type, body, createdAt } = record.event;
      await this.restoreEvent({ id, type, body, createdAt, subscriptionIds: [d.subscriptionId], deliveryIds: [d.id] }, expiresAt);
    }
    const item = { ...d, restored: marker, ...indexAttributes(d.id, d.subscriptionId, d.state, d.updatedAt), expiresAt };
    return this.putIfAbsent(this.tables.deliveries, item, 'id');
  }

  /**
   * Puts the event back, or keeps the one still there (another subscription's delivery, or a
   * dead letter, kept it) at least as long as the restored delivery: its TTL would otherwise
   * take the body the restored rows need.
   */
  private async restoreEvent(event: EventRecord, expiresAt: number): Promise<void> {
    const table = this.need('events');
    // Two rounds: a row past its TTL may be deleted between the refused put and the extension.
    for (let round = 0; round < 2; round++) {
      if (await this.putIfAbsent(table, eventItem(event, expiresAt), 'id')) return;
      await this.events!.extendRetention(event.id, expiresAt);
      // Still there after the extension: kept until `expiresAt` at least (or for ever, with no TTL).
      const out = await this.db.send(new GetCommand({ TableName: table, Key: { id: event.id }, ConsistentRead: true, ProjectionExpression: 'id' }));
      if (out.Item) return;
    }
    throw new Error(`event ${event.id} kept disappearing while it was being restored`);
  }

  private need(table: 'attempts' | 'events'): string {
    const name = this.tables[table];
    if (!name) throw new Error(`the ${table} table is not configured for this function`);
    return name;
  }

  private async putIfAbsent(table: string, item: Record<string, unknown>, keyName: string): Promise<boolean> {
    return conditionHeld(this.db.send(new PutCommand({ TableName: table, Item: item, ConditionExpression: `attribute_not_exists(${keyName})` })));
  }
}
