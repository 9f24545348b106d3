import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resumeBulkReplay, resumeStalledReplays, startBulkReplay } from '#app/replay/bulk-replay.ts';
import { DEFAULT_REPLAY_POLICY } from '#domain/replay.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { STATE } from '#domain/states.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import { fakeDeps, InMemoryDeliveryStore } from '#test/fakes.ts';
import { InMemoryReplayStore } from '#test/memory-stores.ts';
import { deadLetterIndex, putDeadLetters } from '#test/dead-letter-index.ts';

/** Holds every `replay` write until released, and counts how many are in flight at once. */
class HeldDeliveryStore extends InMemoryDeliveryStore {
  readonly inFlightIds = new Set<string>();
  inFlight = 0;
  mostInFlight = 0;
  held = true;
  private readonly waiting: (() => void)[] = [];
  override async replay(id: string, nowIso: string, giveUpAtIso: string, nextAttemptAtIso?: string) {
    this.inFlight++;
    this.inFlightIds.add(id);
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    // A write takes a turn of the event loop at least, as a call to the table does: the page
    // reads (in memory, a few microtasks) go on meanwhile.
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else await new Promise((resolve) => setImmediate(resolve));
    this.inFlight--;
    this.inFlightIds.delete(id);
    return super.replay(id, nowIso, giveUpAtIso, nextAttemptAtIso);
  }
  releaseWrites(): void {
    this.held = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/** The dead-letter walk, counting its page reads, and refusing the reads listed in `failing` (by number, from 1). */
function countedIndex(deliveries: InMemoryDeliveryStore, failing: Set<number>) {
  const index = deadLetterIndex(deliveries);
  const reads = { count: 0 };
  const recovery: RecoveryStore = {
    ...index,
    listDeadLettersChanged: async (request) => {
      reads.count++;
      if (failing.delete(reads.count)) throw new Error('read refused');
      return index.listDeadLettersChanged(request);
    },
  };
  return { recovery, reads };
}

function pipelineDeps(count: number, pageSize: number, failingReads: readonly number[] = [], subscriptions = 1) {
  const deliveries = new HeldDeliveryStore();
  const base = fakeDeps({ deliveries });
  const ids = putDeadLetters(deliveries, base.subscriptions, count, subscriptions);
  const { recovery, reads } = countedIndex(deliveries, new Set(failingReads));
  const deps = {
    ...base,
    replays: new InMemoryReplayStore(),
    recovery,
    replayPolicy: { ...DEFAULT_REPLAY_POLICY, pageSize },
    retention: DEFAULT_RETENTION,
  };
  return { deps, deliveries, ids, reads };
}

const request = {
  criteria: { states: [STATE.failed], createdFrom: '2024-05-01T00:00:00.000Z', createdTo: '2024-05-01T12:00:00.000Z' },
  dryRun: false,
  operator: 'op',
  principal: 'admin',
};

/** Lets every promise that can settle settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('bulk replay: the walk reads while it writes', () => {
  it('reads the next pages while the first page’s writes are held: three pages started, the fourth read, no more', async () => {
    const { deps, deliveries, reads } = pipelineDeps(40, 4);
    const running = startBulkReplay(deps, request, { deadlineMs: deps.clock.now() + 60_000 });
    for (let i = 0; i < 5; i++) await settle();

    assert.equal(reads.count, 4, 'three pages started and the next one read while none of their writes has ended');
    assert.equal(deliveries.inFlight, 12, 'every delivery of the three pages in flight');
    deliveries.releaseWrites();
    const record = await running;
    assert.equal(record.status, 'completed');
    assert.deepEqual([record.matched, record.replayed, record.skipped], [40, 40, 0]);
  });

  it('starts a later page’s writes while an earlier page’s are in flight, never more than 32 at once', async () => {
    const { deps, deliveries } = pipelineDeps(100, 8);
    deliveries.releaseWrites();

    const record = await startBulkReplay(deps, request, { deadlineMs: deps.clock.now() + 60_000 });

    assert.equal(deliveries.mostInFlight, 24, 'three pages of 8 side by side, under the 32 slots');
    assert.equal(record.replayed, 100);
    assert.equal(deps.queue.enqueued.flat().length, 100, 'each delivery enqueued once');
  });

  it('shares 32 slots between the pages when a page holds more', async () => {
    const { deps, deliveries } = pipelineDeps(200, 50);
    deliveries.releaseWrites();

    await startBulkReplay(deps, request, { deadlineMs: deps.clock.now() + 60_000 });

    assert.equal(deliveries.mostInFlight, 32);
  });

  it('a read that fails: the pages read before it are checkpointed, then the run fails, and a resume finishes', async () => {
    const { deps, deliveries, ids } = pipelineDeps(10, 2, [3]);
    deliveries.releaseWrites();
    const budget = () => ({ deadlineMs: deps.clock.now() + 60_000 });

    await assert.rejects(startBulkReplay(deps, request, budget()), /read refused/);

    const [stalled] = [...deps.replays.items.values()];
    assert.equal(stalled!.status, 'running');
    assert.deepEqual([stalled!.matched, stalled!.replayed], [4, 4], 'the two pages read before the refused read');
    assert.equal(stalled!.leaseUntil, deps.clock.iso(), 'handed back for the next resume tick');

    const resumed = await resumeBulkReplay(deps, stalled!.id, budget());
    assert.equal(resumed.status, 'completed');
    assert.deepEqual([resumed.matched, resumed.replayed, resumed.skipped], [10, 10, 0]);
    const enqueued = deps.queue.enqueued
      .flat()
      .map((m) => m.deliveryId)
      .sort();
    assert.deepEqual(enqueued, ids, 'each delivery enqueued exactly once');
  });
});

describe('bulk replay: the resume schedule', () => {
  it('continues stalled replays side by side, sharing 32 writes in flight, and each completes', async () => {
    const { deps, deliveries } = pipelineDeps(400, 50, [], 2);
    deliveries.releaseWrites();
    // Two replays, one per subscription, each stopped after its first page (no budget left).
    const stalled = [];
    for (const subscriptionId of ['sub_1', 'sub_2'])
      stalled.push(
        await startBulkReplay(
          deps,
          { ...request, criteria: { ...request.criteria, subscriptionId } },
          { deadlineMs: 0 },
        ),
      );
    assert.deepEqual(
      stalled.map((r) => r.status),
      ['running', 'running'],
    );
    deliveries.held = true;
    deliveries.mostInFlight = 0;

    const resuming = resumeStalledReplays(deps, { deadlineMs: deps.clock.now() + 60_000 });
    for (let i = 0; i < 5; i++) await settle();

    const of = (sub: string) =>
      [...deliveries.inFlightIds].filter((id) => deliveries.items.get(id)!.subscriptionId === sub).length;
    assert.ok(of('sub_1') > 0 && of('sub_2') > 0, `in flight: ${of('sub_1')} of sub_1, ${of('sub_2')} of sub_2`);
    assert.equal(deliveries.inFlight, 32, 'one 32 of writes in flight for both');
    deliveries.releaseWrites();
    const resumed = await resuming;
    assert.deepEqual(
      resumed.map((r) => [r.status, r.replayed]),
      [
        ['completed', 200],
        ['completed', 200],
      ],
    );
    assert.equal(deliveries.mostInFlight, 32);
  });

  it('one replay still refused does not stop the other: it completes, and the call then fails', async () => {
    const { deps, deliveries } = pipelineDeps(40, 10, [], 2);
    deliveries.releaseWrites();
    for (const subscriptionId of ['sub_1', 'sub_2'])
      await startBulkReplay(deps, { ...request, criteria: { ...request.criteria, subscriptionId } }, { deadlineMs: 0 });
    // Every read of the walk after this one is refused (each of the first replay's reads comes first).
    const failing = deps.recovery.listDeadLettersChanged;
    let calls = 0;
    deps.recovery = {
      ...deps.recovery,
      listDeadLettersChanged: (req) => (calls++ === 0 ? Promise.reject(new Error('read refused')) : failing(req)),
    };

    await assert.rejects(resumeStalledReplays(deps, { deadlineMs: deps.clock.now() + 60_000 }), /read refused/);

    const records = [...deps.replays.items.values()].sort((a, b) => (a.status < b.status ? -1 : 1));
    assert.deepEqual(
      records.map((r) => r.status),
      ['completed', 'running'],
    );
    assert.equal(records[1]!.leaseUntil, deps.clock.iso(), 'the failed one handed back for the next tick');
  });
});
