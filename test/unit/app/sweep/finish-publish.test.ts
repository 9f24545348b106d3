import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publishBatch } from '#app/publish/publish.ts';
import { checkRun, finishPublishes, nextWatermark } from '#app/sweep/finish-publish.ts';
import { sweep } from '#app/sweep/sweep.ts';
import { firstDelivery } from '#app/publish/first-delivery.ts';
import { NO_ROW } from '#domain/types.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { aSubscription, fakeDeps, type FakeDeps } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z';
const LATER = '2024-05-01T12:05:00.000Z';

/** The row a first attempt (or a pause) writes for an event published at NOW: publish itself writes none. */
const firstRow = (deps: FakeDeps, eventId: string, subscriptionId: string) =>
  firstDelivery(
    { id: eventId, type: 'a', createdAt: NOW },
    deps.subscriptions.items.get(subscriptionId)!,
    Date.parse('2024-05-04T12:00:00.000Z'),
    Date.parse(NOW),
  );

/** A publish of `ids` whose first messages never reached a sender (a purged queue): stored, with no delivery row, its stream records gone. */
async function stoppedPublish(deps: FakeDeps, ids: readonly string[]): Promise<void> {
  await publishBatch(
    deps,
    ids.map((id) => ({ id, type: 'a', payloadJson: '{}' })),
  );
  deps.events.stream.length = 0;
}

describe('finishPublishes', () => {
  it("enqueues every delivery of a batch that was never attempted, in the sweeper's view, and moves the watermark past the manifest", async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b' }));
    await stoppedPublish(deps, ['evt_1', 'evt_2']);
    deps.clock.advance(300_000);

    const report = await finishPublishes(deps, LATER, 100);

    assert.deepEqual(report, { manifests: 1, deliveries: 4, full: false });
    assert.deepEqual(
      deps.queue
        .messages()
        .map((m) => m.deliveryId)
        .sort(),
      ['evt_1', 'evt_2'].flatMap((e) => ['sub_a', 'sub_b'].map((s) => deliveryIdFor(e, s, NOW))).sort(),
    );
    assert.ok(
      deps.queue.messages().every((m) => m.kind === 'due'),
      'the sender reads these rows first (their first message may be out too)',
    );
    assert.deepEqual(
      await finishPublishes(deps, LATER, 100),
      { manifests: 0, deliveries: 0, full: false },
      'checked once: the next run starts past it',
    );
    assert.equal(deps.ingestManifests.items.size, 1, 'kept: it is the event log until TTL takes it');
    assert.equal(
      (await deps.deliveries.listDue('2024-05-01T12:05:01.000Z', 100)).length,
      4,
      'in view: if this enqueue is lost too, the sweep finds them',
    );
  });

  it('writes the rows that were never written, from the stored event, with its creation time and deadline', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    await stoppedPublish(deps, ['evt_1']);
    deps.deliveries.items.clear();
    deps.clock.advance(300_000);

    await finishPublishes(deps, LATER, 100);

    const row = deps.deliveries.items.get(deliveryIdFor('evt_1', 'sub_a', NOW))!;
    assert.deepEqual(
      [row.state, row.createdAt, row.giveUpAt, row.nextAttemptAt],
      ['pending', NOW, '2024-05-04T12:00:00.000Z', LATER],
    );
  });

  it("keeps the event as long as a rebuilt delivery's deadline needs: its subscription may have lengthened it since publish", async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    await stoppedPublish(deps, ['evt_1']);
    const keptByPublish = deps.events.expiresAt.get('evt_1')!;
    const week = 7 * 86_400;
    deps.subscriptions.items.set(
      'sub_a',
      aSubscription({ id: 'sub_a', retryPolicy: { ...deps.defaultRetryPolicy, deadlineSeconds: week } }),
    );
    deps.clock.advance(300_000);

    await finishPublishes(deps, LATER, 100);

    const [row] = deps.deliveries.items.values();
    assert.equal(row!.giveUpAt, '2024-05-08T12:00:00.000Z');
    assert.equal(deps.events.expiresAt.get('evt_1'), keptByPublish + (week - 3 * 86_400));
  });

  it('leaves alone deliveries already attempted or moved, events never stored, and manifests younger than the cut-off', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b' }));
    await stoppedPublish(deps, ['evt_1']);
    deps.deliveries.put({ ...firstRow(deps, 'evt_1', 'sub_a'), state: 'delivered', attempts: 1, attemptSeq: 1 });
    // A paused subscription's delivery: its row written and moved an hour on, in view, by the sender.
    const waiting = {
      ...firstRow(deps, 'evt_1', 'sub_b'),
      nextAttemptAt: '2024-05-01T13:00:00.000Z',
      updatedAt: NOW.replace('00.000Z', '01.000Z'),
    };
    assert.equal(await deps.deliveries.write('reschedule', waiting, NO_ROW), true);
    await deps.ingestManifests.put({
      shard: 'm0',
      key: `${NOW}#other`,
      createdAt: NOW,
      eventIds: ['evt_never_stored'],
      deliveryIds: ['dlv_never_written'],
    });

    assert.deepEqual(
      await finishPublishes(deps, NOW, 100),
      { manifests: 0, deliveries: 0, full: false },
      'nothing older than the cut-off',
    );
    deps.clock.advance(300_000);
    assert.deepEqual(await finishPublishes(deps, LATER, 100), { manifests: 2, deliveries: 0, full: false });
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('leaves the manifest of a batch that went through alone until the cut-off, then checks it once, sending nothing', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    await publishBatch(deps, [{ id: 'evt_1', type: 'a', payloadJson: '{}' }]);
    deps.deliveries.put({ ...firstRow(deps, 'evt_1', 'sub_a'), state: 'delivered', attempts: 1, attemptSeq: 1 });
    deps.queue.enqueued.length = 0;

    assert.equal(deps.ingestManifests.items.size, 1);
    deps.clock.advance(300_000);
    assert.deepEqual(await finishPublishes(deps, LATER, 100), { manifests: 1, deliveries: 0, full: false });
    assert.deepEqual(await finishPublishes(deps, LATER, 100), { manifests: 0, deliveries: 0, full: false });
    assert.deepEqual(deps.queue.messages(), []);
  });
});

describe('finishPublishes: the per-shard watermark', () => {
  const manifest = (key: string, shard = 'm0') => ({
    shard,
    key,
    createdAt: key.split('#')[0]!,
    eventIds: [],
    deliveryIds: [],
  });
  const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

  it('checks a shard oldest first within the limit, and the next run goes on from there', async () => {
    const deps = fakeDeps();
    for (const key of [`${at(1)}#a`, `${at(2)}#b`, `${at(3)}#c`]) await deps.ingestManifests.put(manifest(key));
    deps.clock.advance(600_000);

    assert.deepEqual(await finishPublishes(deps, at(300), 2), { manifests: 2, deliveries: 0, full: true });
    assert.deepEqual(deps.ingestManifests.marks.get('m0'), {
      shard: 'm0',
      checkedBefore: `${at(2)}#b`,
      checked: [`${at(2)}#b`],
    });
    assert.deepEqual(await finishPublishes(deps, at(300), 2), { manifests: 1, deliveries: 0, full: false });
    assert.deepEqual(deps.ingestManifests.marks.get('m0'), { shard: 'm0', checkedBefore: at(300), checked: [] });
    assert.deepEqual(await finishPublishes(deps, at(300), 2), { manifests: 0, deliveries: 0, full: false });
  });

  it('never passes a key younger than the settle time: with a short grace it remembers what it checked there, and still checks a manifest that lands late', async () => {
    const deps = fakeDeps();
    await deps.ingestManifests.put(manifest(`${at(-30)}#young`));
    // A 10 s grace: the manifest is past it, but a publish could still be writing one as old.
    assert.deepEqual(await finishPublishes(deps, at(-10), 100), { manifests: 1, deliveries: 0, full: false });
    assert.deepEqual(deps.ingestManifests.marks.get('m0'), {
      shard: 'm0',
      checkedBefore: at(-60),
      checked: [`${at(-30)}#young`],
    });

    await deps.ingestManifests.put(manifest(`${at(-40)}#late`));
    assert.deepEqual(
      await finishPublishes(deps, at(-10), 100),
      { manifests: 1, deliveries: 0, full: false },
      'the late one only, not the one already checked',
    );
    deps.clock.advance(120_000);
    await deps.ingestManifests.put(manifest(`${at(50)}#next`));
    assert.deepEqual(
      await finishPublishes(deps, at(110), 100),
      { manifests: 1, deliveries: 0, full: false },
      'the new one only',
    );
    assert.deepEqual(
      deps.ingestManifests.marks.get('m0'),
      { shard: 'm0', checkedBefore: at(60), checked: [] },
      'past them all once they settled',
    );
  });

  it("works a backlog larger than a call's limit off in every shard at once, each up to the limit", async () => {
    const deps = fakeDeps();
    for (const key of [`${at(1)}#a`, `${at(2)}#b`, `${at(3)}#c`]) await deps.ingestManifests.put(manifest(key, 'm0'));
    await deps.ingestManifests.put(manifest(`${at(1)}#z`, 'm15'));
    deps.clock.advance(600_000);

    // m0 gives its oldest, m15 its only one: full, since a shard that filled its limit may have more.
    assert.deepEqual(await finishPublishes(deps, at(300), 1), { manifests: 2, deliveries: 0, full: true });
    assert.deepEqual(deps.ingestManifests.marks.get('m15')?.checkedBefore, `${at(1)}#z`);
    assert.deepEqual(await finishPublishes(deps, at(300), 1), { manifests: 1, deliveries: 0, full: true });
    assert.deepEqual(await finishPublishes(deps, at(300), 1), { manifests: 1, deliveries: 0, full: true });
    assert.deepEqual(await finishPublishes(deps, at(300), 1), { manifests: 0, deliveries: 0, full: false });
  });

  it('keeps each shard apart, and leaves a shard with nothing to check unwritten', async () => {
    const deps = fakeDeps();
    await deps.ingestManifests.put(manifest(`${at(1)}#a`, 'm3'));
    deps.clock.advance(600_000);
    assert.deepEqual(await finishPublishes(deps, at(300), 100), { manifests: 1, deliveries: 0, full: false });
    assert.deepEqual([...deps.ingestManifests.marks.keys()], ['m3']);
  });

  it('a watermark another sweep moved meanwhile is left as that sweep wrote it (the manifests are checked again at worst)', async () => {
    const deps = fakeDeps();
    await deps.ingestManifests.put(manifest(`${at(1)}#a`));
    deps.clock.advance(600_000);
    const racing = { shard: 'm0', checkedBefore: at(5), checked: [] };
    const watermarks = deps.ingestManifests.watermarks.bind(deps.ingestManifests);
    deps.ingestManifests.watermarks = async () => {
      const read = await watermarks();
      await deps.ingestManifests.setWatermark(racing, undefined);
      return read;
    };
    assert.deepEqual(await finishPublishes(deps, at(300), 100), { manifests: 1, deliveries: 0, full: false });
    assert.deepEqual(deps.ingestManifests.marks.get('m0'), racing);
  });
});

describe('finishPublishes: paced reads, progress kept', () => {
  const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();
  /** A manifest of `rows` deliveries; at 600, each is a read slice of its own (SWEEP_READ_SLICE_ROWS is 1,000). */
  const big = (key: string, rows = 600, shard = 'm0') => ({
    shard,
    key,
    createdAt: key.split('#')[0]!,
    eventIds: [],
    deliveryIds: Array.from({ length: rows }, (_, i) => deliveryIdFor(`evt_${key}_${i}`, 'sub_a', NOW)),
  });

  it('a slice the table refuses ends the check with the watermark past the slices done; the next run reads only the rest', async () => {
    const deps = fakeDeps();
    for (const key of [`${at(1)}#a`, `${at(2)}#b`, `${at(3)}#c`]) await deps.ingestManifests.put(big(key));
    deps.clock.advance(600_000);
    const getMany = deps.deliveries.getMany.bind(deps.deliveries);
    const read: number[] = [];
    deps.deliveries.getMany = async (ids, consistency) => {
      read.push(ids.length);
      if (read.length === 2)
        throw new Error('Throughput exceeds the current throughput limit for your table or index.');
      return getMany(ids, consistency);
    };

    await assert.rejects(finishPublishes(deps, at(300), 100), /Throughput exceeds/);
    assert.deepEqual(read, [600, 600], 'one slice read, the second refused, the third never asked');
    assert.equal(deps.ingestManifests.marks.get('m0')?.checkedBefore, `${at(1)}#a`, 'past the slice done');

    assert.deepEqual(await finishPublishes(deps, at(300), 100), { manifests: 2, deliveries: 0, full: false });
    assert.deepEqual(read, [600, 600, 600, 600], 'the refused slice and the one after it, not the first again');
  });

  it('starts no slice past the run budget but the first: the watermark is past what was read, and the rest is left full for the next run', async () => {
    const deps = fakeDeps();
    for (const key of [`${at(1)}#a`, `${at(2)}#b`, `${at(3)}#c`]) await deps.ingestManifests.put(big(key));
    deps.clock.advance(600_000);
    assert.deepEqual(await finishPublishes(deps, at(300), 100, checkRun(deps.clock, deps.clock.now())), {
      manifests: 1,
      deliveries: 0,
      full: true,
    });
    assert.equal(deps.ingestManifests.marks.get('m0')?.checkedBefore, `${at(1)}#a`);
    assert.deepEqual(await finishPublishes(deps, at(300), 100), { manifests: 2, deliveries: 0, full: false });
  });

  it('reads at SWEEP_READ_ROWS_PER_SECOND over every shard: 16 shards of 2,000 rows take 2 s of the clock', async () => {
    const deps = fakeDeps();
    for (let shard = 0; shard < 16; shard++)
      for (const key of [`${at(1)}#a${shard}`, `${at(2)}#b${shard}`])
        await deps.ingestManifests.put(big(key, 1_000, `m${shard}`));
    deps.clock.advance(600_000);
    const started = deps.clock.now();
    const waits: number[] = [];
    const sleep = deps.clock.sleep.bind(deps.clock);
    deps.clock.sleep = async (ms) => {
      waits.push(ms);
      await sleep(0);
    };

    assert.deepEqual(await finishPublishes(deps, at(300), 100), { manifests: 32, deliveries: 0, full: false });
    // 32 slices of 1,000 rows at 16,000 a second: the last one waits 31/16 s from the first.
    assert.equal(Math.max(...waits), (31 * 1000) / 16);
    assert.equal(deps.clock.now(), started, 'the waits were asked of the clock, not taken from it here');
  });
});

describe('nextWatermark', () => {
  const m = (key: string) => ({ shard: 'm0', key, createdAt: key, eventIds: [], deliveryIds: [] });
  it('goes to the cut-off after a complete read, to the last checked after a partial one, never past the settle time nor back', () => {
    const at = { beforeIso: 'T5', settled: 'T9', complete: true };
    assert.deepEqual(nextWatermark('m0', undefined, [m('T1#a')], at), {
      shard: 'm0',
      checkedBefore: 'T5',
      checked: [],
    });
    assert.deepEqual(nextWatermark('m0', undefined, [m('T1#a'), m('T2#b')], { ...at, complete: false }), {
      shard: 'm0',
      checkedBefore: 'T2#b',
      checked: ['T2#b'],
    });
    assert.deepEqual(
      nextWatermark('m0', undefined, [m('T1#a'), m('T6#b')], { ...at, beforeIso: 'T8', settled: 'T4' }),
      { shard: 'm0', checkedBefore: 'T4', checked: ['T6#b'] },
    );
    assert.deepEqual(nextWatermark('m0', { shard: 'm0', checkedBefore: 'T7', checked: [] }, [m('T7#a')], at), {
      shard: 'm0',
      checkedBefore: 'T7',
      checked: ['T7#a'],
    });
  });
});

describe('a sweeper run over stopped publishes', () => {
  it('finishes a backlog larger than one pass in one run: three stopped publishes, one a pass', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await stoppedPublish(deps, [id]);
    deps.clock.advance(300_000);

    const report = await sweep(deps, { graceSeconds: 120, limit: 1 });

    assert.deepEqual([report.finishedPublishes, report.finishedDeliveries], [3, 3]);
    assert.deepEqual(
      deps.queue
        .messages()
        .map((m) => m.deliveryId)
        .sort(),
      ['evt_1', 'evt_2', 'evt_3'].map((e) => deliveryIdFor(e, 'sub_a', NOW)).sort(),
    );
  });
});
