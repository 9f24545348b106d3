import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type AttributeValue,
  type PutItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbEventStore, eventFromItem } from '#adapters/dynamodb-event-store.ts';
import { localResourceName, TABLES } from '#config/topology.ts';
import { ensureFeedTable, entrySeq, eventsFeed, writeEntry, type ChangeFeed } from '#local/change-feed.ts';
import { ChangeFeedPoller, type ChangeFeedPollerOptions } from '#local/change-feed-poller.ts';
import { isInsert, recordInserts } from '#local/change-feed-recorder.ts';
import { startEmulators, type Emulators } from '#local/emulators.ts';
import { lambdaContext } from '#local/lambda-context.ts';
import { ensureTable } from '#local/provision.ts';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { anEvent } from '#test/event-store-contract.ts';
import { waitFor } from '#test/wait.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const INSERT = 'attribute_not_exists(id)';

interface Store {
  readonly db: DynamoDBClient;
  readonly emulators: Emulators;
}

async function openStore(dir: string): Promise<Store> {
  const emulators = await startEmulators(dir, new Set(['dynamodb']));
  // One attempt: a request to stopped emulators fails at once instead of retrying into the next test.
  const db = new DynamoDBClient({
    endpoint: emulators.endpoints.dynamodb!,
    region: 'us-east-1',
    credentials,
    maxAttempts: 1,
  });
  return { db, emulators };
}

/** The events table and its feed under `prefix`, created on `db`. */
async function feedOn(db: DynamoDBClient, prefix: string): Promise<ChangeFeed> {
  await ensureTable(db, TABLES.events, prefix);
  await ensureFeedTable(db, prefix);
  return eventsFeed(prefix);
}

/** A client whose inserts into the feed's table are recorded: the writer's side. */
function recordedClient(store: Store, feed: ChangeFeed): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint: store.emulators.endpoints.dynamodb!,
    region: 'us-east-1',
    credentials,
  });
  recordInserts(client, feed);
  return client;
}

function insert(table: string, id: string, createdAt: string, extra: Record<string, AttributeValue> = {}) {
  return new PutItemCommand({
    TableName: table,
    Item: { id: { S: id }, createdAt: { S: createdAt }, ...extra },
    ConditionExpression: INSERT,
  });
}

/** A handler that keeps every record it is given, then answers as `answer` says. */
function collector(
  answer: (records: DynamoDBRecord[], call: number) => DynamoDBBatchResponse | undefined = () => undefined,
) {
  const calls: DynamoDBRecord[][] = [];
  const handler: ChangeFeedPollerOptions['handler'] = async (event) => {
    calls.push(event.Records);
    return answer(event.Records, calls.length);
  };
  return { calls, handler, ids: () => calls.flat().map((r) => r.dynamodb!.Keys!.id!.S!) };
}

function poller(store: Store, feed: ChangeFeed, options: Partial<ChangeFeedPollerOptions>): ChangeFeedPoller {
  const p = new ChangeFeedPoller({
    dynamodb: store.db,
    feed,
    handler: async () => undefined,
    context: () => lambdaContext('ingest'),
    onError: () => undefined,
    pollIntervalMs: 20,
    retryDelayMs: 20,
    settleMs: 300,
    ...options,
  });
  p.start();
  return p;
}

async function entriesLeft(db: DynamoDBClient, feed: ChangeFeed): Promise<number> {
  const out = await db.send(
    new QueryCommand({
      TableName: feed.feedTable,
      KeyConditionExpression: 'feed = :f',
      ExpressionAttributeValues: { ':f': { S: feed.watchedTable } },
      ConsistentRead: true,
    }),
  );
  return out.Count ?? 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the change feed: the runtime stand-in for the events table stream', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookline-change-feed-'));
  let store: Store;
  let tables = 0;
  /** Tables of their own per test: one emulator, no test seeing another's entries. */
  const freshFeed = () => feedOn(store.db, `cf${++tables}`);

  before(async () => {
    store = await openStore(join(dir, 'shared'));
  });
  after(async () => {
    store.db.destroy();
    await store.emulators.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hands a publish insert over once, as a NEW_IMAGE INSERT record of the stored item', async () => {
    const feed = await freshFeed();
    const writer = recordedClient(store, feed);
    const events = new DynamoDbEventStore(documentClient(writer), feed.watchedTable);
    const event = anEvent({ id: 'evt_once' });
    assert.deepEqual(await events.putIfAbsent(event, 1_900_000_000), { kind: 'created' });
    const seen = collector();
    const p = poller(store, feed, { handler: seen.handler });
    try {
      await waitFor('the record', () => seen.calls.length > 0);
      await waitFor('the entry deleted', async () => (await entriesLeft(store.db, feed)) === 0);
      await sleep(100);
    } finally {
      await p.stop();
      writer.destroy();
    }
    assert.deepEqual(seen.ids(), ['evt_once'], 'once, nothing else');
    const record = seen.calls[0]![0]!;
    assert.equal(record.eventName, 'INSERT');
    assert.equal(record.eventSource, 'aws:dynamodb');
    assert.match(record.eventSourceARN!, /^arn:aws:dynamodb:.+\/stream\//);
    assert.equal(record.dynamodb!.StreamViewType, 'NEW_IMAGE');
    assert.deepEqual(record.dynamodb!.Keys, { id: { S: 'evt_once' } });
    assert.match(record.dynamodb!.SequenceNumber!, /^\d{15}#evt_once#/);
    assert.ok(Math.abs(record.dynamodb!.ApproximateCreationDateTime! - Date.now() / 1000) < 60);
    // The image as Lambda's JSON carries it (binary as base64), and it reads back as the event published.
    const image = record.dynamodb!.NewImage!;
    assert.equal(typeof image.bodyZ!.B, 'string');
    const item = unmarshall({
      ...(image as Record<string, AttributeValue>),
      bodyZ: { B: Buffer.from(image.bodyZ!.B!, 'base64') },
    });
    assert.deepEqual(eventFromItem(item), event);
  });

  it('records only conditional inserts into the watched table', async () => {
    const feed = await freshFeed();
    // The same shape under another name: only the table's name tells it from the watched one.
    const other = localResourceName(TABLES.events, 'cf-other');
    await ensureTable(store.db, TABLES.events, 'cf-other');
    const writer = recordedClient(store, feed);
    try {
      await writer.send(
        new PutItemCommand({ TableName: feed.watchedTable, Item: { id: { S: 'plain' }, createdAt: { S: 'a' } } }),
      );
      await writer.send(
        new PutItemCommand({
          TableName: feed.watchedTable,
          Item: { id: { S: 'or' }, createdAt: { S: 'a' } },
          ConditionExpression: 'attribute_not_exists(id) OR createdAt = :c',
          ExpressionAttributeValues: { ':c': { S: 'x' } },
        }),
      );
      await writer.send(
        new PutItemCommand({ TableName: other, Item: { id: { S: 'elsewhere' } }, ConditionExpression: INSERT }),
      );
      assert.equal(await entriesLeft(store.db, feed), 0, 'no entry for a put that is not an insert');
      await writer.send(insert(feed.watchedTable, 'inserted', 'a'));
      assert.equal(await entriesLeft(store.db, feed), 1, 'the one insert has its entry');
    } finally {
      writer.destroy();
    }
  });

  it('tells an insert by its condition, also under an alias and ANDed, never ORed or negated', () => {
    const put = (c: string, names?: Record<string, string>): PutItemCommandInput => ({
      TableName: 't',
      Item: {},
      ConditionExpression: c,
      ExpressionAttributeNames: names,
    });
    assert.equal(isInsert(put('attribute_not_exists(id)'), 'id'), true);
    assert.equal(isInsert(put('attribute_not_exists(#k)', { '#k': 'id' }), 'id'), true);
    assert.equal(isInsert(put('(attribute_not_exists(id)) AND x = :x'), 'id'), true);
    assert.equal(isInsert(put('attribute_not_exists(other)'), 'id'), false);
    assert.equal(isInsert(put('attribute_not_exists(id) OR x = :x'), 'id'), false);
    assert.equal(isInsert(put('NOT attribute_exists(id) AND NOT attribute_not_exists(id)'), 'id'), false);
    assert.equal(isInsert({ TableName: 't', Item: {} }, 'id'), false);
  });

  it('never hands over a refused insert, and gives its entry up after settleMs', async () => {
    const feed = await freshFeed();
    const writer = recordedClient(store, feed);
    const seen = collector();
    try {
      await writer.send(insert(feed.watchedTable, 'evt_dup', 'first'));
      const p = poller(store, feed, { handler: seen.handler });
      await waitFor('the first insert', () => seen.calls.length > 0);
      await assert.rejects(writer.send(insert(feed.watchedTable, 'evt_dup', 'second')), {
        name: 'ConditionalCheckFailedException',
      });
      assert.equal(await entriesLeft(store.db, feed), 1, 'the refused attempt was recorded first');
      await waitFor('the refused entry given up', async () => (await entriesLeft(store.db, feed)) === 0);
      await p.stop();
    } finally {
      writer.destroy();
    }
    assert.deepEqual(
      seen.calls.flat().map((r) => r.dynamodb!.NewImage!.createdAt!.S),
      ['first'],
      'the refused attempt never reached the handler',
    );
  });

  it('gives up the entry of a writer killed before its put, handing nothing over', async () => {
    const feed = await freshFeed();
    const at = Date.now();
    await writeEntry(store.db, feed, {
      seq: entrySeq(at, 'evt_killed'),
      at,
      key: { id: { S: 'evt_killed' } },
      stamp: { S: 'k' },
    });
    const seen = collector();
    const p = poller(store, feed, { handler: seen.handler, settleMs: 400 });
    try {
      await sleep(200);
      assert.equal(await entriesLeft(store.db, feed), 1, 'kept while its put may still be in flight');
      await waitFor('the entry given up', async () => (await entriesLeft(store.db, feed)) === 0, 5_000, 20);
      assert.ok(Date.now() - at >= 400, 'not before settleMs');
    } finally {
      await p.stop();
    }
    assert.equal(seen.calls.length, 0);
  });

  it('hands a late put over when it lands within settleMs', async () => {
    const feed = await freshFeed();
    const at = Date.now();
    // The entry now, its put a moment later: the put was in flight when the poller first looked.
    await writeEntry(store.db, feed, {
      seq: entrySeq(at, 'evt_late'),
      at,
      key: { id: { S: 'evt_late' } },
      stamp: { S: 'l' },
    });
    const seen = collector();
    const p = poller(store, feed, { handler: seen.handler, settleMs: 2_000 });
    try {
      await sleep(150);
      assert.equal(seen.calls.length, 0);
      await store.db.send(insert(feed.watchedTable, 'evt_late', 'l'));
      await waitFor('the late insert', () => seen.calls.length > 0);
    } finally {
      await p.stop();
    }
    assert.deepEqual(seen.ids(), ['evt_late']);
  });

  it('steps over waiting entries: a refused insert or a killed writer holds no one back', async () => {
    const feed = await freshFeed();
    const writer = recordedClient(store, feed);
    const seen = collector();
    try {
      await writer.send(insert(feed.watchedTable, 'evt_taken', 'old'));
      await assert.rejects(writer.send(insert(feed.watchedTable, 'evt_taken', 'new')));
      // More waiting entries than a batch holds, all older than the insert behind them.
      for (let i = 0; i < 5; i++) {
        const at = Date.now();
        await writeEntry(store.db, feed, {
          seq: entrySeq(at, `evt_dead${i}`),
          at,
          key: { id: { S: `evt_dead${i}` } },
          stamp: { S: 'd' },
        });
      }
      await writer.send(insert(feed.watchedTable, 'evt_after', 'a'));
      const p = poller(store, feed, { handler: seen.handler, batchSize: 2, settleMs: 60_000 });
      try {
        await waitFor('the insert behind them', () => seen.ids().includes('evt_after'), 3_000, 20);
      } finally {
        await p.stop();
      }
      assert.deepEqual(seen.ids(), ['evt_taken', 'evt_after'], 'both inserts, in entry order, nothing refused');
      assert.equal(await entriesLeft(store.db, feed), 6, 'the waiting ones stay until settleMs');
    } finally {
      writer.destroy();
    }
  });

  it('looks again as soon as the recorder says an insert landed, not after the poll interval', async () => {
    const feed = await freshFeed();
    const seen = collector();
    const p = poller(store, feed, { handler: seen.handler, pollIntervalMs: 60_000 });
    const writer = new DynamoDBClient({
      endpoint: store.emulators.endpoints.dynamodb!,
      region: 'us-east-1',
      credentials,
    });
    recordInserts(writer, feed, Date.now, () => p.nudge());
    try {
      // The first round found nothing and sleeps a minute; only the nudge can end it in time.
      await sleep(100);
      await writer.send(insert(feed.watchedTable, 'evt_now', 'n'));
      await waitFor('the insert handed over', () => seen.ids().includes('evt_now'), 2_000, 20);
    } finally {
      await p.stop();
      writer.destroy();
    }
  });

  it('hands one insert tried twice with the same stamp (an event id twice in one publish batch) over once', async () => {
    const feed = await freshFeed();
    const writer = recordedClient(store, feed);
    try {
      const tries = await Promise.allSettled([
        writer.send(insert(feed.watchedTable, 'evt_twice', 'same')),
        writer.send(insert(feed.watchedTable, 'evt_twice', 'same')),
      ]);
      assert.deepEqual(tries.map((t) => t.status).sort(), ['fulfilled', 'rejected'], 'one landed, one was refused');
      assert.equal(await entriesLeft(store.db, feed), 2, 'each try wrote its entry first');
      const seen = collector();
      const p = poller(store, feed, { handler: seen.handler, settleMs: 60_000 });
      try {
        await waitFor('both entries gone', async () => (await entriesLeft(store.db, feed)) === 0);
      } finally {
        await p.stop();
      }
      assert.deepEqual(seen.ids(), ['evt_twice'], 'one record for the insert, its twin deleted with it');
    } finally {
      writer.destroy();
    }
  });

  it('gives a throwing handler the same records again until it succeeds', async () => {
    const feed = await freshFeed();
    for (const id of ['a', 'b', 'c']) await store.db.send(insert(feed.watchedTable, id, 's'));
    // The entries are written directly, in order, as the recorder would.
    let at = Date.now() - 10;
    for (const id of ['a', 'b', 'c']) {
      at++;
      await writeEntry(store.db, feed, { seq: entrySeq(at, id), at, key: { id: { S: id } }, stamp: { S: 's' } });
    }
    const errors: unknown[] = [];
    const seen = collector((_, call) => {
      if (call < 3) throw new Error(`down (${call})`);
      return undefined;
    });
    const p = poller(store, feed, { handler: seen.handler, onError: (e) => errors.push(e) });
    try {
      await waitFor('the third call', () => seen.calls.length >= 3);
      await waitFor('the entries deleted', async () => (await entriesLeft(store.db, feed)) === 0);
    } finally {
      await p.stop();
    }
    assert.equal(seen.calls.length, 3, 'no call after the one that succeeded');
    for (const call of seen.calls)
      assert.deepEqual(
        call.map((r) => r.dynamodb!.Keys!.id!.S),
        ['a', 'b', 'c'],
      );
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ['down (1)', 'down (2)'],
    );
  });

  it('resumes a partial batch failure from the record it names', async () => {
    const feed = await freshFeed();
    const writer = recordedClient(store, feed);
    try {
      for (const id of ['p1', 'p2', 'p3', 'p4']) await writer.send(insert(feed.watchedTable, id, 's'));
    } finally {
      writer.destroy();
    }
    const seen = collector((records, call) =>
      call === 1 ? { batchItemFailures: [{ itemIdentifier: records[2]!.dynamodb!.SequenceNumber! }] } : undefined,
    );
    const p = poller(store, feed, { handler: seen.handler });
    try {
      await waitFor('the second call', () => seen.calls.length >= 2);
      await waitFor('the entries deleted', async () => (await entriesLeft(store.db, feed)) === 0);
    } finally {
      await p.stop();
    }
    const ids = seen.calls.map((c) => c.map((r) => r.dynamodb!.Keys!.id!.S));
    assert.deepEqual(ids, [
      ['p1', 'p2', 'p3', 'p4'],
      ['p3', 'p4'],
    ]);
  });

  it('hands every insert of concurrent writers over, each at least once', async () => {
    const feed = await freshFeed();
    const seen = collector();
    const p = poller(store, feed, { handler: seen.handler, batchSize: 7 });
    const writers = Array.from({ length: 6 }, () => recordedClient(store, feed));
    const expected = new Set<string>();
    try {
      await Promise.all(
        writers.map(async (w, n) => {
          for (let i = 0; i < 30; i++) {
            const id = `evt_w${n}_${i}`;
            expected.add(id);
            await w.send(insert(feed.watchedTable, id, `s${i}`));
            // A refused retry now and then, as a publish retried after its insert landed.
            if (i % 10 === 0) await w.send(insert(feed.watchedTable, id, `retry${i}`)).catch(() => undefined);
          }
        }),
      );
      await waitFor(
        'every insert',
        () => expected.size === 180 && [...expected].every((id) => seen.ids().includes(id)),
      );
    } finally {
      await p.stop();
      for (const w of writers) w.destroy();
    }
    const got = seen.ids();
    assert.equal(new Set(got).size, 180, 'none lost');
    assert.ok(
      got.every((id) => expected.has(id)),
      'nothing that was not inserted',
    );
    assert.ok(
      seen.calls.flat().every((r) => !String(r.dynamodb!.NewImage!.createdAt!.S).startsWith('retry')),
      'no refused retry',
    );
    assert.ok(
      seen.calls.every((c) => c.length <= 7),
      'batches within batchSize',
    );
  });
});

describe('the change feed across a restart of the store', () => {
  it('keeps its entries, and hands over again what a dead poller had not checkpointed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-change-feed-restart-'));
    let store = await openStore(dir);
    let stopped = false;
    try {
      const feed = await feedOn(store.db, '');
      const writer = recordedClient(store, feed);
      for (const id of ['r1', 'r2']) await writer.send(insert(feed.watchedTable, id, 's'));
      writer.destroy();
      // The "process" dies after the handler ran and before the checkpoint: the store goes down under it.
      const dying = store;
      const first = collector(() => undefined);
      const errors: unknown[] = [];
      const p = poller(dying, feed, {
        handler: async (event, context) => {
          const out = await first.handler(event, context);
          stopped = true;
          await dying.emulators.stop();
          return out;
        },
        onError: (e) => errors.push(e),
      });
      await waitFor('the first hand-over', () => first.calls.length > 0);
      await waitFor('the failed checkpoint', () => errors.length > 0);
      await p.stop();
      dying.db.destroy();
      assert.deepEqual(first.ids(), ['r1', 'r2']);

      store = await openStore(dir);
      stopped = false;
      assert.equal(await entriesLeft(store.db, feed), 2, 'the entries survived the restart');
      const second = collector();
      const again = poller(store, feed, { handler: second.handler });
      try {
        await waitFor('the second hand-over', () => second.calls.length > 0);
        await waitFor('the entries deleted', async () => (await entriesLeft(store.db, feed)) === 0);
      } finally {
        await again.stop();
      }
      assert.deepEqual(second.ids(), ['r1', 'r2'], 'at least once: the same records again');
    } finally {
      store.db.destroy();
      if (!stopped) await store.emulators.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
