import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';

const TABLE = 'hookline-subscriptions';
const ddbMock = mockClient(DynamoDBDocumentClient);
const ITEM = {
  id: 'sub_1',
  url: 'https://hooks.example.com/',
  state: 'active',
  secrets: { scheme: 'local-v1', blob: 'x' },
};

describe('DynamoDbSubscriptionStore.getCached', () => {
  let now = 0;
  const newStore = (cacheMs = 5000) =>
    new DynamoDbSubscriptionStore(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      TABLE,
      cacheMs,
      () => now,
    );
  const reads = () => ddbMock.commandCalls(GetCommand).length;
  beforeEach(() => {
    ddbMock.reset();
    now = 1_000_000;
  });
  after(() => ddbMock.restore());

  it('100 deliveries asking at once (a pack, a batch) share one read; within the cache time, no more', async () => {
    ddbMock.on(GetCommand).callsFake(async () => new Promise((r) => setTimeout(() => r({ Item: ITEM }), 5)));
    const store = newStore();

    const all = await Promise.all(Array.from({ length: 100 }, () => store.getCached('sub_1')));

    assert.equal(reads(), 1);
    assert.ok(all.every((s) => s?.state === 'active'));
    now += 4999;
    await store.getCached('sub_1');
    assert.equal(reads(), 1);
    now += 1;
    await store.getCached('sub_1');
    assert.equal(reads(), 2, 'read again once the cache time has passed');
  });

  it('reads eventually consistent (half the units); a miss is read again consistently, so a new subscription is not taken for deleted', async () => {
    const consistency = () => ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input.ConsistentRead);
    ddbMock.on(GetCommand).resolves({ Item: ITEM });
    await newStore().getCached('sub_1');
    assert.deepEqual(consistency(), [false]);

    ddbMock.reset();
    // Not replicated yet to the copy the eventual read asked; the consistent read has it.
    ddbMock
      .on(GetCommand)
      .callsFake(async (input: { ConsistentRead?: boolean }) => (input.ConsistentRead ? { Item: ITEM } : {}));
    assert.equal((await newStore().getCached('sub_1'))?.id, 'sub_1');
    assert.deepEqual(consistency(), [false, true]);

    ddbMock.reset();
    ddbMock.on(GetCommand).resolves({});
    assert.equal(await newStore().getCached('sub_gone'), undefined, 'gone in both reads: gone');
    assert.deepEqual(consistency(), [false, true]);
  });

  it('a failed read is not kept: the next caller reads again', async () => {
    ddbMock.on(GetCommand).rejectsOnce(new Error('throttled')).resolves({ Item: ITEM });
    const store = newStore();

    await assert.rejects(store.getCached('sub_1'), /throttled/);
    assert.equal((await store.getCached('sub_1'))?.id, 'sub_1');
    assert.equal(reads(), 2);
  });

  it('with no cache time, every call reads', async () => {
    ddbMock.on(GetCommand).resolves({ Item: ITEM });
    const store = newStore(0);

    await Promise.all([store.getCached('sub_1'), store.getCached('sub_1')]);

    assert.equal(reads(), 2);
  });
});

describe('DynamoDbSubscriptionStore.noteDeadLetter', () => {
  const newStore = () =>
    new DynamoDbSubscriptionStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), TABLE);
  const writes = () => ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input as UpdateCommandInput);
  beforeEach(() => ddbMock.reset());
  after(() => ddbMock.restore());

  /** The row as DynamoDB would leave it: the count grows by each write's `:n`, `since` is kept from the first. */
  function fakeTable(delayMs = 5) {
    let count = 0;
    let since: string | undefined;
    ddbMock.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
      const values = input.ExpressionAttributeValues!;
      count += values[':n'] as number;
      since ??= values[':first'] as string;
      await new Promise((r) => setTimeout(r, delayMs));
      return {
        Attributes: { ...ITEM, deadLetterStreak: count, deadLetteringSince: since, lastDeadLetterAt: values[':last'] },
      };
    });
  }

  it('100 dead letters of one subscription at once (a refusing endpoint, a pack) go as two writes, and the count is exact', async () => {
    fakeTable();
    const store = newStore();
    const at = (n: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0, n)).toISOString();

    const rows = await Promise.all(Array.from({ length: 100 }, (_, n) => store.noteDeadLetter('sub_1', at(99 - n))));

    assert.deepEqual(
      writes().map((w) => w.ExpressionAttributeValues![':n']),
      [1, 99],
      'the first goes at once, the rest wait for it and go together',
    );
    assert.equal(writes()[1]!.ExpressionAttributeValues![':first'], at(0), 'the earliest of those waiting');
    assert.equal(writes()[1]!.ExpressionAttributeValues![':last'], at(98), 'the latest of those waiting');
    assert.equal(rows[0]!.deadLetterStreak, 1);
    assert.ok(
      rows.slice(1).every((r) => r!.deadLetterStreak === 100),
      'each waiting caller gets the row its write left',
    );
    await store.noteDeadLetter('sub_1', at(200));
    assert.deepEqual(
      writes().map((w) => w.ExpressionAttributeValues![':n']),
      [1, 99, 1],
      'one alone afterwards is written at once',
    );
  });

  it('keeps subscriptions apart, and a failed write fails only the notes it carried', async () => {
    ddbMock.on(UpdateCommand).rejectsOnce(new Error('throttled')).resolves({ Attributes: ITEM });
    const store = newStore();

    const [a, b] = await Promise.allSettled([
      store.noteDeadLetter('sub_1', '2026-12-01T12:00:00.000Z'),
      store.noteDeadLetter('sub_2', '2026-12-01T12:00:00.000Z'),
    ]);

    assert.equal(a.status, 'rejected');
    assert.equal(b.status, 'fulfilled');
    assert.equal(
      (await store.noteDeadLetter('sub_1', '2026-12-01T12:00:01.000Z'))?.id,
      'sub_1',
      'the next note is written',
    );
    assert.deepEqual(
      writes().map((w) => w.Key),
      [{ id: 'sub_1' }, { id: 'sub_2' }, { id: 'sub_1' }],
    );
  });
});

describe('DynamoDbSubscriptionStore.markRetriedNow and markSlow', () => {
  const newStore = () =>
    new DynamoDbSubscriptionStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), TABLE);
  beforeEach(() => ddbMock.reset());
  after(() => ddbMock.restore());

  for (const [method, attribute] of [
    ['markRetriedNow', 'retriedNowAt'],
    ['markSlow', 'slowUntil'],
  ] as const)
    it(`${method} sets ${attribute} only on a row that is there and not marked as late already; a later mark that lost is no error`, async () => {
      const conditionFailed = Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
      });
      ddbMock.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed).rejects(new Error('throttled'));
      const store = newStore();

      await store[method]('sub_1', '2026-12-01T12:00:00.000Z');
      await store[method]('sub_1', '2026-12-01T11:00:00.000Z');
      await assert.rejects(store[method]('sub_1', '2026-12-01T12:00:01.000Z'), /throttled/);

      const [first] = ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input as UpdateCommandInput);
      assert.deepEqual(
        {
          update: first!.UpdateExpression,
          condition: first!.ConditionExpression,
          names: first!.ExpressionAttributeNames,
          values: first!.ExpressionAttributeValues,
        },
        {
          update: 'SET #at = :at',
          condition: 'attribute_exists(id) AND (attribute_not_exists(#at) OR #at < :at)',
          names: { '#at': attribute },
          values: { ':at': '2026-12-01T12:00:00.000Z' },
        },
      );
    });

  it('a mark written through the store is in its cached copy at once, and the copy still runs out when it would have', async () => {
    let now = 1_000_000;
    const store = new DynamoDbSubscriptionStore(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      TABLE,
      5000,
      () => now,
    );
    ddbMock.on(GetCommand).resolves({ Item: ITEM });
    ddbMock.on(UpdateCommand).resolves({});
    assert.equal((await store.getCached('sub_1'))?.slowUntil, undefined);

    now += 1000;
    await store.markSlow('sub_1', '2026-12-01T12:10:00.000Z');
    assert.equal((await store.getCached('sub_1'))?.slowUntil, '2026-12-01T12:10:00.000Z');
    // An earlier mark (one that lost the race) does not move the copy back.
    await store.markSlow('sub_1', '2026-12-01T12:05:00.000Z');
    assert.equal((await store.getCached('sub_1'))?.slowUntil, '2026-12-01T12:10:00.000Z');
    assert.equal(ddbMock.commandCalls(GetCommand).length, 1, 'read once, within the cache time');

    now += 4500;
    await store.getCached('sub_1');
    assert.equal(ddbMock.commandCalls(GetCommand).length, 2, 'the copy ran out 5 s after its read, not after the mark');
  });

  it('a mark on a copy whose read then fails keeps no failed copy: the next caller reads again', async () => {
    const store = new DynamoDbSubscriptionStore(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      TABLE,
      5000,
      () => 1_000_000,
    );
    let fail!: (e: Error) => void;
    ddbMock
      .on(GetCommand)
      .callsFakeOnce(() => new Promise((_, reject) => (fail = reject)))
      .resolves({ Item: ITEM });
    ddbMock.on(UpdateCommand).resolves({});
    const pending = store.getCached('sub_1');
    await store.markSlow('sub_1', '2026-12-01T12:10:00.000Z');
    fail(new Error('throttled'));
    await assert.rejects(pending, /throttled/);
    await new Promise((r) => setImmediate(r));

    assert.equal((await store.getCached('sub_1'))?.state, 'active');
    assert.equal(ddbMock.commandCalls(GetCommand).length, 2);
  });
});
