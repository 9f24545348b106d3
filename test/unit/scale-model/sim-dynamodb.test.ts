/**
 * The simulated DynamoDB's metering and limits, and the expression semantics the adapters lean
 * on, through a real DynamoDBDocumentClient as the adapters use it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import type { TableDef } from '#config/topology.ts';
import type { DynamoLimits } from '../../../scripts/scale-model/sim/dynamodb/capacity.ts';
import { SimDynamoDB } from '../../../scripts/scale-model/sim/dynamodb/sim-dynamodb.ts';
import type { SimTime } from '../../../scripts/scale-model/sim/time.ts';
import { currentCaller } from '../../../scripts/scale-model/sim/caller.ts';

/** A clock that stands still until something sleeps; a sleep moves it forward at once (calls here run one at a time). */
function steppedTime(): SimTime & { slept: number[] } {
  // Half a second into a second, so a backoff of most of a second lands in the next one.
  let t = 1_700_000_000_500;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
  };
}

const DEF: TableDef = {
  envVar: 'DELIVERIES_TABLE',
  localName: 'sim-test',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'N' },
  indexes: [
    { indexName: 'byG', partitionKey: { name: 'g', type: 'S' }, sortKey: { name: 'at', type: 'S' }, projection: 'ALL' },
    { indexName: 'keys', partitionKey: { name: 'k', type: 'S' }, projection: 'KEYS_ONLY' },
  ],
};

function open(limits: Partial<DynamoLimits> = {}, random = () => 0) {
  const time = steppedTime();
  const sim = new SimDynamoDB({ time, limits, latencyMs: () => 0, random });
  sim.createTable(DEF, 't');
  const db = documentClient(sim.client());
  const table = () => sim.report().tables.t!;
  return { sim, db, time, table };
}

const pad = (bytes: number) => 'x'.repeat(bytes);

describe('SimDynamoDB usage by caller', () => {
  it('counts units and refused tries under the function that made the call, and by minute', async () => {
    const { db, table } = open({ partitionWcu: 1 });
    await currentCaller.run('sender', () => db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1 } })));
    await db.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 1 }, ConsistentRead: true }));
    // A second write to the key in that second: refused at each of the SDK's 3 tries (no backoff with random 0).
    await assert.rejects(
      currentCaller.run('sweeper', () => db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 2 } }))),
      /configured provisioned throughput/,
    );
    const { byCaller, byMinute } = table();
    assert.deepEqual(byCaller['sender PutItem'], { rcu: 0, wcu: 1, refused: 0 });
    assert.deepEqual(byCaller['setup GetItem'], { rcu: 1, wcu: 0, refused: 0 });
    assert.deepEqual(byCaller['sweeper PutItem'], { rcu: 0, wcu: 0, refused: 3 });
    assert.deepEqual(Object.values(byMinute), [{ rcu: 1, wcu: 1, refused: 3 }]);
  });
});

describe('SimDynamoDB limits', () => {
  it('throttles the 1,001st write to one partition key in a second, and throws after the SDK retries', async () => {
    const { db, table } = open();
    for (let i = 0; i < 1000; i++) await db.send(new PutCommand({ TableName: 't', Item: { pk: 'hot', sk: i } }));
    assert.equal(table().throttleEvents, 0);
    // random 0: every backoff is 0 ms, so all three tries land in the same second.
    await assert.rejects(db.send(new PutCommand({ TableName: 't', Item: { pk: 'hot', sk: 1000 } })), {
      name: 'ProvisionedThroughputExceededException',
    });
    const r = table();
    assert.equal(r.throttleEvents, 3, 'three tries, each refused');
    assert.equal(r.throttledRequests, 1);
    assert.deepEqual(r.topThrottledPartitions, [{ key: 'hot', throttles: 3 }]);
    assert.equal(r.peakWcuPerSecond, 1000);
  });

  it('a retry that backs off into the next second succeeds, the wait taken in simulated time', async () => {
    const { db, table, time } = open({}, () => 0.999);
    for (let i = 0; i < 1000; i++) await db.send(new PutCommand({ TableName: 't', Item: { pk: 'hot', sk: i } }));
    const before = time.now();
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'hot', sk: 1000 } }));
    assert.deepEqual(time.slept, [999], 'floor(0.999 x 1000 ms), the SDK throttling backoff of the first retry');
    assert.equal(time.now() - before, 999);
    assert.equal(table().throttleEvents, 1);
    assert.equal(table().throttledRequests, 0);
  });

  it('the same 1,001 writes spread over many keys are not throttled', async () => {
    const { db, table } = open();
    for (let i = 0; i < 1001; i++) await db.send(new PutCommand({ TableName: 't', Item: { pk: `k${i}`, sk: 0 } }));
    assert.equal(table().throttleEvents, 0);
    assert.equal(table().wcu, 1001);
  });

  it('a 2.5 KB item costs 3 WCU; a 5 KB read 2 RCU strongly consistent, 1 eventually', async () => {
    const { db, table } = open();
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, v: pad(2560 - 'pkask'.length - 2 - 1) } }));
    assert.equal(table().wcu, 3);
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'b', sk: 1, v: pad(5 * 1024) } }));
    const rcu0 = table().rcu;
    await db.send(new GetCommand({ TableName: 't', Key: { pk: 'b', sk: 1 }, ConsistentRead: true }));
    assert.equal(table().rcu - rcu0, 2);
    await db.send(new GetCommand({ TableName: 't', Key: { pk: 'b', sk: 1 } }));
    assert.equal(table().rcu - rcu0, 3);
  });

  it('an item over 400 KB is refused with ValidationException', async () => {
    const { db } = open();
    await assert.rejects(db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, v: pad(400 * 1024) } })), {
      name: 'ValidationException',
    });
  });

  it('the table ceiling throttles with ThrottlingException', async () => {
    const { db, table } = open({ tableWcu: 10 });
    for (let i = 0; i < 10; i++) await db.send(new PutCommand({ TableName: 't', Item: { pk: `k${i}`, sk: 0 } }));
    await assert.rejects(db.send(new PutCommand({ TableName: 't', Item: { pk: 'k10', sk: 0 } })), {
      name: 'ThrottlingException',
    });
    assert.equal(table().throttledRequests, 1);
    assert.deepEqual(table().topThrottledPartitions, [], 'a table-level throttle is nobody key’s');
  });

  it('the account ceiling throttles with ThrottlingException too', async () => {
    const { db } = open({ accountWcu: 5 });
    for (let i = 0; i < 5; i++) await db.send(new PutCommand({ TableName: 't', Item: { pk: `k${i}`, sk: 0 } }));
    await assert.rejects(db.send(new PutCommand({ TableName: 't', Item: { pk: 'k5', sk: 0 } })), {
      name: 'ThrottlingException',
    });
  });

  it('a hot GSI key throttles the base-table write', async () => {
    const { db, table } = open();
    for (let i = 0; i < 1000; i++)
      await db.send(new PutCommand({ TableName: 't', Item: { pk: `k${i}`, sk: 0, g: 'same', at: `${i}` } }));
    await assert.rejects(
      db.send(new PutCommand({ TableName: 't', Item: { pk: 'other', sk: 0, g: 'same', at: 'z' } })),
      {
        name: 'ProvisionedThroughputExceededException',
      },
    );
    const r = table();
    assert.equal(r.throttleEvents, 0, 'the table itself had room');
    assert.equal(r.indexes.byG!.throttledRequests, 1);
    assert.deepEqual(r.indexes.byG!.topThrottledPartitions, [{ key: 'same', throttles: 3 }]);
    assert.equal(r.indexes.byG!.wcu, 1000);
    assert.equal(r.indexes.keys!.wcu, 0, 'an item without the index key is not written to the index');
  });

  it('a GSI key change costs a delete and a put on the index', async () => {
    const { db, table } = open();
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 0, g: 'g1', at: '1' } }));
    await db.send(
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'a', sk: 0 },
        UpdateExpression: 'SET g = :g',
        ExpressionAttributeValues: { ':g': 'g2' },
      }),
    );
    assert.equal(table().indexes.byG!.wcu, 3);
    await db.send(new UpdateCommand({ TableName: 't', Key: { pk: 'a', sk: 0 }, UpdateExpression: 'REMOVE g' }));
    assert.equal(table().indexes.byG!.wcu, 4);
    const q = await db.send(
      new QueryCommand({
        TableName: 't',
        IndexName: 'byG',
        KeyConditionExpression: 'g = :g',
        ExpressionAttributeValues: { ':g': 'g2' },
      }),
    );
    assert.equal(q.Count, 0, 'sparse: gone from the index with its key');
  });

  it('a failed condition consumes WCU and throws ConditionalCheckFailedException (with ALL_OLD)', async () => {
    const { db, table } = open();
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, v: 1 } }));
    const wcu = table().wcu;
    await assert.rejects(
      db.send(
        new PutCommand({
          TableName: 't',
          Item: { pk: 'a', sk: 1, v: 2 },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
      (e: Error & { Item?: unknown }) => {
        assert.equal(e.name, 'ConditionalCheckFailedException');
        assert.deepEqual(e.Item, { pk: 'a', sk: 1, v: 1 });
        return true;
      },
    );
    assert.equal(table().wcu, wcu + 1);
    assert.deepEqual((await db.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 1 } }))).Item, {
      pk: 'a',
      sk: 1,
      v: 1,
    });
  });

  it('BatchWriteItem returns the throttled entries as UnprocessedItems', async () => {
    const { db } = open({ partitionWcu: 2 });
    const out = await db.send(
      new BatchWriteCommand({
        RequestItems: { t: [0, 1, 2].map((sk) => ({ PutRequest: { Item: { pk: 'a', sk } } })) },
      }),
    );
    assert.deepEqual(out.UnprocessedItems, { t: [{ PutRequest: { Item: { pk: 'a', sk: 2 } } }] });
  });
});

describe('SimDynamoDB queries', () => {
  it("items() answers one partition's items by its key value, as the model's audits read them", async () => {
    const { db, sim } = open();
    for (const [pk, sk] of [
      ['m0', 1],
      ['m0', 2],
      ['m1', 1],
    ] as const)
      await db.send(new PutCommand({ TableName: 't', Item: { pk, sk } }));
    assert.deepEqual(
      [...sim.items('t', 'm0')].map((i) => i.sk),
      [1, 2],
    );
    assert.equal([...sim.items('t', 'none')].length, 0);
    assert.equal([...sim.items('t')].length, 3);
  });

  it('pages with Limit and LastEvaluatedKey, both directions, and key conditions', async () => {
    const { db } = open();
    for (let i = 0; i < 10; i++) await db.send(new PutCommand({ TableName: 't', Item: { pk: 'p', sk: i * 10 } }));
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'other', sk: 5 } }));
    const all: number[] = [];
    let start: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: 't',
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': 'p' },
          Limit: 4,
          ExclusiveStartKey: start,
        }),
      );
      all.push(...(out.Items ?? []).map((i) => i.sk as number));
      start = out.LastEvaluatedKey;
      pages++;
    } while (start);
    assert.deepEqual(all, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    assert.equal(pages, 3);
    const q = async (cond: string, values: Record<string, unknown>, forward = true) =>
      (
        await db.send(
          new QueryCommand({
            TableName: 't',
            KeyConditionExpression: cond,
            ExpressionAttributeValues: { ':p': 'p', ...values },
            ScanIndexForward: forward,
          }),
        )
      ).Items?.map((i) => i.sk);
    assert.deepEqual(await q('pk = :p AND sk BETWEEN :a AND :b', { ':a': 15, ':b': 40 }), [20, 30, 40]);
    assert.deepEqual(await q('pk = :p AND sk < :a', { ':a': 20 }, false), [10, 0]);
    assert.deepEqual(await q('pk = :p AND sk >= :a', { ':a': 80 }), [80, 90]);
    const back = await db.send(
      new QueryCommand({
        TableName: 't',
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': 'p' },
        ScanIndexForward: false,
        Limit: 3,
      }),
    );
    assert.deepEqual(
      back.Items?.map((i) => i.sk),
      [90, 80, 70],
    );
    const next = await db.send(
      new QueryCommand({
        TableName: 't',
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': 'p' },
        ScanIndexForward: false,
        Limit: 3,
        ExclusiveStartKey: back.LastEvaluatedKey,
      }),
    );
    assert.deepEqual(
      next.Items?.map((i) => i.sk),
      [60, 50, 40],
    );
  });

  it('begins_with on a GSI sort key, filters after Limit, refuses consistent GSI reads; Scan pages', async () => {
    const { db } = open();
    for (const at of ['2024-01', '2024-02', '2025-01', '2024-03'])
      await db.send(new PutCommand({ TableName: 't', Item: { pk: at, sk: 0, g: 'x', at, n: at.length } }));
    const out = await db.send(
      new QueryCommand({
        TableName: 't',
        IndexName: 'byG',
        KeyConditionExpression: 'g = :g AND begins_with(#at, :y)',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':g': 'x', ':y': '2024' },
      }),
    );
    assert.deepEqual(
      out.Items?.map((i) => i.at),
      ['2024-01', '2024-02', '2024-03'],
    );
    const filtered = await db.send(
      new QueryCommand({
        TableName: 't',
        IndexName: 'byG',
        KeyConditionExpression: 'g = :g',
        FilterExpression: 'pk IN (:a, :b)',
        ExpressionAttributeValues: { ':g': 'x', ':a': '2024-02', ':b': '2025-01' },
        Limit: 2,
      }),
    );
    assert.deepEqual([filtered.Count, filtered.ScannedCount], [1, 2], 'Limit counts items read, before the filter');
    assert.ok(filtered.LastEvaluatedKey?.g === 'x' && filtered.LastEvaluatedKey.pk === '2024-02');
    await assert.rejects(
      db.send(
        new QueryCommand({
          TableName: 't',
          IndexName: 'byG',
          KeyConditionExpression: 'g = :g',
          ExpressionAttributeValues: { ':g': 'x' },
          ConsistentRead: true,
        }),
      ),
      { name: 'ValidationException' },
    );
    const seen: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: 't', Limit: 3, ExclusiveStartKey: start }));
      seen.push(...(page.Items ?? []).map((i) => i.pk as string));
      start = page.LastEvaluatedKey;
    } while (start);
    assert.deepEqual(seen.sort(), ['2024-01', '2024-02', '2024-03', '2025-01']);
  });
});

describe('SimDynamoDB expressions', () => {
  it('SET with if_not_exists, list_append, arithmetic and nested paths; ADD; REMOVE; DELETE; ReturnValues', async () => {
    const { db } = open();
    const key = { pk: 'e', sk: 1 };
    await db.send(
      new PutCommand({
        TableName: 't',
        Item: { ...key, m: { a: { b: 1 } }, l: [1, 2], tags: new Set(['x', 'y']), gone: 1 },
      }),
    );
    const out = await db.send(
      new UpdateCommand({
        TableName: 't',
        Key: key,
        UpdateExpression:
          'SET #m.a.b = #m.a.b + :one, first = if_not_exists(first, :now), l = list_append(l, :more), l2 = if_not_exists(l2, :more) REMOVE gone ADD n :one, tags :z DELETE tags2 :x',
        ExpressionAttributeNames: { '#m': 'm' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':now': 't0',
          ':more': [3],
          ':z': new Set(['z']),
          ':x': new Set(['x']),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    assert.deepEqual(out.Attributes, {
      ...key,
      m: { a: { b: 2 } },
      l: [1, 2, 3],
      l2: [3],
      tags: new Set(['x', 'y', 'z']),
      first: 't0',
      n: 1,
    });
    const again = await db.send(
      new UpdateCommand({
        TableName: 't',
        Key: key,
        UpdateExpression: 'SET first = if_not_exists(first, :now), l[0] = :v DELETE tags :x ADD n :one',
        ExpressionAttributeValues: { ':now': 't1', ':v': 9, ':x': new Set(['x', 'y']), ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    assert.deepEqual(again.Attributes, { first: 't0', l: [9, 2, 3], tags: new Set(['z']), n: 2 });
    await assert.rejects(
      db.send(
        new UpdateCommand({
          TableName: 't',
          Key: key,
          UpdateExpression: 'SET pk = :v',
          ExpressionAttributeValues: { ':v': 'x' },
        }),
      ),
      { name: 'ValidationException' },
      'a key attribute cannot be updated',
    );
    await assert.rejects(
      db.send(
        new UpdateCommand({
          TableName: 't',
          Key: key,
          UpdateExpression: 'SET a = :v',
          ExpressionAttributeValues: { ':v': 1, ':unused': 2 },
        }),
      ),
      { name: 'ValidationException' },
      'an unused value is refused, as DynamoDB does',
    );
  });

  it('conditions: comparisons, BETWEEN, IN, size, begins_with, contains, attribute_type, NOT/AND/OR, nested paths', async () => {
    const { db } = open();
    const key = { pk: 'c', sk: 1 };
    await db.send(
      new PutCommand({
        TableName: 't',
        Item: { ...key, n: 5, s: 'hello', l: ['a', 'b'], m: { x: [{ y: 'deep' }] }, ss: new Set(['q']) },
      }),
    );
    const holds = async (cond: string, values: Record<string, unknown> = {}, names?: Record<string, string>) => {
      try {
        await db.send(
          new DeleteCommand({
            TableName: 't',
            Key: { pk: 'nothing', sk: 0 },
            ConditionExpression: `attribute_not_exists(pk) AND (${cond})`,
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            ...(names ? { ExpressionAttributeNames: names } : {}),
          }),
        );
        return true;
      } catch (e) {
        if ((e as Error).name === 'ConditionalCheckFailedException') return false;
        throw e;
      }
    };
    // Evaluate against the real item through a conditional put that changes nothing.
    const on = async (cond: string, values: Record<string, unknown> = {}, names?: Record<string, string>) => {
      try {
        await db.send(
          new UpdateCommand({
            TableName: 't',
            Key: key,
            UpdateExpression: 'SET touched = :t',
            ConditionExpression: cond,
            ExpressionAttributeValues: { ':t': true, ...values },
            ...(names ? { ExpressionAttributeNames: names } : {}),
          }),
        );
        return true;
      } catch (e) {
        if ((e as Error).name === 'ConditionalCheckFailedException') return false;
        throw e;
      }
    };
    assert.equal(await holds('pk = :p', { ':p': 'x' }), false, 'a missing attribute compares false');
    assert.equal(await on('n BETWEEN :a AND :b', { ':a': 1, ':b': 5 }), true);
    assert.equal(await on('n BETWEEN :a AND :b', { ':a': 6, ':b': 9 }), false);
    assert.equal(await on('s IN (:a, :b)', { ':a': 'x', ':b': 'hello' }), true);
    assert.equal(await on('size(s) = :five AND size(l) < :three', { ':five': 5, ':three': 3 }), true);
    assert.equal(
      await on('begins_with(s, :he) AND contains(l, :b) AND contains(ss, :q)', { ':he': 'he', ':b': 'b', ':q': 'q' }),
      true,
    );
    assert.equal(await on('#m.x[0].y = :d', { ':d': 'deep' }, { '#m': 'm' }), true);
    assert.equal(await on('attribute_type(n, :N) AND NOT attribute_exists(m.x[1])', { ':N': 'N' }), true);
    assert.equal(await on('n > :a OR n < :b', { ':a': 10, ':b': 1 }), false);
    assert.equal(await on('(n > :a OR n < :b) AND s <> :s', { ':a': 1, ':b': 1, ':s': 'hello' }), false);
  });
});

describe('SimDynamoDB speed', () => {
  it('answers simple PutItem/GetItem through the document client fast (zero latency)', async () => {
    // The clock stands still here: lift the limits, or one frozen second would throttle the loop.
    const none = Number.POSITIVE_INFINITY;
    const { db } = open({
      partitionWcu: none,
      partitionRcu: none,
      tableWcu: none,
      tableRcu: none,
      accountWcu: none,
      accountRcu: none,
    });
    const n = 20_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await db.send(new PutCommand({ TableName: 't', Item: { pk: `k${i % 1000}`, sk: i, v: 'payload' } }));
      await db.send(new GetCommand({ TableName: 't', Key: { pk: `k${i % 1000}`, sk: i } }));
    }
    const opsPerSecond = Math.round((2 * n) / ((performance.now() - t0) / 1000));
    console.log(`sim-dynamodb: ${opsPerSecond} PutItem/GetItem ops/s`);
    assert.ok(opsPerSecond > 5_000, `${opsPerSecond} ops/s`);
  });
});
