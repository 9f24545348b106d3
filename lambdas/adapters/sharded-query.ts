import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { InvalidCursorError } from '#ports/page.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { fromCursor } from './cursor.ts';

type Item = Record<string, unknown>;
type Key = Record<string, string | number>;

/** One logical listing spread over several partitions of a table or an index (delivery-keys.ts), read as one ordered list. */
export interface ShardedIndex {
  readonly table: string;
  /** The index read; undefined for the table's own partitions (then read consistently). */
  readonly indexName?: string;
  /** The table's own key attributes, part of every index key. */
  readonly tableKeys: readonly string[];
  readonly partitionAttribute: string;
  readonly sortAttribute: string;
  /** The partition values, in the order that breaks ties between equal sort values. */
  readonly partitions: readonly string[];
  readonly order: 'ascending' | 'descending';
  /** Only items whose sort value lies in this range, both ends included. */
  readonly range?: { readonly from?: string | undefined; readonly to?: string | undefined };
  /** Read only the keys and `id` (an ALL index read for ids, to be fetched consistently). */
  readonly keysOnly?: boolean;
}

/**
 * Where a merged listing stands: after the item at sort value `s` in partition `p`, whose index
 * key is `k`. Everything before it in the merged order (sort value, then partition) was handed
 * out, so every partition can resume from it alone: `p` from `k`, the others from `s`.
 */
export interface MergePosition {
  readonly p: number;
  readonly s: string;
  readonly k: Key;
}

export interface Merged {
  readonly item: Item;
  readonly position: MergePosition;
}

export const encodePosition = (position: MergePosition): string => encodeCursor(position)!;

/** A caller's cursor as a position in this listing; another listing's cursor (another subscription's partitions) is refused. */
export function decodePosition(cursor: string | undefined, index: ShardedIndex): MergePosition | undefined {
  const value = decodeCursor<{ p?: unknown; s?: unknown; k?: unknown }>(cursor);
  if (value === undefined) return undefined;
  const { p, s, k } = value;
  const valid =
    typeof p === 'number' &&
    Number.isInteger(p) &&
    p >= 0 &&
    p < index.partitions.length &&
    typeof s === 'string' &&
    typeof k === 'object' &&
    k !== null &&
    (k as Key)[index.partitionAttribute] === index.partitions[p] &&
    (k as Key)[index.sortAttribute] === s;
  if (!valid) throw new InvalidCursorError();
  return { p, s, k: k as Key };
}

interface Shard {
  readonly pk: string;
  readonly buffer: Item[];
  startKey: Key | undefined;
  /** Inclusive bound from the position, for partitions that resume by sort value. */
  readonly bound: string | undefined;
  /** Leading items at this sort value were handed out already (a partition before the position's). */
  skipTie: string | undefined;
  exhausted: boolean;
}

/**
 * Reads a sharded listing in one order: each partition is queried lazily, and the next item is
 * the best head among them. A page of n costs one query per partition (about n ÷ partitions
 * items each), plus one more each time a partition runs dry before the page is full.
 */
export class ShardedReader {
  private readonly shards: Shard[];

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly index: ShardedIndex,
    after?: MergePosition,
  ) {
    this.shards = index.partitions.map((pk, j) => ({
      pk,
      buffer: [],
      startKey: after && j === after.p ? after.k : undefined,
      bound: after && j !== after.p ? after.s : undefined,
      skipTie: after && j < after.p ? after.s : undefined,
      exhausted: false,
    }));
  }

  /** True once every partition is read to its end and handed out. */
  get done(): boolean {
    return this.shards.every((s) => s.exhausted && s.buffer.length === 0);
  }

  /** Up to `n` more items in order, each with the position a cursor resumes after it. */
  async next(n: number): Promise<readonly Merged[]> {
    const out: Merged[] = [];
    while (out.length < n) {
      // The hash spreads a listing evenly, so each shard reads about its share (and one more), not the whole page: a shard that runs dry reads on.
      const share = Math.ceil((n - out.length) / this.shards.length) + 1;
      await Promise.all(this.shards.map((s) => this.fill(s, share)));
      let best = -1;
      for (let j = 0; j < this.shards.length; j++) {
        const head = this.shards[j]!.buffer[0];
        if (head === undefined) continue;
        if (best < 0 || this.before(head, this.shards[best]!.buffer[0]!)) best = j;
      }
      if (best < 0) break;
      const item = this.shards[best]!.buffer.shift()!;
      const { tableKeys, partitionAttribute, sortAttribute } = this.index;
      const k: Key = Object.fromEntries(
        [...tableKeys, partitionAttribute, sortAttribute].map((name) => [name, item[name] as string]),
      );
      out.push({ item, position: { p: best, s: item[sortAttribute] as string, k } });
    }
    return out;
  }

  /** Strictly before in the merged order; equal sort values keep the earlier partition first (the scan picks the lowest j). */
  private before(a: Item, b: Item): boolean {
    const sa = a[this.index.sortAttribute] as string;
    const sb = b[this.index.sortAttribute] as string;
    return this.index.order === 'ascending' ? sa < sb : sa > sb;
  }

  /** Reads on in one partition until it has a head or ends. */
  private async fill(shard: Shard, limit: number): Promise<void> {
    while (shard.buffer.length === 0 && !shard.exhausted) {
      const condition = this.sortCondition(shard);
      if (condition === 'empty') {
        shard.exhausted = true;
        return;
      }
      const out = await queryPartition(this.db, this.index, shard.pk, condition, limit, shard.startKey);
      for (const item of out.Items ?? []) {
        if (shard.skipTie !== undefined && item[this.index.sortAttribute] === shard.skipTie) continue;
        shard.skipTie = undefined;
        shard.buffer.push(item);
      }
      shard.startKey = out.LastEvaluatedKey as Key | undefined;
      if (!shard.startKey) shard.exhausted = true;
    }
  }

  /** The sort-key half of a partition's key condition: the listing's range, narrowed by the position's bound. */
  private sortCondition(shard: Shard): SortCondition | undefined | 'empty' {
    const ascending = this.index.order === 'ascending';
    let from = this.index.range?.from;
    let to = this.index.range?.to;
    if (shard.bound !== undefined) {
      if (ascending) from = from === undefined || shard.bound > from ? shard.bound : from;
      else to = to === undefined || shard.bound < to ? shard.bound : to;
    }
    return rangeCondition(from, to);
  }
}

interface SortCondition {
  readonly expression: string;
  readonly values: Record<string, string>;
}

/** The sort-key condition of the range [from, to] (either end open), or 'empty' when it holds nothing. */
function rangeCondition(from: string | undefined, to: string | undefined): SortCondition | undefined | 'empty' {
  if (from !== undefined && to !== undefined)
    return from > to ? 'empty' : { expression: '#sk BETWEEN :from AND :to', values: { ':from': from, ':to': to } };
  if (from !== undefined) return { expression: '#sk >= :from', values: { ':from': from } };
  if (to !== undefined) return { expression: '#sk <= :to', values: { ':to': to } };
  return undefined;
}

/** One Query of one partition of a sharded listing, from `startKey` (a caller's cursor: a bad one is an InvalidCursorError). */
function queryPartition(
  db: DynamoDBDocumentClient,
  index: ShardedIndex,
  pk: string,
  condition: SortCondition | undefined,
  limit: number,
  startKey: Key | undefined,
) {
  const { table, indexName, partitionAttribute, sortAttribute, tableKeys, keysOnly } = index;
  // Keys only: the table's and the index's key attributes, and the id.
  const projected = keysOnly ? [...new Set(['id', ...tableKeys, partitionAttribute, sortAttribute])] : [];
  return fromCursor(startKey, () =>
    db.send(
      new QueryCommand({
        TableName: table,
        ...(indexName ? { IndexName: indexName } : { ConsistentRead: true }),
        KeyConditionExpression: `#pk = :pk${condition ? ` AND ${condition.expression}` : ''}`,
        ExpressionAttributeNames: {
          '#pk': partitionAttribute,
          ...(condition ? { '#sk': sortAttribute } : {}),
          ...Object.fromEntries(projected.map((name, i) => [`#p${i}`, name])),
        },
        ExpressionAttributeValues: { ':pk': pk, ...(condition ? condition.values : {}) },
        ...(keysOnly ? { ProjectionExpression: projected.map((_, i) => `#p${i}`).join(', ') } : {}),
        ScanIndexForward: index.order === 'ascending',
        Limit: Math.max(1, limit),
        ExclusiveStartKey: startKey,
      }),
    ),
  );
}

/**
 * Where a walk across partitions stands, partition by partition: `null` once a partition is read
 * to its end, `0` before its first item, else the index key it resumes after (without the
 * partition attribute, which its place implies). Longer than a listing's cursor (32 keys), so it
 * has its own bound: it is kept on a replay's record, never handed to an API caller.
 */
type PartitionPositions = (Key | 0 | null)[];

/** Longest cursor a walk across partitions accepts: 32 positions of a few hundred characters. */
const MAX_WALK_CURSOR_CHARS = 32_768;

/**
 * True when `cursor` starts or continues a walk across partitions. A merged listing's cursor
 * (a replay checkpointed by a version before this walk) is not one: that walk goes on in the
 * merged order.
 */
export function continuesWalkAcross(cursor: string | undefined): boolean {
  return cursor === undefined || cursor === '' || cursor.startsWith(WALK_CURSOR_MARK);
}

/** Marks a walk's cursor apart from a merged listing's (base64url JSON, which never holds a '.'). */
const WALK_CURSOR_MARK = 'w.';

function encodeWalk(positions: PartitionPositions): string {
  return WALK_CURSOR_MARK + Buffer.from(JSON.stringify(positions)).toString('base64url');
}

function decodeWalk(cursor: string | undefined, index: ShardedIndex): PartitionPositions {
  if (cursor === undefined || cursor === '') return index.partitions.map(() => 0);
  try {
    if (cursor.length > MAX_WALK_CURSOR_CHARS || !cursor.startsWith(WALK_CURSOR_MARK)) throw new Error('not a walk');
    const value: unknown = JSON.parse(Buffer.from(cursor.slice(WALK_CURSOR_MARK.length), 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== index.partitions.length) throw new Error('not one per partition');
    for (const p of value) {
      if (p === null || p === 0) continue;
      if (typeof p !== 'object' || Array.isArray(p) || typeof p[index.sortAttribute] !== 'string')
        throw new Error('bad position');
      for (const v of Object.values(p)) if (typeof v !== 'string' && typeof v !== 'number') throw new Error('bad key');
    }
    return value as PartitionPositions;
  } catch (cause) {
    throw new InvalidCursorError({ cause });
  }
}

/**
 * A page of a sharded listing in no overall order: every partition not yet read to its end is
 * queried at once for its share of the page (at most `limit` items in all), and each goes on
 * from where its own query stopped.
 * One round of queries a page, where the merged order (ShardedReader) queries again each time a
 * partition runs dry before the page is full; and a page holds about as many items of each
 * partition, so a walk that changes what it reads (a bulk replay, which takes each dead letter
 * out of its index) spreads its writes over every partition instead of one at a time. For a walk
 * that needs every item once and no order.
 */
export async function readAcrossPartitions(
  db: DynamoDBDocumentClient,
  index: ShardedIndex,
  cursor: string | undefined,
  limit: number,
): Promise<{ readonly items: readonly Item[]; readonly nextCursor?: string }> {
  const positions = decodeWalk(cursor, index);
  const condition = rangeCondition(index.range?.from, index.range?.to);
  const open = positions.flatMap((p, j) => (p === null ? [] : [j]));
  if (condition === 'empty' || open.length === 0) return { items: [] };
  // Shares that add up to the page: a page smaller than the partitions left asks the first of them for one each.
  const base = Math.floor(limit / open.length);
  const asked = open.map((j, n) => ({ j, share: base + (n < limit % open.length ? 1 : 0) })).filter((a) => a.share > 0);
  const pages = await Promise.all(
    asked.map(async ({ j, share }) => {
      const pk = index.partitions[j]!;
      const at = positions[j];
      const startKey = at ? { ...at, [index.partitionAttribute]: pk } : undefined;
      return { j, out: await queryPartition(db, index, pk, condition, share, startKey) };
    }),
  );
  const items: Item[] = [];
  for (const { j, out } of pages) {
    items.push(...(out.Items ?? []));
    const last = out.LastEvaluatedKey as Key | undefined;
    if (!last) positions[j] = null;
    else {
      const { [index.partitionAttribute]: _implied, ...rest } = last;
      positions[j] = rest;
    }
  }
  return positions.every((p) => p === null) ? { items } : { items, nextCursor: encodeWalk(positions) };
}
