import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';

const TABLE = 'hookline-subscriptions';
const ddbMock = mockClient(DynamoDBDocumentClient);
const ITEM = { id: 'sub_1', url: 'https://hooks.example.com/', state: 'active', secrets: { scheme: 'local-v1', blob: 'x' } };

describe('DynamoDbSubscriptionStore.getCached', () => {
  let now = 0;
  const newStore = (cacheMs = 5000) => new DynamoDbSubscriptionStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), TABLE, cacheMs, () => now);
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
