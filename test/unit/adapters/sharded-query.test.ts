import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodePosition, encodePosition, ShardedReader, type ShardedIndex } from '#adapters/sharded-query.ts';
import { encodeCursor } from '#ports/page.ts';
import { InvalidCursorError } from '#ports/page.ts';

type Item = { id: string; pk: string; sk: string };

/**
 * A Query on an index, as DynamoDB answers it, over items held in memory: the partition, the
 * sort-key condition the reader builds, the direction, Limit and ExclusiveStartKey. Within a
 * partition, equal sort values keep their table-key order, as DynamoDB's indexes do.
 */
function fakeIndex(items: readonly Item[]) {
  const queries: string[] = [];
  const limits: number[] = [];
  const send = async (command: QueryCommand) => {
    const q = command.input;
    const v = q.ExpressionAttributeValues!;
    queries.push(String(v[':pk']));
    limits.push(q.Limit!);
    const cond = q.KeyConditionExpression!;
    let rows = items
      .filter((i) => i.pk === v[':pk'])
      .filter((i) =>
        cond.includes('BETWEEN')
          ? i.sk >= v[':from'] && i.sk <= v[':to']
          : cond.includes('>=')
            ? i.sk >= v[':from']
            : cond.includes('<=')
              ? i.sk <= v[':to']
              : true,
      )
      .sort((a, b) => (a.sk === b.sk ? (a.id < b.id ? -1 : 1) : a.sk < b.sk ? -1 : 1));
    if (q.ScanIndexForward === false) rows.reverse();
    if (q.ExclusiveStartKey) {
      const at = rows.findIndex((i) => i.id === q.ExclusiveStartKey!.id);
      if (at < 0)
        throw Object.assign(new Error('The provided starting key is invalid'), { name: 'ValidationException' });
      rows = rows.slice(at + 1);
    }
    const page = rows.slice(0, q.Limit);
    const more = rows.length > page.length;
    return {
      Items: page.map((i) => ({ ...i })),
      ...(more ? { LastEvaluatedKey: { id: page.at(-1)!.id, pk: page.at(-1)!.pk, sk: page.at(-1)!.sk } } : {}),
    };
  };
  return { db: { send } as unknown as DynamoDBDocumentClient, queries, limits };
}

const PARTITIONS = ['a#0', 'a#1', 'a#2', 'a#3'];
const index = (order: ShardedIndex['order'], range?: ShardedIndex['range']): ShardedIndex => ({
  table: 't',
  indexName: 'i',
  tableKeys: ['id'],
  partitionAttribute: 'pk',
  sortAttribute: 'sk',
  partitions: PARTITIONS,
  order,
  ...(range ? { range } : {}),
});

/** 60 items over the 4 partitions, many sharing a sort value (a publish batch's equal creation times), and another listing's. */
const ITEMS: Item[] = [
  ...Array.from({ length: 60 }, (_, n) => ({
    id: `d${String(n).padStart(2, '0')}`,
    pk: PARTITIONS[(n * 7) % 4]!,
    sk: `t${String(Math.floor(n / 5)).padStart(2, '0')}`,
  })),
  { id: 'x1', pk: 'b#0', sk: 't03' },
];

/** The merged order the reader promises: sort value, then partition (in the listing's order), then the partition's own order. */
function expected(order: ShardedIndex['order'], range?: ShardedIndex['range']): string[] {
  const inRange = ITEMS.filter(
    (i) => PARTITIONS.includes(i.pk) && (!range?.from || i.sk >= range.from) && (!range?.to || i.sk <= range.to),
  );
  const sorted = [...inRange].sort((a, b) => {
    if (a.sk !== b.sk) return (a.sk < b.sk ? -1 : 1) * (order === 'ascending' ? 1 : -1);
    if (a.pk !== b.pk) return PARTITIONS.indexOf(a.pk) - PARTITIONS.indexOf(b.pk);
    return (a.id < b.id ? -1 : 1) * (order === 'ascending' ? 1 : -1);
  });
  return sorted.map((i) => i.id);
}

async function readAll(ix: ShardedIndex, pageSize: number): Promise<string[]> {
  const { db } = fakeIndex(ITEMS);
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const reader = new ShardedReader(db, ix, decodePosition(cursor, ix));
    const page = await reader.next(pageSize);
    ids.push(...page.map((m) => m.item.id as string));
    if (reader.done || page.length === 0) return ids;
    cursor = encodePosition(page.at(-1)!.position);
  }
  throw new Error('the listing never ended');
}

describe('ShardedReader: one listing over several partitions', () => {
  for (const order of ['ascending', 'descending'] as const) {
    for (const range of [undefined, { from: 't02', to: 't09' }, { to: 't04' }, { from: 't10' }]) {
      it(`reads every item once, in order (${order}${range ? `, range ${JSON.stringify(range)}` : ''}), whatever the page size`, async () => {
        const want = expected(order, range);
        assert.ok(want.length > 0);
        for (const size of [1, 3, 7, 100])
          assert.deepEqual(await readAll(index(order, range), size), want, `pages of ${size}`);
      });
    }
  }

  it('resumes right after any item, from its position alone, also inside a run of equal sort values', async () => {
    const { db } = fakeIndex(ITEMS);
    for (const order of ['ascending', 'descending'] as const) {
      const whole = await new ShardedReader(db, index(order)).next(1000);
      const ids = whole.map((m) => m.item.id as string);
      for (const [n, m] of whole.entries()) {
        const rest = await new ShardedReader(
          db,
          index(order),
          decodePosition(encodePosition(m.position), index(order)),
        ).next(1000);
        assert.deepEqual(
          rest.map((r) => r.item.id),
          ids.slice(n + 1),
          `${order}, after ${m.item.id}`,
        );
      }
    }
  });

  it('a page reads about its share from each partition, not the whole page from every one', async () => {
    const { db, queries, limits } = fakeIndex(ITEMS);
    const page = await new ShardedReader(db, index('descending')).next(20);
    assert.equal(page.length, 20);
    assert.deepEqual([...queries.slice(0, 4)].sort(), PARTITIONS, 'one query per partition first');
    assert.deepEqual(limits.slice(0, 4), [6, 6, 6, 6], 'each asked for 20 ÷ 4 + 1');
    assert.ok(queries.length <= 8, `${queries.length} queries: a partition that runs dry reads on, no more`);
    assert.ok(limits.reduce((a, b) => a + b, 0) <= 40, 'at most twice the page read in all');
  });

  it('knows when it is done, and an empty listing is done after one query per partition', async () => {
    const { db, queries } = fakeIndex([]);
    const reader = new ShardedReader(db, index('ascending'));
    assert.deepEqual(await reader.next(10), []);
    assert.equal(reader.done, true);
    assert.equal(queries.length, PARTITIONS.length);
  });

  it('refuses a cursor of another listing (another partition set) or one it never issued', () => {
    const foreign = encodeCursor({ p: 0, s: 't03', k: { id: 'x1', pk: 'b#0', sk: 't03' } });
    assert.throws(() => decodePosition(foreign, index('ascending')), InvalidCursorError);
    for (const bad of [
      { p: 9, s: 't03', k: { id: 'd00', pk: 'a#0', sk: 't03' } },
      { p: 0, s: 't04', k: { id: 'd00', pk: 'a#0', sk: 't03' } },
      { p: '0', s: 't', k: {} },
    ]) {
      assert.throws(
        () => decodePosition(encodeCursor(bad), index('ascending')),
        InvalidCursorError,
        JSON.stringify(bad),
      );
    }
    assert.throws(() => decodePosition('bm90LWEtY3Vyc29y', index('ascending')), InvalidCursorError);
  });

  it("a well-formed position whose key the index does not know is the caller's bad cursor, not a server fault", async () => {
    const { db } = fakeIndex(ITEMS);
    const ghost = decodePosition(
      encodeCursor({ p: 1, s: 't03', k: { id: 'nope', pk: 'a#1', sk: 't03' } }),
      index('ascending'),
    );
    await assert.rejects(new ShardedReader(db, index('ascending'), ghost).next(5), InvalidCursorError);
  });
});
