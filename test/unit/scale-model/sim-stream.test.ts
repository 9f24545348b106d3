/**
 * The simulated DynamoDB stream, fed by writes through a real DynamoDBDocumentClient as the
 * adapters make them: which changes write a record, what a record carries, and where it goes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchWriteCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { streamedTable as streamed } from './streamed-table.ts';

const all = (shards: DynamoDBRecord[][]) =>
  shards.flat().sort((a, b) => (a.dynamodb!.SequenceNumber! < b.dynamodb!.SequenceNumber! ? -1 : 1));

describe('the simulated DynamoDB stream', () => {
  it('writes a record per change, named and imaged as DynamoDB does, in the JSON Lambda hands over', async () => {
    const { time, stream, db } = streamed();
    await time.advance(1_700_000_000_250);
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, n: 1, tags: new Set(['x']) } }));
    await db.send(
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'a', sk: 1 },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': 2 },
      }),
    );
    await db.send(new DeleteCommand({ TableName: 't', Key: { pk: 'a', sk: 1 } }));
    await db.send(
      new BatchWriteCommand({
        RequestItems: { t: [{ PutRequest: { Item: { pk: 'b', sk: 2, blob: new Uint8Array([1, 2]) } } }] },
      }),
    );
    await db.send(new BatchWriteCommand({ RequestItems: { t: [{ DeleteRequest: { Key: { pk: 'b', sk: 2 } } }] } }));
    const records = all(stream.snapshot());
    assert.deepEqual(
      records.map((r) => r.eventName),
      ['INSERT', 'MODIFY', 'REMOVE', 'INSERT', 'REMOVE'],
    );
    const [insert, modify, remove, binary] = records as [
      DynamoDBRecord,
      DynamoDBRecord,
      DynamoDBRecord,
      DynamoDBRecord,
    ];
    assert.deepEqual(insert.dynamodb?.Keys, { pk: { S: 'a' }, sk: { N: '1' } });
    assert.deepEqual(insert.dynamodb?.NewImage, { pk: { S: 'a' }, sk: { N: '1' }, n: { N: '1' }, tags: { SS: ['x'] } });
    assert.equal(insert.dynamodb?.OldImage, undefined);
    assert.deepEqual(modify.dynamodb?.OldImage?.n, { N: '1' });
    assert.deepEqual(modify.dynamodb?.NewImage?.n, { N: '2' });
    assert.equal(remove.dynamodb?.NewImage, undefined);
    assert.deepEqual(remove.dynamodb?.OldImage?.n, { N: '2' });
    assert.deepEqual(binary.dynamodb?.NewImage?.blob, { B: 'AQI=' }, 'binary as base64, as in Lambda’s JSON');
    assert.equal(insert.dynamodb?.ApproximateCreationDateTime, 1_700_000_000);
    assert.ok((insert.dynamodb?.SizeBytes ?? 0) > 0);
    assert.equal(insert.eventSource, 'aws:dynamodb');
    assert.equal(insert.eventVersion, '1.1');
    assert.match(insert.eventSourceARN ?? '', /^arn:aws:dynamodb:us-east-1:\d{12}:table\/t\/stream\//);
    const sequences = records.map((r) => r.dynamodb?.SequenceNumber ?? '');
    assert.ok(
      sequences.every((s, i) => /^\d+$/.test(s) && (i === 0 || BigInt(s) > BigInt(sequences[i - 1] as string))),
      `increasing decimal strings: ${sequences.join(',')}`,
    );
  });

  it('carries only the images its view type asks for', async () => {
    for (const [viewType, withNew, withOld] of [
      ['KEYS_ONLY', false, false],
      ['NEW_IMAGE', true, false],
      ['OLD_IMAGE', false, true],
    ] as const) {
      const { stream, db } = streamed({ viewType });
      await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, n: 1 } }));
      await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, n: 2 } }));
      const [, modify] = all(stream.snapshot());
      assert.equal(modify?.eventName, 'MODIFY');
      assert.deepEqual(modify?.dynamodb?.Keys, { pk: { S: 'a' }, sk: { N: '1' } }, viewType);
      assert.equal(modify?.dynamodb?.NewImage !== undefined, withNew, viewType);
      assert.equal(modify?.dynamodb?.OldImage !== undefined, withOld, viewType);
      assert.equal(modify?.dynamodb?.StreamViewType, viewType);
    }
  });

  it('writes nothing for a refused condition, a write that changes nothing, or a delete of nothing', async () => {
    const { stream, db } = streamed();
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1, n: 1, m: { x: [1, 'y'] } } }));
    await assert.rejects(
      db.send(
        new PutCommand({
          TableName: 't',
          Item: { pk: 'a', sk: 1, n: 9 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
      /conditional request failed/,
    );
    await db.send(new PutCommand({ TableName: 't', Item: { m: { x: [1, 'y'] }, n: 1, sk: 1, pk: 'a' } }));
    await db.send(
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'a', sk: 1 },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': 1 },
      }),
    );
    await db.send(new DeleteCommand({ TableName: 't', Key: { pk: 'nobody', sk: 1 } }));
    assert.deepEqual(
      all(stream.snapshot()).map((r) => r.eventName),
      ['INSERT'],
    );
    assert.equal(stream.stats().records, 1);
  });

  it('keeps each item’s records on one shard, in write order, and spreads keys over the shards', async () => {
    const { stream, db } = streamed({ viewType: 'NEW_IMAGE', shards: 4 });
    for (let version = 1; version <= 20; version++)
      for (let k = 0; k < 50; k++)
        await db.send(new PutCommand({ TableName: 't', Item: { pk: `k${k}`, sk: 0, version } }));
    const shardsOf = new Map<string, Set<number>>();
    const versions = new Map<string, number[]>();
    stream.snapshot().forEach((records, shard) => {
      for (const r of records) {
        const key = r.dynamodb?.Keys?.pk?.S as string;
        (shardsOf.get(key) ?? shardsOf.set(key, new Set()).get(key)!).add(shard);
        (versions.get(key) ?? versions.set(key, []).get(key)!).push(Number(r.dynamodb?.NewImage?.version?.N));
      }
    });
    assert.equal(versions.size, 50);
    for (const [key, seen] of versions) {
      assert.deepEqual(
        seen,
        Array.from({ length: 20 }, (_, i) => i + 1),
        key,
      );
      assert.equal(shardsOf.get(key)?.size, 1, key);
    }
    assert.ok(
      stream.snapshot().every((records) => records.length > 0),
      'every shard gets some keys',
    );
  });

  it('makes a record readable after the propagation delay, and trims it after 24 hours', async () => {
    const { time, stream, db } = streamed({ viewType: 'KEYS_ONLY', shards: 1, propagationMs: 100 });
    const shard = stream.shards[0]!;
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a', sk: 1 } }));
    assert.equal(shard.readableEnd(time.now() + 99), shard.start, 'not yet');
    assert.equal(shard.readableEnd(time.now() + 100), shard.start + 1);
    await time.advance(24 * 3_600_000 + 1);
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'b', sk: 1 } }));
    assert.deepEqual(
      stream.snapshot()[0]?.map((r) => r.dynamodb?.Keys?.pk?.S),
      ['b'],
    );
    assert.equal(stream.stats().trimmed, 1);
  });
});
