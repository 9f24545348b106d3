import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type GetCommandInput,
  type PutCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { decodeBody } from '#adapters/body-codec.ts';
import { DynamoDbRecoveryStore } from '#adapters/dynamodb-recovery-store.ts';
import type { ArchiveRecord } from '#domain/archive.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { InvalidCursorError } from '#ports/page.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
after(() => ddbMock.restore());

describe('DynamoDbRecoveryStore.listDeadLettersChanged: the dead-letter shards', () => {
  let queried: QueryCommandInput[] = [];
  const store = () =>
    new DynamoDbRecoveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), {
      deliveries: 'deliveries',
    });

  beforeEach(() => {
    ddbMock.reset();
    queried = [];
    ddbMock.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      queried.push(input);
      return { Items: [] };
    });
  });

  it('reads each of the 32 shards once over an empty range, however many years it spans, and ends', async () => {
    const page = await store().listDeadLettersChanged({
      changedFrom: '0001-01-01T00:00:00.000Z',
      changedTo: '2024-05-01T12:00:00.000Z',
      limit: 200,
    });
    assert.deepEqual(page, { items: [] });
    assert.deepEqual(
      queried.map((q) => q.ExpressionAttributeValues?.[':pk']),
      Array.from({ length: 32 }, (_, k) => `dl#${k}`),
    );
    for (const q of queried) {
      assert.equal(q.KeyConditionExpression, '#pk = :pk AND #sk BETWEEN :from AND :to');
      assert.deepEqual(
        [q.ExpressionAttributeValues?.[':from'], q.ExpressionAttributeValues?.[':to']],
        ['0001-01-01T00:00:00.000Z', '2024-05-01T12:00:00.000Z'],
      );
      assert.equal(q.ScanIndexForward, true, 'oldest first');
      const projected = (q.ProjectionExpression ?? '').split(', ').map((alias) => q.ExpressionAttributeNames?.[alias]);
      assert.deepEqual(
        projected,
        ['id', 'subscriptionShard', 'listKey', 'dlShard', 'updatedAt'],
        'ids and keys only: the rows are then read consistently',
      );
    }
  });

  it("reads one subscription's 16 shards of the per-subscription dead-letter index", async () => {
    await store().listDeadLettersChanged({
      subscriptionId: 'sub_1',
      changedFrom: '2024-04-28T00:00:00.000Z',
      changedTo: '2024-05-01T12:00:00.000Z',
      limit: 10,
    });
    assert.deepEqual(
      queried.map((q) => [q.IndexName, q.ExpressionAttributeNames?.['#pk'], q.ExpressionAttributeValues?.[':pk']]),
      Array.from({ length: 16 }, (_, k) => ['deadLettersBySubscriptionShard', 'dlSubscriptionShard', `sub_1#${k}`]),
    );
  });
});

describe('DynamoDbRecoveryStore.listDeadLettersChanged in any order: every shard at once', () => {
  const store = () =>
    new DynamoDbRecoveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), {
      deliveries: 'deliveries',
    });
  const range = { changedFrom: '2024-05-01T00:00:00.000Z', changedTo: '2024-05-01T12:00:00.000Z' };
  /** Index entries by shard: dl#0 holds 5, dl#1 holds 2, the other 30 none. */
  const shardItems = (pk: string) =>
    Array.from({ length: pk === 'dl#0' ? 5 : pk === 'dl#1' ? 2 : 0 }, (_, i) => ({
      id: `dlv_${pk}_${i}`,
      dlShard: pk,
      updatedAt: `2024-05-01T10:00:0${i}.000Z`,
      subscriptionShard: 'sub_1#0',
      listKey: `k${i}`,
    }));
  let queried: QueryCommandInput[] = [];
  let returned: string[] = [];

  beforeEach(() => {
    ddbMock.reset();
    queried = [];
    // A partition read as DynamoDB pages it: Limit items from after ExclusiveStartKey, with a LastEvaluatedKey when it stopped at Limit.
    ddbMock.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      queried.push(input);
      const all = shardItems(String(input.ExpressionAttributeValues?.[':pk']));
      const start = input.ExclusiveStartKey ? all.findIndex((i) => i.id === input.ExclusiveStartKey!.id) + 1 : 0;
      const items = all.slice(start, start + (input.Limit ?? all.length));
      const stopped = start + items.length < all.length || items.length === input.Limit;
      returned.push(...items.map((i) => i.id));
      return { Items: items, ...(stopped && items.length ? { LastEvaluatedKey: items.at(-1) } : {}) };
    });
  });

  /** Walks the listing to its end in pages of `limit`: each page's queries and the ids its queries returned. */
  async function walk(limit: number) {
    const pages: { queries: [unknown, number | undefined, unknown][]; ids: string[] }[] = [];
    let cursor: string | undefined;
    do {
      queried = [];
      returned = [];
      const page = await store().listDeadLettersChanged({
        ...range,
        anyOrder: true,
        limit,
        ...(cursor ? { cursor } : {}),
      });
      pages.push({
        queries: queried.map((q) => [q.ExpressionAttributeValues?.[':pk'], q.Limit, q.ExclusiveStartKey?.updatedAt]),
        ids: returned,
      });
      cursor = page.nextCursor;
    } while (cursor);
    return pages;
  }

  it('queries every shard at once for its share of the page, and each goes on from where its own query stopped', async () => {
    const pages = await walk(64);
    assert.deepEqual(
      pages.map((p) => p.queries.length),
      [32, 2],
      'all 32 shards for the first page (two items each), then only the two not read to their end',
    );
    assert.deepEqual(pages[1]!.queries, [
      ['dl#0', 32, '2024-05-01T10:00:01.000Z'],
      ['dl#1', 32, '2024-05-01T10:00:01.000Z'],
    ]);
    assert.deepEqual(
      pages.flatMap((p) => p.ids).sort(),
      [...shardItems('dl#0'), ...shardItems('dl#1')].map((i) => i.id).sort(),
    );
  });

  it('never reads more than the page: a page smaller than the shards asks the first shards left for one each', async () => {
    const pages = await walk(4);
    assert.deepEqual(pages[0]!.queries, [
      ['dl#0', 1, undefined],
      ['dl#1', 1, undefined],
      ['dl#2', 1, undefined],
      ['dl#3', 1, undefined],
    ]);
    for (const p of pages) assert.ok(p.ids.length <= 4, `${p.ids.length} items in a page of 4`);
    const ids = pages.flatMap((p) => p.ids);
    assert.equal(new Set(ids).size, ids.length, 'each item once');
    assert.equal(ids.length, 7);
  });

  it('refuses a cursor that is not one position per shard', async () => {
    const forged = `w.${Buffer.from(JSON.stringify([0, null])).toString('base64url')}`;
    await assert.rejects(
      store().listDeadLettersChanged({ ...range, anyOrder: true, limit: 4, cursor: forged }),
      InvalidCursorError,
    );
    assert.equal(queried.length, 0);
  });

  it('goes on in the merged order from a merged listing’s cursor (a replay checkpointed before the walk by shard)', async () => {
    const ordered = await store().listDeadLettersChanged({ ...range, limit: 1 });
    assert.ok(ordered.nextCursor);
    queried = [];
    const next = await store().listDeadLettersChanged({
      ...range,
      anyOrder: true,
      limit: 1,
      cursor: ordered.nextCursor!,
    });
    assert.equal(queried.length, 32, 'every shard queried, as the merged order does');
    assert.ok(next.nextCursor && 'p' in JSON.parse(Buffer.from(next.nextCursor, 'base64url').toString()));
  });
});

describe('DynamoDbRecoveryStore.restore: the event', () => {
  const tables = { deliveries: 'deliveries', attempts: 'attempts', events: 'events' };
  const store = () =>
    new DynamoDbRecoveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), tables);
  const conditionFailed = () =>
    new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
  const UNTIL = '2024-05-08T12:00:00.000Z';
  const TTL = Date.parse(UNTIL) / 1000 + 30 * 86_400;
  // The delivery's id is of its own subscription and creation time, as the deliveries table's key needs.
  const deliveryId = deliveryIdFor('evt_1', 'sub_1', '2024-01-01T00:00:00.000Z');
  const record: ArchiveRecord = {
    v: 1,
    delivery: {
      id: deliveryId,
      eventId: 'evt_1',
      subscriptionId: 'sub_1',
      url: 'https://hooks.example.com/in',
      state: 'delivered',
      attempts: 1,
      attemptSeq: 1,
      nextAttemptAt: '2024-01-01T00:00:00.000Z',
      giveUpAt: '2024-01-04T00:00:00.000Z',
      headers: {},
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:01.000Z',
    },
    attempts: [],
    event: {
      id: 'evt_1',
      type: 'order.created',
      body: '{"id":"evt_1","data":{"total":1.0}}',
      createdAt: '2024-01-01T00:00:00.000Z',
    },
    archivedAt: '2024-02-01T00:00:00.000Z',
  };
  const marker = {
    objectKey: 'deliveries/dt=2024-01-01/subscription=sub_1/part-0.ndjson.gz',
    until: UNTIL,
    updatedAt: record.delivery.updatedAt,
  };
  const eventPuts = () =>
    ddbMock
      .commandCalls(PutCommand)
      .map((c) => c.args[0].input)
      .filter((i) => i.TableName === 'events');
  const eventUpdates = () => ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input);

  beforeEach(() => ddbMock.reset());

  it('puts a gone event back compressed, kept for the hold plus the margin, with no other attribute', async () => {
    ddbMock.on(PutCommand).resolves({});

    assert.equal(await store().restore(record, marker), true);

    const [put] = eventPuts();
    const item = put!.Item!;
    assert.equal(put!.ConditionExpression, 'attribute_not_exists(id)');
    assert.equal(decodeBody(item.bodyZ, item.bodySha256), record.event!.body);
    assert.deepEqual(Object.keys(item).sort(), [
      'bodySha256',
      'bodyZ',
      'createdAt',
      'deliveryIds',
      'expiresAt',
      'id',
      'subscriptionIds',
      'type',
    ]);
    assert.deepEqual([item.expiresAt, item.deliveryIds, item.subscriptionIds], [TTL, [deliveryId], ['sub_1']]);
    assert.deepEqual(eventUpdates(), []);
  });

  it('extends an event still there to the hold (never shortening it) and checks it is still there, before the delivery goes back', async () => {
    const order: string[] = [];
    ddbMock.on(PutCommand).callsFake((input: PutCommandInput) => {
      order.push(`put ${input.TableName}`);
      if (input.TableName === 'events') throw conditionFailed();
      return {};
    });
    ddbMock.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
      order.push(`update ${input.TableName} ${input.UpdateExpression}`);
      return {};
    });
    ddbMock.on(GetCommand).callsFake((input: GetCommandInput) => {
      order.push(`get ${input.TableName}`);
      return { Item: { id: 'evt_1' } };
    });

    assert.equal(await store().restore(record, marker), true);

    assert.deepEqual(order, ['put events', 'update events SET #e = :t', 'get events', 'put deliveries']);
    const [extend] = eventUpdates();
    assert.deepEqual(
      [extend!.ConditionExpression, extend!.ExpressionAttributeNames, extend!.ExpressionAttributeValues],
      ['attribute_exists(id) AND #e < :t', { '#e': 'expiresAt' }, { ':t': TTL }],
    );
    assert.equal(ddbMock.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead, true);
  });

  it('an event kept longer already is left as it is (the refused extension is the answer)', async () => {
    ddbMock.on(PutCommand).callsFake((input: PutCommandInput) => {
      if (input.TableName === 'events') throw conditionFailed();
      return {};
    });
    ddbMock.on(UpdateCommand).rejects(conditionFailed());
    ddbMock.on(GetCommand).resolves({ Item: { id: 'evt_1' } });

    assert.equal(await store().restore(record, marker), true);

    assert.equal(eventPuts().length, 1);
  });

  it('puts it again when its TTL deleted it between the put and the extension', async () => {
    let eventPutsSoFar = 0;
    ddbMock.on(PutCommand).callsFake((input: PutCommandInput) => {
      if (input.TableName === 'events' && eventPutsSoFar++ === 0) throw conditionFailed();
      return {};
    });
    ddbMock.on(UpdateCommand).rejects(conditionFailed());
    ddbMock.on(GetCommand).resolves({});

    assert.equal(await store().restore(record, marker), true);

    assert.equal(eventPuts().length, 2);
    assert.equal(eventPuts()[1]!.Item!.expiresAt, TTL);
  });

  it('refuses a delivery whose id is not of its own subscription and creation time before writing anything: no attempt, event or delivery', async () => {
    ddbMock.on(PutCommand).resolves({});

    for (const delivery of [
      { ...record.delivery, id: 'dlv_1' },
      { ...record.delivery, subscriptionId: 'sub_2' },
      { ...record.delivery, createdAt: '2024-01-01T00:00:00.001Z' },
    ]) {
      await assert.rejects(
        store().restore({ ...record, delivery }, marker),
        /is not the id of a delivery of/,
        JSON.stringify(delivery.id),
      );
    }
    assert.equal(ddbMock.commandCalls(PutCommand).length, 0);
  });

  it('gives up when the event keeps vanishing', async () => {
    ddbMock.on(PutCommand).callsFake((input: PutCommandInput) => {
      if (input.TableName === 'events') throw conditionFailed();
      return {};
    });
    ddbMock.on(UpdateCommand).rejects(conditionFailed());
    ddbMock.on(GetCommand).resolves({});

    await assert.rejects(store().restore(record, marker), /kept disappearing/);
    assert.equal(
      ddbMock.commandCalls(PutCommand).filter((c) => c.args[0].input.TableName === 'deliveries').length,
      0,
      'no delivery without its body',
    );
  });
});
