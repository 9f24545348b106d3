/**
 * What every IngestManifestStore must do, as cases run against the in-memory store the service
 * tests use (test/unit/support/memory-ingest-manifest-store.test.ts) and the DynamoDB adapter on
 * a real DynamoDB API (test/integration/ingest-manifest-store-contract.test.ts): the sweeper's
 * reads past a watermark, the watermarks themselves, and the event log merged across shards.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type {
  EventLogEntry,
  EventLogRequest,
  IngestManifest,
  IngestManifestStore,
} from '#ports/ingest-manifest-store.ts';
import { InvalidCursorError } from '#ports/page.ts';

export interface ManifestStoreUnderTest {
  readonly store: IngestManifestStore;
  dispose(): Promise<void>;
}

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** A batch at `seconds` in `shard`, its events `<key>-0`… of the given types. */
function batch(shard: string, seconds: number, id: string, types: readonly string[]): IngestManifest {
  const createdAt = at(seconds);
  return {
    shard,
    key: `${createdAt}#${id}`,
    createdAt,
    eventIds: types.map((_, i) => `${id}-${i}`),
    eventTypes: [...types],
    deliveryIds: types.map((_, i) => `dlv_${id}${i}`),
    expiresAt: 1_900_000_000,
  };
}

/** Every page of the log; a page may be short (a filter), so only the end of the cursors ends it. */
async function walk(store: IngestManifestStore, request: Omit<EventLogRequest, 'cursor'>): Promise<EventLogEntry[]> {
  const all: EventLogEntry[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 200, 'paging does not end');
    const page = await store.listEvents({ ...request, ...(cursor ? { cursor } : {}) });
    assert.ok(page.items.length <= request.limit);
    all.push(...page.items);
    if (!page.nextCursor) return all;
    cursor = page.nextCursor;
  }
}

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const MANIFEST_CONTRACT_CASES = 6;

export function ingestManifestStoreContract(label: string, open: () => Promise<ManifestStoreUnderTest>): void {
  const withStore = (body: (store: IngestManifestStore) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened.store);
    } finally {
      await opened.dispose();
    }
  };

  // Batches over four shards, out of order, some at the same instant: the log is by time across all.
  const batches = [
    batch('m0', 10, 'a', ['order.created', 'order.paid']),
    batch('m5', 20, 'b', ['order.created']),
    batch('m0', 30, 'c', ['user.created', 'order.created', 'order.paid']),
    batch('m15', 30, 'd', ['order.paid']),
    batch('m5', 40, 'e', ['user.created']),
    batch('m9', 5, 'f', ['order.created', 'order.created']),
  ];
  const newestFirst = [...batches]
    .sort((x, y) => y.key.localeCompare(x.key))
    .flatMap((m) => [...m.eventIds].reverse().map((id) => ({ id, m })));
  const entry = ({ id, m }: (typeof newestFirst)[number]): EventLogEntry => ({
    eventId: id,
    eventType: m.eventTypes![m.eventIds.indexOf(id)]!,
    createdAt: m.createdAt,
  });

  describe(`IngestManifestStore contract: ${label}`, () => {
    it(
      'listAfter reads one shard strictly between the watermark and the cut-off, oldest first, at most limit',
      withStore(async (store) => {
        for (const m of batches) await store.put(m);

        assert.deepEqual(
          (await store.listAfter('m0', '', at(60), 10)).map((m) => m.key),
          [batches[0]!.key, batches[2]!.key],
        );
        assert.deepEqual(
          await store.listAfter('m0', '', at(60), 10).then((l) => l[0]),
          batches[0],
          'the manifest as written',
        );
        assert.deepEqual(
          (await store.listAfter('m0', batches[0]!.key, at(60), 10)).map((m) => m.key),
          [batches[2]!.key],
          'the watermark key itself was checked',
        );
        assert.deepEqual(
          (await store.listAfter('m0', '', at(30), 10)).map((m) => m.key),
          [batches[0]!.key],
          'the cut-off is exclusive',
        );
        assert.deepEqual(
          (await store.listAfter('m0', '', at(60), 1)).map((m) => m.key),
          [batches[0]!.key],
        );
        assert.deepEqual(await store.listAfter('m0', at(40), at(30), 10), []);
        assert.deepEqual(await store.listAfter('m7', '', at(60), 10), []);
      }),
    );

    it(
      'keeps one watermark per shard, moved only from the one it was read as',
      withStore(async (store) => {
        assert.deepEqual(await store.watermarks(), []);
        assert.equal(await store.setWatermark({ shard: 'm0', checkedBefore: at(10), checked: [] }, undefined), true);
        assert.equal(
          await store.setWatermark({ shard: 'm0', checkedBefore: at(11), checked: [] }, undefined),
          false,
          'another sweep wrote it first',
        );
        assert.equal(
          await store.setWatermark(
            { shard: 'm0', checkedBefore: at(20), checked: [`${at(25)}#x`] },
            { shard: 'm0', checkedBefore: at(10), checked: [] },
          ),
          true,
        );
        assert.equal(
          await store.setWatermark(
            { shard: 'm0', checkedBefore: at(30), checked: [] },
            { shard: 'm0', checkedBefore: at(10), checked: [] },
          ),
          false,
          'read before the last move',
        );
        assert.equal(await store.setWatermark({ shard: 'm3', checkedBefore: at(5), checked: [] }, undefined), true);

        const marks = [...(await store.watermarks())].sort((a, b) => a.shard.localeCompare(b.shard));
        assert.deepEqual(marks, [
          { shard: 'm0', checkedBefore: at(20), checked: [`${at(25)}#x`] },
          { shard: 'm3', checkedBefore: at(5), checked: [] },
        ]);
        for (const m of batches) await store.put(m);
        assert.equal((await walk(store, { limit: 100 })).length, newestFirst.length, 'watermarks are not events');
      }),
    );

    it(
      "lists every event newest first across the shards, a batch's last event first, the same at any page size",
      withStore(async (store) => {
        for (const m of batches) await store.put(m);

        for (const limit of [1, 2, 3, 5, 100])
          assert.deepEqual(await walk(store, { limit }), newestFirst.map(entry), `limit ${limit}`);
        const first = await store.listEvents({ limit: 100 });
        assert.equal(first.nextCursor, undefined, 'one page holds them all');
      }),
    );

    it(
      'filters by exact type and by creation time (at or after since), across pages',
      withStore(async (store) => {
        for (const m of batches) await store.put(m);

        for (const limit of [1, 2, 100]) {
          assert.deepEqual(
            await walk(store, { limit, type: 'order.paid' }),
            newestFirst.filter((e) => entry(e).eventType === 'order.paid').map(entry),
            `type, limit ${limit}`,
          );
          assert.deepEqual(
            await walk(store, { limit, since: at(20) }),
            newestFirst.filter((e) => e.m.createdAt >= at(20)).map(entry),
            `since, limit ${limit}`,
          );
          assert.deepEqual(
            await walk(store, { limit, since: at(30), type: 'order.created' }),
            newestFirst.filter((e) => e.m.createdAt >= at(30) && entry(e).eventType === 'order.created').map(entry),
            `both, limit ${limit}`,
          );
        }
        assert.deepEqual(await walk(store, { limit: 10, type: 'nothing.here' }), []);
        assert.deepEqual(await walk(store, { limit: 10, since: at(41) }), []);
      }),
    );

    it(
      'continues from a cursor exactly after the position it was issued at, even inside a batch',
      withStore(async (store) => {
        for (const m of batches) await store.put(m);
        const whole = newestFirst.map(entry);

        for (let i = 1; i < whole.length; i++) {
          const page = await store.listEvents({ limit: i });
          assert.ok(page.nextCursor, `a cursor after ${i}`);
          assert.deepEqual(
            (await store.listEvents({ limit: 100, cursor: page.nextCursor })).items,
            whole.slice(i),
            `after ${i}`,
          );
        }
        // A batch published later does not shift a cursor: it continues where it was.
        const cursor = (await store.listEvents({ limit: 4 })).nextCursor!;
        await store.put(batch('m2', 50, 'g', ['later']));
        assert.deepEqual((await store.listEvents({ limit: 100, cursor })).items, whole.slice(4));
      }),
    );

    it(
      'refuses a cursor it never issued',
      withStore(async (store) => {
        for (const m of batches) await store.put(m);
        const forged = [
          Buffer.from('{"k":"x","n":0}').toString('base64url'),
          Buffer.from('{"k":1}').toString('base64url'),
          'not json',
          Buffer.from('{"k":"2024-05-01T12:00:10.000Z#a","n":-1}').toString('base64url'),
        ];
        for (const cursor of forged)
          await assert.rejects(store.listEvents({ limit: 10, cursor }), InvalidCursorError, cursor);
      }),
    );
  });
}
