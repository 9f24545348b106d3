import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INGEST_MANIFEST_SHARDS } from '#config/topology.ts';
import type {
  EventLogEntry,
  EventLogRequest,
  IngestManifest,
  IngestManifestStore,
  ManifestWatermark,
} from '#ports/ingest-manifest-store.ts';
import { InvalidCursorError, type Page } from '#ports/page.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { conditionHeld } from './dynamodb.ts';

/** The partition that holds one watermark item per shard (keyed by the shard's name), beside the shards `m0`…`m15`. */
const WATERMARKS = 'checked';
/** Manifests one event-log page may read before it answers with what it found (a rare type under a filter). */
const MAX_MANIFESTS_PER_PAGE = 500;
/** A manifest key: the batch's creation instant and its random id. */
const MANIFEST_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9_-]{1,64}$/;

const shardName = (i: number) => `m${i}`;

/**
 * Where an event-log page stopped: in the manifest keyed `k`, after its first `n` events in
 * listing order (a batch lists its last event first). Manifest keys are unique, so this is a
 * position in the merged order of every shard.
 */
export interface LogCursor extends Record<string, unknown> {
  readonly k: string;
  readonly n: number;
}

/** The cursor as issued, checked (the in-memory store of the tests shares it, so both refuse the same). */
export function decodeLogCursor(cursor: string | undefined): LogCursor | undefined {
  const value = decodeCursor<LogCursor>(cursor);
  if (value === undefined) return undefined;
  // A forged position would only read the wrong range, but it is refused like any cursor this store did not issue.
  if (
    typeof value.k !== 'string' ||
    !MANIFEST_KEY.test(value.k) ||
    !Number.isInteger(value.n) ||
    value.n < 0 ||
    value.n > 100_000 ||
    Object.keys(value).length !== 2
  ) {
    throw new InvalidCursorError();
  }
  return value;
}

/**
 * Publish batches' manifests, keyed `(shard, key)`: 16 shards spread every batch's put over
 * partitions, and the sort key orders each shard by time, so the sweeper reads the ones past its
 * watermark and older than its grace, and the event log merges the shards newest first. Nothing
 * deletes a manifest but TTL, which is free.
 */
export class DynamoDbIngestManifestStore implements IngestManifestStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(manifest: IngestManifest): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: manifest }));
  }

  async watermarks(): Promise<readonly ManifestWatermark[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'shard' },
        ExpressionAttributeValues: { ':pk': WATERMARKS },
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []).map((i) => ({
      shard: i.key as string,
      checkedBefore: i.checkedBefore as string,
      checked: (i.checked as string[] | undefined) ?? [],
    }));
  }

  async listAfter(
    shard: string,
    afterKey: string,
    beforeIso: string,
    limit: number,
  ): Promise<readonly IngestManifest[]> {
    if (afterKey !== '' && afterKey >= beforeIso) return [];
    const found: IngestManifest[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          // BETWEEN is inclusive: the watermark key itself (a manifest already checked) is dropped below.
          KeyConditionExpression:
            afterKey === '' ? '#pk = :pk AND #sk < :before' : '#pk = :pk AND #sk BETWEEN :after AND :before',
          ExpressionAttributeNames: { '#pk': 'shard', '#sk': 'key' },
          ExpressionAttributeValues: {
            ':pk': shard,
            ':before': beforeIso,
            ...(afterKey === '' ? {} : { ':after': afterKey }),
          },
          // Read what was just written: the watermark moves past whatever this answer leaves out.
          ConsistentRead: true,
          Limit: limit - found.length + 1,
          ExclusiveStartKey: start,
        }),
      );
      found.push(...((out.Items ?? []) as IngestManifest[]).filter((m) => m.key !== afterKey && m.key < beforeIso));
      start = out.LastEvaluatedKey;
    } while (start && found.length < limit);
    return found.slice(0, limit);
  }

  async setWatermark(next: ManifestWatermark, previous: ManifestWatermark | undefined): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { shard: WATERMARKS, key: next.shard, checkedBefore: next.checkedBefore, checked: [...next.checked] },
          ...(previous
            ? {
                ConditionExpression: 'checkedBefore = :previous',
                ExpressionAttributeValues: { ':previous': previous.checkedBefore },
              }
            : { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'shard' } }),
        }),
      ),
    );
  }

  /**
   * Merges the shards newest first: each shard is read a few manifests at a time, newest first,
   * and the newest head of all is taken next. A page reads about `limit` manifests in all (each
   * holds one event at least) plus one query per shard, and at most MAX_MANIFESTS_PER_PAGE.
   */
  async listEvents(request: EventLogRequest): Promise<Page<EventLogEntry>> {
    const cursor = decodeLogCursor(request.cursor);
    if (cursor && request.since && request.since > cursor.k) return { items: [] };
    const readers = Array.from(
      { length: INGEST_MANIFEST_SHARDS },
      (_, i) =>
        new ShardReader(
          this.db,
          this.table,
          shardName(i),
          cursor?.k,
          request.since,
          Math.min(100, Math.ceil(request.limit / 4) + 1),
        ),
    );
    const items: EventLogEntry[] = [];
    let read = 0;
    for (;;) {
      await Promise.all(readers.filter((r) => r.needsFill()).map((r) => r.fill()));
      const reader = newestHead(readers);
      if (!reader) return { items };
      const manifest = reader.take();
      read++;
      const events = manifest.eventIds.length;
      for (let n = cursor && manifest.key === cursor.k ? cursor.n : 0; n < events; n++) {
        const i = events - 1 - n;
        const entry = logEntry(manifest, i);
        if (!matchesLog(request, entry)) continue;
        items.push(entry);
        if (items.length === request.limit) return { items, nextCursor: encodeCursor({ k: manifest.key, n: n + 1 })! };
      }
      if (read >= MAX_MANIFESTS_PER_PAGE) return { items, nextCursor: encodeCursor({ k: manifest.key, n: events })! };
    }
  }
}

/** Event `i` of a manifest as the log lists it. */
export function logEntry(
  manifest: Pick<IngestManifest, 'eventIds' | 'eventTypes' | 'eventTenants' | 'createdAt'>,
  i: number,
): EventLogEntry {
  const eventType = manifest.eventTypes?.[i];
  const tenantId = manifest.eventTenants?.[i];
  return {
    eventId: manifest.eventIds[i]!,
    ...(eventType !== undefined ? { eventType } : {}),
    ...(tenantId ? { tenantId } : {}),
    createdAt: manifest.createdAt,
  };
}

/** Whether a log entry passes the request's filters. */
export function matchesLog(request: Pick<EventLogRequest, 'type' | 'tenantId'>, entry: EventLogEntry): boolean {
  return (
    (request.type === undefined || entry.eventType === request.type) &&
    (request.tenantId === undefined || entry.tenantId === request.tenantId)
  );
}

/** The shard reader whose next manifest is the newest of all, or undefined when every shard is read to its end. */
function newestHead(readers: readonly ShardReader[]): ShardReader | undefined {
  let best: ShardReader | undefined;
  for (const r of readers) {
    const head = r.head();
    if (head && (!best || head.key > best.head()!.key)) best = r;
  }
  return best;
}

/** One shard read newest first, from the cursor's manifest (inclusive) down to `since`, a page of manifests at a time. */
class ShardReader {
  private buffer: IngestManifest[] = [];
  private start: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly shard: string,
    private readonly upTo: string | undefined,
    private readonly since: string | undefined,
    private readonly pageSize: number,
  ) {}

  needsFill(): boolean {
    return this.buffer.length === 0 && !this.done;
  }

  head(): IngestManifest | undefined {
    return this.buffer[0];
  }

  take(): IngestManifest {
    return this.buffer.shift()!;
  }

  async fill(): Promise<void> {
    const range =
      this.upTo && this.since
        ? ' AND #sk BETWEEN :since AND :upTo'
        : this.upTo
          ? ' AND #sk <= :upTo'
          : this.since
            ? ' AND #sk >= :since'
            : '';
    // Until a manifest arrives or the shard ends: the merge compares every shard's head, so none may be empty while it has more.
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: `#pk = :pk${range}`,
          ExpressionAttributeNames: { '#pk': 'shard', '#sk': 'key', '#at': 'createdAt' },
          ExpressionAttributeValues: {
            ':pk': this.shard,
            ...(this.upTo ? { ':upTo': this.upTo } : {}),
            ...(this.since ? { ':since': this.since } : {}),
          },
          // The log needs neither the delivery ids nor the TTL: smaller answers, the same read units.
          ProjectionExpression: '#sk, #at, eventIds, eventTypes, eventTenants',
          ScanIndexForward: false,
          Limit: this.pageSize,
          ExclusiveStartKey: this.start,
        }),
      );
      this.buffer = (out.Items ?? []) as IngestManifest[];
      this.start = out.LastEvaluatedKey;
      this.done = !this.start;
    } while (this.buffer.length === 0 && !this.done);
  }
}
