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
      const { table, indexName, partitionAttribute, sortAttribute, tableKeys, keysOnly } = this.index;
      const startKey = shard.startKey;
      // Keys only: the table's and the index's key attributes, and the id.
      const projected = keysOnly ? [...new Set(['id', ...tableKeys, partitionAttribute, sortAttribute])] : [];
      const out = await fromCursor(startKey, () =>
        this.db.send(
          new QueryCommand({
            TableName: table,
            ...(indexName ? { IndexName: indexName } : { ConsistentRead: true }),
            KeyConditionExpression: `#pk = :pk${condition ? ` AND ${condition.expression}` : ''}`,
            ExpressionAttributeNames: {
              '#pk': partitionAttribute,
              ...(condition ? { '#sk': sortAttribute } : {}),
              ...Object.fromEntries(projected.map((name, i) => [`#p${i}`, name])),
            },
            ExpressionAttributeValues: { ':pk': shard.pk, ...(condition ? condition.values : {}) },
            ...(keysOnly ? { ProjectionExpression: projected.map((_, i) => `#p${i}`).join(', ') } : {}),
            ScanIndexForward: this.index.order === 'ascending',
            Limit: Math.max(1, limit),
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      for (const item of out.Items ?? []) {
        if (shard.skipTie !== undefined && item[sortAttribute] === shard.skipTie) continue;
        shard.skipTie = undefined;
        shard.buffer.push(item);
      }
      shard.startKey = out.LastEvaluatedKey as Key | undefined;
      if (!shard.startKey) shard.exhausted = true;
    }
  }

  /** The sort-key half of a partition's key condition: the listing's range, narrowed by the position's bound. */
  private sortCondition(shard: Shard): { expression: string; values: Record<string, string> } | undefined | 'empty' {
    const ascending = this.index.order === 'ascending';
    let from = this.index.range?.from;
    let to = this.index.range?.to;
    if (shard.bound !== undefined) {
      if (ascending) from = from === undefined || shard.bound > from ? shard.bound : from;
      else to = to === undefined || shard.bound < to ? shard.bound : to;
    }
    if (from !== undefined && to !== undefined)
      return from > to ? 'empty' : { expression: '#sk BETWEEN :from AND :to', values: { ':from': from, ':to': to } };
    if (from !== undefined) return { expression: '#sk >= :from', values: { ':from': from } };
    if (to !== undefined) return { expression: '#sk <= :to', values: { ':to': to } };
    return undefined;
  }
}
