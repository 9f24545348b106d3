import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArchiveRecord } from '#domain/archive.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { isTerminal } from '#domain/states.ts';
import type { AttemptRecord, Delivery, EventRecord, RestoreMarker } from '#domain/types.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { AnyOrder, RecoveryStore } from '#ports/recovery-store.ts';
import { deliveryKey } from './delivery-keys.ts';
import { deliveryIndexes, DynamoDbDeliveryStore, rowAttributes } from './dynamodb-delivery-store.ts';
import { DynamoDbEventStore, eventItem } from './dynamodb-event-store.ts';
import { conditionHeld, isConditionFailure } from './dynamodb.ts';
import {
  continuesWalkAcross,
  decodePosition,
  encodePosition,
  readAcrossPartitions,
  ShardedReader,
  type ShardedIndex,
} from './sharded-query.ts';

export interface RecoveryTables {
  readonly deliveries: string;
  /** Needed to restore attempt logs (the archiver); range reads and deletes work without it. */
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
  ) {
    this.deliveries = new DynamoDbDeliveryStore(db, tables.deliveries);
    this.events = tables.events ? new DynamoDbEventStore(db, tables.events) : undefined;
  }

  async listCreated(
    request: PageRequest & AnyOrder & { subscriptionId: string; createdFrom?: string; createdTo: string },
  ): Promise<Page<Delivery>> {
    const index = deliveryIndexes.bySubscription(this.tables.deliveries, request.subscriptionId, 'ascending', {
      from: request.createdFrom,
      to: request.createdTo,
    });
    return this.readIds(index, request);
  }

  async listDeadLettersChanged(
    request: PageRequest & AnyOrder & { subscriptionId?: string; changedFrom: string; changedTo: string },
  ): Promise<Page<Delivery>> {
    const index = deliveryIndexes.deadLetters(
      this.tables.deliveries,
      request.subscriptionId,
      'ascending',
      { from: request.changedFrom, to: request.changedTo },
      true,
    );
    return this.readIds(index, request);
  }

  /** A page of a sharded listing read as ids, then fetched with consistent reads (the current version of each row). */
  private async readIds(index: ShardedIndex, request: PageRequest & AnyOrder): Promise<Page<Delivery>> {
    if (request.anyOrder && continuesWalkAcross(request.cursor)) {
      const page = await readAcrossPartitions(this.db, index, request.cursor, request.limit);
      const items = await this.deliveries.getMany(page.items.map((i) => i.id as string));
      return page.nextCursor ? { items, nextCursor: page.nextCursor } : { items };
    }
    const reader = new ShardedReader(this.db, index, decodePosition(request.cursor, index));
    const page = await reader.next(request.limit);
    const items = await this.deliveries.getMany(page.map((m) => m.item.id as string));
    return !reader.done && page.length > 0 ? { items, nextCursor: encodePosition(page.at(-1)!.position) } : { items };
  }

  async deleteArchived(id: string, updatedAt: string): Promise<boolean> {
    // No row can have an id of another layout: gone already, which the port counts as deleted.
    const key = deliveryKey(id);
    try {
      if (key)
        await this.db.send(
          new DeleteCommand({
            TableName: this.tables.deliveries,
            Key: key,
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
    return true;
  }

  async restore(record: ArchiveRecord, marker: RestoreMarker): Promise<boolean> {
    const d = record.delivery;
    if (!isTerminal(d.state))
      throw new Error(`archived delivery ${d.id} is ${d.state}: only terminal deliveries are archived`);
    // TTL from the hold, not from the row's own dates: those are months old and TTL would delete the row at once.
    const expiresAt = Math.floor(Date.parse(marker.until) / 1000) + DEFAULT_RETENTION.ttlSafetyMarginDays * 86_400;
    // Keyed before anything is written: a record whose id is not of this layout is refused whole, leaving nothing behind.
    const row = rowAttributes(d, d.state, d.updatedAt);
    // Attempts and event first: a delivery row that is back always has its history with it.
    for (const attempt of record.attempts) await this.restoreAttempt({ ...attempt, expiresAt });
    if (record.event) {
      const { id, type, body, createdAt } = record.event;
      await this.restoreEvent(
        { id, type, body, createdAt, subscriptionIds: [d.subscriptionId], deliveryIds: [d.id] },
        expiresAt,
      );
    }
    const item = { ...d, restored: marker, ...row, expiresAt };
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
      const out = await this.db.send(
        new GetCommand({ TableName: table, Key: { id: event.id }, ConsistentRead: true, ProjectionExpression: 'id' }),
      );
      if (out.Item) return;
    }
    throw new Error(`event ${event.id} kept disappearing while it was being restored`);
  }

  private need(table: 'attempts' | 'events'): string {
    const name = this.tables[table];
    if (!name) throw new Error(`the ${table} table is not configured for this function`);
    return name;
  }

  /**
   * Puts an attempt back, or keeps it as long as the restored row where it is still there: the
   * archiver leaves a log to its TTL, which may come before the hold ends. An attempt's content
   * never changes, so writing it again over one kept shorter loses nothing; one kept longer (a
   * replay moved it out) or for ever is left as it is.
   */
  private async restoreAttempt(item: AttemptRecord & { readonly expiresAt: number }): Promise<void> {
    await conditionHeld(
      this.db.send(
        new PutCommand({
          TableName: this.need('attempts'),
          Item: item,
          ConditionExpression: 'attribute_not_exists(deliveryId) OR #e < :t',
          ExpressionAttributeNames: { '#e': 'expiresAt' },
          ExpressionAttributeValues: { ':t': item.expiresAt },
        }),
      ),
    );
  }

  private async putIfAbsent(table: string, item: Record<string, unknown>, keyName: string): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new PutCommand({ TableName: table, Item: item, ConditionExpression: `attribute_not_exists(${keyName})` }),
      ),
    );
  }
}
