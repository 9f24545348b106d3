import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resumeBulkReplay, startBulkReplay } from '#app/replay/bulk-replay.ts';
import { DEFAULT_REPLAY_POLICY } from '#domain/replay.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { STATE } from '#domain/states.ts';
import type { Delivery } from '#domain/types.ts';
import { fakeDeps, InMemoryDeliveryStore } from '#test/fakes.ts';
import { InMemoryReplayStore } from '#test/memory-stores.ts';
import { deadLetterIndex, putDeadLetters } from '#test/dead-letter-index.ts';

/** A throttled partition as the SDK reports it once its own retries are spent. */
class ThrottledError extends Error {
  override readonly name = 'ProvisionedThroughputExceededException';
}

/** Refuses `replay` of the ids in `refusing` while they are in it; every refusal is counted. */
class RefusingDeliveryStore extends InMemoryDeliveryStore {
  readonly refusing = new Map<string, number>();
  refusals = 0;
  override async replay(id: string, nowIso: string, giveUpAtIso: string, nextAttemptAtIso?: string) {
    const left = this.refusing.get(id) ?? 0;
    if (left > 0) {
      this.refusing.set(id, left - 1);
      this.refusals++;
      throw new ThrottledError('Throughput exceeds the current capacity');
    }
    return super.replay(id, nowIso, giveUpAtIso, nextAttemptAtIso);
  }
}

function replayDeps(count: number, pageSize: number) {
  const deliveries = new RefusingDeliveryStore();
  const base = fakeDeps({ deliveries });
  const ids = putDeadLetters(deliveries, base.subscriptions, count);
  const deps = {
    ...base,
    replays: new InMemoryReplayStore(),
    recovery: deadLetterIndex(deliveries),
    replayPolicy: { ...DEFAULT_REPLAY_POLICY, pageSize },
    retention: DEFAULT_RETENTION,
  };
  return { deps, deliveries, ids };
}

const request = {
  criteria: { states: [STATE.failed], createdFrom: '2024-05-01T00:00:00.000Z', createdTo: '2024-05-01T12:00:00.000Z' },
  dryRun: false,
  operator: 'op',
  principal: 'admin',
};

const enqueuedIds = (batches: readonly (readonly { deliveryId: string }[])[]) =>
  batches
    .flat()
    .map((m) => m.deliveryId)
    .sort();
const pendingIds = (items: Map<string, Delivery>) =>
  [...items.values()].filter((d) => d.state === STATE.pending).map((d) => d.id);

describe('bulk replay: a refused write', () => {
  it('is tried again after a pause, and the replay completes with every delivery replayed once', async () => {
    const { deps, deliveries, ids } = replayDeps(5, 2);
    deliveries.refusing.set('dlv_002', 2);
    const startedMs = deps.clock.now();

    const record = await startBulkReplay(deps, request, { deadlineMs: startedMs + 60_000 });

    assert.equal(deliveries.refusals, 2);
    assert.equal(record.status, 'completed');
    assert.deepEqual([record.matched, record.replayed, record.skipped], [5, 5, 0]);
    assert.deepEqual(enqueuedIds(deps.queue.enqueued), ids);
    // Paused 0.5 s, then 1 s, before the third try went through.
    assert.equal(deps.clock.now() - startedMs, 1500);
  });

  it('pauses only while the budget allows: near its end, a refused write stops the page at once, for the resume schedule', async () => {
    const { deps, deliveries } = replayDeps(5, 5);
    deliveries.refusing.set('dlv_001', 10);
    const startedMs = deps.clock.now();

    await assert.rejects(startBulkReplay(deps, request, { deadlineMs: startedMs + 1200 }), ThrottledError);

    assert.equal(deliveries.refusals, 2, 'one try, and one after the 0.5 s pause; the 1 s pause would pass the budget');
    assert.ok(deps.clock.now() < startedMs + 1200, 'never past the budget');
    const [stalled] = [...deps.replays.items.values()];
    assert.equal(stalled!.leaseUntil, deps.clock.iso());
    assert.equal(stalled!.replayed, 4);
  });

  it('still refused after its retries: the page is checkpointed, the lease handed back, and a resume finishes it', async () => {
    const { deps, deliveries, ids } = replayDeps(5, 2);
    deliveries.refusing.set('dlv_003', 10);
    const budget = () => ({ deadlineMs: deps.clock.now() + 60_000 });

    await assert.rejects(startBulkReplay(deps, request, budget()), ThrottledError);

    assert.equal(deliveries.refusals, 4, 'one try and three retries');
    const [stalled] = [...deps.replays.items.values()];
    assert.equal(stalled!.status, 'running');
    assert.equal(stalled!.leaseUntil, deps.clock.iso(), 'free for the next resume tick, not in 60 s');
    // The first page (000, 001), the half of the second that went through (002), and the third
    // (004), read ahead and replayed while 003 waited: no longer dead letters, so counted now.
    assert.deepEqual([stalled!.matched, stalled!.replayed, stalled!.skipped], [4, 4, 0]);
    assert.deepEqual(enqueuedIds(deps.queue.enqueued), ['dlv_000', 'dlv_001', 'dlv_002', 'dlv_004']);
    assert.equal(stalled!.cursor !== undefined, true, 'the cursor stays before the refused page');

    deliveries.refusing.clear();
    const resumed = await resumeBulkReplay(deps, stalled!.id, budget());

    assert.equal(resumed.status, 'completed');
    assert.deepEqual([resumed.matched, resumed.replayed, resumed.skipped], [5, 5, 0]);
    assert.deepEqual(enqueuedIds(deps.queue.enqueued), ids, 'each delivery enqueued exactly once');
    assert.deepEqual(pendingIds(deliveries.items).sort(), ids);
  });
});
