import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publishBatch } from '#app/publish/publish.ts';
import { finishPublishes } from '#app/sweep/finish-publish.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { aSubscription, fakeDeps, type FakeDeps } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z';
const LATER = '2024-05-01T12:05:00.000Z';

/** A publish of `ids` that stopped after storing its events and rows but before enqueueing. */
async function stoppedPublish(deps: FakeDeps, ids: readonly string[]): Promise<void> {
  const enqueue = deps.queue.enqueue.bind(deps.queue);
  deps.queue.enqueue = async () => {
    throw new Error('the process died here');
  };
  await assert.rejects(publishBatch(deps, ids.map((id) => ({ id, type: 'a', payloadJson: '{}' }))));
  deps.queue.enqueue = enqueue;
}

describe('finishPublishes', () => {
  it('enqueues every delivery of a batch that was never attempted, in the sweeper\'s view, and deletes the manifest', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b' }));
    await stoppedPublish(deps, ['evt_1', 'evt_2']);
    deps.clock.advance(300_000);

    const report = await finishPublishes(deps, LATER, 100);

    assert.deepEqual(report, { manifests: 1, deliveries: 4 });
    assert.deepEqual(deps.queue.messages().map((m) => m.deliveryId).sort(), ['evt_1', 'evt_2'].flatMap((e) => ['sub_a', 'sub_b'].map((s) => deliveryIdFor(e, s))).sort());
    assert.ok(deps.queue.messages().every((m) => !m.fresh), 'the sender claims these rows (their first message may be out too)');
    assert.equal(deps.ingestManifests.items.size, 0);
    assert.equal((await deps.deliveries.listDue('2024-05-01T12:05:01.000Z', 100)).length, 4, 'in view: if this enqueue is lost too, the sweep finds them');
  });

  it('writes the rows that were never written, from the stored event, with its creation time and deadline', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    await stoppedPublish(deps, ['evt_1']);
    deps.deliveries.items.clear();
    deps.clock.advance(300_000);

    await finishPublishes(deps, LATER, 100);

    const row = deps.deliveries.items.get(deliveryIdFor('evt_1', 'sub_a'))!;
    assert.deepEqual([row.state, row.createdAt, row.giveUpAt, row.nextAttemptAt], ['pending', NOW, '2024-05-04T12:00:00.000Z', LATER]);
  });

  it('leaves alone deliveries already attempted or moved, events never stored, and manifests younger than the cut-off', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b' }));
    await stoppedPublish(deps, ['evt_1']);
    const done = deliveryIdFor('evt_1', 'sub_a');
    const paused = deliveryIdFor('evt_1', 'sub_b');
    deps.deliveries.put({ ...deps.deliveries.items.get(done)!, state: 'delivered', attempts: 1, attemptSeq: 1 });
    // A paused subscription's delivery: moved an hour on, and in view, by the sender.
    assert.equal(await deps.deliveries.reschedule(paused, NOW, '2024-05-01T13:00:00.000Z', NOW.replace('00.000Z', '01.000Z')), true);
    await deps.ingestManifests.put({ shard: 'm0', key: `${NOW}#other`, createdAt: NOW, eventIds: ['evt_never_stored'], deliveryIds: ['dlv_never_written'] });

    assert.deepEqual(await finishPublishes(deps, NOW, 100), { manifests: 0, deliveries: 0 }, 'nothing older than the cut-off');
    deps.clock.advance(300_000);
    assert.deepEqual(await finishPublishes(deps, LATER, 100), { manifests: 2, deliveries: 0 });
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('leaves the manifest of a batch that went through alone until the cut-off, then deletes it having sent nothing', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    await publishBatch(deps, [{ id: 'evt_1', type: 'a', payloadJson: '{}' }]);
    const id = deliveryIdFor('evt_1', 'sub_a');
    deps.deliveries.put({ ...deps.deliveries.items.get(id)!, state: 'delivered', attempts: 1, attemptSeq: 1 });
    deps.queue.enqueued.length = 0;

    assert.equal(deps.ingestManifests.items.size, 1);
    deps.clock.advance(300_000);
    assert.deepEqual(await finishPublishes(deps, LATER, 100), { manifests: 1, deliveries: 0 });
    assert.equal(deps.ingestManifests.items.size, 0);
    assert.deepEqual(deps.queue.messages(), []);
  });
});
