import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listSubscriptionDeliveries, readDelivery, readDeliveries, withEventTypes } from '#app/deliveries/reads.ts';
import { firstDelivery } from '#app/publish/first-delivery.ts';
import { publishBatch } from '#app/publish/publish.ts';
import type { DeliveryFilter } from '#domain/delivery-filter.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { STATE } from '#domain/states.ts';
import { InvalidCursorError } from '#ports/page.ts';
import { INGEST_MANIFEST_SHARDS } from '#config/topology.ts';
import { aSubscription, fakeDeps, type FakeDeps } from '#test/fakes.ts';

function withSubscription(): FakeDeps {
  const deps = fakeDeps();
  deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a', tenantId: 'acme' }));
  deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b' }));
  return deps;
}

/** Publishes one batch of `ids`, then moves the clock a second on (so each batch has its own creation time). */
async function publishAt(deps: FakeDeps, ...ids: string[]): Promise<string> {
  return publishTyped(deps, 'a', ...ids);
}

/** publishAt, the events of `type`. */
async function publishTyped(deps: FakeDeps, type: string, ...ids: string[]): Promise<string> {
  const at = new Date(deps.clock.now()).toISOString();
  // To every tenant: sub_a is acme's, sub_b has no tenant.
  await publishBatch(
    deps,
    ids.map((id) => ({ id, type, audience: 'all' as const, payloadJson: '{}' })),
  );
  deps.clock.advance(1000);
  return at;
}

/** The row the delivery's first attempt writes, in `state`. */
function attempted(
  deps: FakeDeps,
  eventId: string,
  createdAt: string,
  state: (typeof STATE)[keyof typeof STATE],
  subscriptionId = 'sub_a',
  type = 'a',
) {
  const row = firstDelivery(
    { id: eventId, type, createdAt },
    deps.subscriptions.items.get(subscriptionId)!,
    Date.parse(createdAt) + 3 * 86_400_000,
    Date.parse(createdAt),
  );
  deps.deliveries.put({ ...row, state, attempts: 1, attemptSeq: 1 });
  return row.id;
}

async function walk(
  deps: FakeDeps,
  order: 'newest' | 'oldest',
  limit: number,
  state?: (typeof STATE)[keyof typeof STATE],
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await listSubscriptionDeliveries(deps, {
      subscriptionId: 'sub_a',
      limit,
      order,
      ...(state ? { state } : {}),
      ...(cursor ? { cursor } : {}),
    });
    assert.ok(page.items.length <= limit);
    assert.equal(page.itemCursors.length, page.items.length);
    ids.push(...page.items.map((d) => d.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
  throw new Error('paging does not end');
}

describe('deliveries published but not yet written', () => {
  it('are read by id as the pending row their first attempt will write, and as their row once written', async () => {
    const deps = withSubscription();
    const at = await publishAt(deps, 'evt_1');
    const id = deliveryIdFor('evt_1', 'sub_a', at);
    assert.equal(deps.deliveries.items.size, 0, 'publish writes no row');

    const unwritten = await readDelivery(deps, id);

    assert.deepEqual(
      unwritten,
      firstDelivery(
        { id: 'evt_1', type: 'a', createdAt: at },
        deps.subscriptions.items.get('sub_a')!,
        Date.parse(at) + 3 * 86_400_000,
        Date.parse(at),
        id,
      ),
    );
    assert.equal(unwritten!.state, STATE.pending);
    assert.equal(unwritten!.tenantId, 'acme');
    attempted(deps, 'evt_1', at, STATE.delivered);
    assert.equal((await readDelivery(deps, id))!.state, STATE.delivered);
    assert.equal(await readDelivery(deps, deliveryIdFor('evt_nope', 'sub_a', at)), undefined);
    assert.equal(await readDelivery(deps, 'dlv_made_up'), undefined);
  });

  it('a delivery with a row is read by id from the row alone: no manifest is read', async () => {
    const deps = withSubscription();
    const at = await publishAt(deps, 'evt_1');
    const id = attempted(deps, 'evt_1', at, STATE.delivered);
    let manifestReads = 0;
    const { watermarks, listAfter } = deps.ingestManifests;
    deps.ingestManifests.watermarks = (...a) => (manifestReads++, watermarks.apply(deps.ingestManifests, a));
    deps.ingestManifests.listAfter = (...a) => (manifestReads++, listAfter.apply(deps.ingestManifests, a));

    assert.equal((await readDelivery(deps, id))!.state, STATE.delivered);
    assert.equal(manifestReads, 0);
    await readDelivery(deps, deliveryIdFor('evt_nope', 'sub_a', at));
    assert.ok(manifestReads > 0, 'an id without a row is looked for in the manifests');
  });

  it('reads a row again when its delivery was written, and its manifest checked, between the first read and the manifests', async () => {
    const deps = withSubscription();
    const at = await publishAt(deps, 'evt_1');
    const id = deliveryIdFor('evt_1', 'sub_a', at);
    const { watermarks } = deps.ingestManifests;
    // The first attempt writes the row, and the sweeper passes the manifest, right as the read turns to the manifests.
    deps.ingestManifests.watermarks = async () => {
      attempted(deps, 'evt_1', at, STATE.delivered);
      for (let k = 0; k < INGEST_MANIFEST_SHARDS; k++)
        await deps.ingestManifests.setWatermark({ shard: `m${k}`, checkedBefore: '\uffff', checked: [] }, undefined);
      return watermarks.apply(deps.ingestManifests);
    };

    assert.equal((await readDelivery(deps, id))?.state, STATE.delivered, 'seen as its row, never as neither');
  });

  it('are listed with the rows, in order both ways, across pages, each once, also when written between pages', async () => {
    const deps = withSubscription();
    const t1 = await publishAt(deps, 'evt_1', 'evt_2');
    const t2 = await publishAt(deps, 'evt_3');
    const t3 = await publishAt(deps, 'evt_4', 'evt_5');
    attempted(deps, 'evt_1', t1, STATE.delivered);
    attempted(deps, 'evt_4', t3, STATE.failed);
    const all = [
      ['evt_1', t1],
      ['evt_2', t1],
      ['evt_3', t2],
      ['evt_4', t3],
      ['evt_5', t3],
    ].map(([e, t]) => deliveryIdFor(e!, 'sub_a', t!));
    const oldest = [...all].sort((a, b) => (`${a.slice(4, 13)}${a}` < `${b.slice(4, 13)}${b}` ? -1 : 1));

    for (const limit of [1, 2, 3, 10]) {
      assert.deepEqual(await walk(deps, 'oldest', limit), oldest, `oldest first, pages of ${limit}`);
      assert.deepEqual(await walk(deps, 'newest', limit), [...oldest].reverse(), `newest first, pages of ${limit}`);
    }
    assert.deepEqual(
      new Set(await walk(deps, 'oldest', 10, STATE.pending)),
      new Set(all.filter((id) => ![all[0], all[3]].includes(id))),
      'the not yet written are pending',
    );
    assert.deepEqual(await walk(deps, 'oldest', 10, STATE.failed), [all[3]]);

    // Written between two pages: listed once, where it was, whichever way it was listed first.
    const first = await listSubscriptionDeliveries(deps, { subscriptionId: 'sub_a', limit: 3, order: 'oldest' });
    for (const d of first.items)
      if (d.state === STATE.pending) attempted(deps, d.eventId, d.createdAt, STATE.delivered);
    const rest = await listSubscriptionDeliveries(deps, {
      subscriptionId: 'sub_a',
      limit: 10,
      order: 'oldest',
      cursor: first.nextCursor!,
    });
    assert.deepEqual(
      [...first.items, ...rest.items].map((d) => d.id),
      oldest,
    );
    // In pages of 2 the next page's rows are the two just written, handed out already: the one not yet written after
    // them waits until the rows before it are read, and none is skipped.
    const seen = [...first.items.map((d) => d.id)];
    let cursor = first.nextCursor;
    for (let pages = 0; cursor && pages < 10; pages++) {
      const page = await listSubscriptionDeliveries(deps, {
        subscriptionId: 'sub_a',
        limit: 2,
        order: 'oldest',
        cursor,
      });
      seen.push(...page.items.map((d) => d.id));
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, oldest);
  });

  it("leaves out a batch the sweeper checked (its rows are written, or gone), an event publish never stored, and another subscription's", async () => {
    const deps = withSubscription();
    const at = await publishAt(deps, 'evt_1');
    // A repeat of evt_1 a second later lists ids of its own time in its manifest; the event keeps the first.
    await publishAt(deps, 'evt_1');
    await deps.ingestManifests.put({
      shard: 'm3',
      key: `${at}#stopped`,
      createdAt: at,
      eventIds: ['evt_stopped'],
      deliveryIds: [deliveryIdFor('evt_stopped', 'sub_a', at)],
    });

    assert.deepEqual(await walk(deps, 'newest', 10), [deliveryIdFor('evt_1', 'sub_a', at)]);
    assert.deepEqual(
      (
        await readDeliveries(deps, [deliveryIdFor('evt_stopped', 'sub_a', at), deliveryIdFor('evt_1', 'sub_b', at)])
      ).map((d) => d.subscriptionId),
      ['sub_b'],
    );

    // The sweeper's watermark past every manifest: a delivery with no row then is gone (archived), not pending.
    for (let k = 0; k < 16; k++)
      await deps.ingestManifests.setWatermark(
        { shard: `m${k}`, checkedBefore: '2024-05-02T00:00:00.000Z', checked: [] },
        undefined,
      );
    assert.deepEqual(await walk(deps, 'newest', 10), []);
    assert.equal(await readDelivery(deps, deliveryIdFor('evt_1', 'sub_a', at)), undefined);
  });

  it('leaves out a batch older than the retention: a delivery of it with no row was archived, whether or not the sweeper checked it', async () => {
    const deps = withSubscription();
    const at = await publishAt(deps, 'evt_1');
    assert.equal((await walk(deps, 'newest', 10)).length, 1);

    const archivedAtOnce = { ...deps, retention: { ...deps.retention, deliveredDays: 0, deadLetterDays: 0 } };

    assert.deepEqual(
      (await listSubscriptionDeliveries(archivedAtOnce, { subscriptionId: 'sub_a', limit: 10 })).items,
      [],
    );
    assert.equal(await readDelivery(archivedAtOnce, deliveryIdFor('evt_1', 'sub_a', at)), undefined);
  });

  it('refuses a cursor it did not issue', async () => {
    const deps = withSubscription();
    for (const cursor of [
      'garbage!!',
      Buffer.from('{"k":5}').toString('base64url'),
      Buffer.from('[1]').toString('base64url'),
    ]) {
      await assert.rejects(
        listSubscriptionDeliveries(deps, { subscriptionId: 'sub_a', limit: 5, cursor }),
        InvalidCursorError,
        cursor,
      );
    }
  });

  it("refuses another subscription's cursor that a delivery not yet written gave (no store cursor in it)", async () => {
    const deps = withSubscription();
    await publishAt(deps, 'evt_1');
    const [cursorOfB] = (await listSubscriptionDeliveries(deps, { subscriptionId: 'sub_b', limit: 1 })).itemCursors;
    assert.ok(cursorOfB);

    await assert.rejects(
      listSubscriptionDeliveries(deps, { subscriptionId: 'sub_a', limit: 5, cursor: cursorOfB }),
      InvalidCursorError,
    );
    // Its own subscription goes on from it.
    assert.deepEqual(
      (await listSubscriptionDeliveries(deps, { subscriptionId: 'sub_b', limit: 5, cursor: cursorOfB })).items,
      [],
    );
  });
});

/** Every page of sub_a's deliveries under `filter`, newest first; no page holds more than `limit`. */
async function walkFiltered(deps: FakeDeps, filter: DeliveryFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await listSubscriptionDeliveries(deps, {
      subscriptionId: 'sub_a',
      limit,
      ...filter,
      ...(cursor ? { cursor } : {}),
    });
    assert.ok(page.items.length <= limit);
    ids.push(...page.items.map((d) => d.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
  throw new Error('paging does not end');
}

describe('filtered listings', () => {
  /** Two batches of order.paid and one of order.created, at t1 < t2 < t3: some written, some not yet. */
  async function seeded() {
    const deps = withSubscription();
    const t1 = await publishTyped(deps, 'order.paid', 'p1', 'p2');
    const t2 = await publishTyped(deps, 'order.created', 'c1');
    const t3 = await publishTyped(deps, 'order.paid', 'p3');
    attempted(deps, 'p1', t1, STATE.delivered, 'sub_a', 'order.paid');
    attempted(deps, 'c1', t2, STATE.failed, 'sub_a', 'order.created');
    const id = (e: string, t: string) => deliveryIdFor(e, 'sub_a', t);
    return { deps, t1, t2, t3, p1: id('p1', t1), p2: id('p2', t1), c1: id('c1', t2), p3: id('p3', t3) };
  }
  const byNewest = (ids: readonly string[]) => [...ids].sort((a, b) => (a.slice(4, 13) < b.slice(4, 13) ? 1 : -1));

  it('narrows rows and deliveries not yet written alike, by type, time and state, every page, each once', async () => {
    const { deps, t1, t2, t3, p1, p2, c1, p3 } = await seeded();
    const cases: ReadonlyArray<readonly [DeliveryFilter, readonly string[]]> = [
      [{ eventType: 'order.paid' }, [p1, p2, p3]],
      [{ eventType: 'order.created' }, [c1]],
      [{ eventType: 'order.refunded' }, []],
      [{ since: t2 }, [c1, p3]],
      [{ until: t2 }, [p1, p2, c1]],
      [{ since: t2, until: t2 }, [c1]],
      [{ eventType: 'order.paid', since: t1, until: t3 }, [p1, p2, p3]],
      [{ eventType: 'order.paid', state: STATE.pending }, [p2, p3]],
      [{ state: STATE.failed, since: t3 }, []],
    ];
    for (const [filter, expected] of cases)
      for (const limit of [1, 2, 10]) {
        const ids = await walkFiltered(deps, filter, limit);
        // The two of t1 share a creation time: their order is the ids', so compare as the listing orders them.
        assert.deepEqual(new Set(ids), new Set(expected), `${JSON.stringify(filter)}, pages of ${limit}`);
        assert.equal(ids.length, expected.length, `${JSON.stringify(filter)}, pages of ${limit}: each once`);
        assert.deepEqual(
          ids.map((i) => i.slice(4, 13)),
          byNewest(ids).map((i) => i.slice(4, 13)),
          'newest first',
        );
      }
    assert.equal((await listSubscriptionDeliveries(deps, { subscriptionId: 'sub_a', limit: 10 })).items.length, 4);
  });

  it("settles an earlier version's row (no event type kept) from its event: in when it matches, out when not or when the event is gone", async () => {
    const { deps, t2, p1, c1 } = await seeded();
    for (const id of [p1, c1]) {
      const { eventType: _kept, ...earlier } = deps.deliveries.items.get(id)!;
      deps.deliveries.put(earlier);
    }
    assert.equal(deps.deliveries.items.get(p1)!.eventType, undefined);

    assert.deepEqual(new Set(await walkFiltered(deps, { eventType: 'order.created' }, 1)), new Set([c1]));
    assert.ok((await walkFiltered(deps, { eventType: 'order.paid' }, 1)).includes(p1));
    const listed = await listSubscriptionDeliveries(deps, {
      subscriptionId: 'sub_a',
      limit: 10,
      eventType: 'order.paid',
    });
    assert.equal(listed.items.find((d) => d.id === p1)?.eventType, 'order.paid', 'settled, it says its type');

    deps.events.items.delete('c1');
    assert.deepEqual(await walkFiltered(deps, { eventType: 'order.created', until: t2 }, 1), []);
    assert.deepEqual(await walkFiltered(deps, { since: t2, until: t2 }, 1), [c1], 'without a type filter it is listed');
  });

  it('withEventTypes reads no event when every delivery keeps its type, and only the events of those that do not', async () => {
    const { deps, p1, c1 } = await seeded();
    const asked: string[][] = [];
    const { getSummaries } = deps.events;
    deps.events.getSummaries = (ids) => (asked.push([...ids]), getSummaries.call(deps.events, ids));
    const rows = [deps.deliveries.items.get(p1)!, deps.deliveries.items.get(c1)!];

    assert.deepEqual(
      (await withEventTypes(deps, rows)).map((d) => d.eventType),
      ['order.paid', 'order.created'],
    );
    assert.deepEqual(asked, []);
    const { eventType: _kept, ...earlier } = rows[1]!;
    assert.deepEqual(
      (await withEventTypes(deps, [rows[0]!, earlier])).map((d) => d.eventType),
      ['order.paid', 'order.created'],
    );
    assert.deepEqual(asked, [['c1']]);
  });
});
