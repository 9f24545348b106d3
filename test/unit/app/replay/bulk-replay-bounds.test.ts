import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, ValidationError } from '#app/errors.ts';
import { resumeBulkReplay, startBulkReplay } from '#app/replay/bulk-replay.ts';
import { replayDelivery } from '#app/replay/replay-delivery.ts';
import { DEFAULT_REPLAY_POLICY } from '#domain/replay.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { STATE } from '#domain/states.ts';
import type { Delivery } from '#domain/types.ts';
import type { Page } from '#ports/page.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import { aDelivery, aSubscription, fakeDeps } from '#test/fakes.ts';
import { InMemoryReplayStore } from '#test/memory-stores.ts';

const DAY_MS = 86_400_000;

/**
 * A dead-letter source over a range with nothing in it: each read takes a second and hands
 * back a cursor, a slow store over a wide range. `calls` is capped so a replay that never
 * stops fails instead of hanging.
 */
function emptyRange(clock: { advance(ms: number): void }) {
  const calls: { cursor?: string }[] = [];
  const recovery: RecoveryStore = {
    async listDeadLettersChanged(request): Promise<Page<Delivery>> {
      calls.push(request.cursor ? { cursor: request.cursor } : {});
      if (calls.length > 100) throw new Error('the replay kept reading past its deadline');
      clock.advance(1000);
      return { items: [], nextCursor: `stretch-${calls.length}` };
    },
    listCreated: async () => ({ items: [] }),
    deleteArchived: async () => false,
    restore: async () => false,
  };
  return { recovery, calls };
}

function bulkDeps() {
  const base = fakeDeps();
  const { recovery, calls } = emptyRange(base.clock);
  const deps = {
    ...base,
    replays: new InMemoryReplayStore(),
    recovery,
    replayPolicy: DEFAULT_REPLAY_POLICY,
    retention: DEFAULT_RETENTION,
  };
  return { deps, calls };
}

const criteria = (createdFrom: string, createdTo = '2024-05-01T11:00:00.000Z') => ({
  states: [STATE.expired, STATE.failed],
  createdFrom,
  createdTo,
});

describe('bulk replay: a bounded range, a deadline between reads', () => {
  for (const createdFrom of ['1970-01-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z']) {
    it(`refuses createdFrom ${createdFrom.slice(0, 10)} (before the retention window) naming createdFrom, and stores nothing`, async () => {
      const { deps, calls } = bulkDeps();
      await assert.rejects(
        startBulkReplay(
          deps,
          { criteria: criteria(createdFrom), dryRun: false, operator: 'op', principal: 'admin' },
          { deadlineMs: deps.clock.now() + 20_000 },
        ),
        (e: unknown) => e instanceof ValidationError && e.field === 'createdFrom' && /retention/.test(e.message),
      );
      assert.equal(deps.replays.items.size, 0);
      assert.equal(calls.length, 0);
    });
  }

  it('accepts a createdFrom inside the dead-letter retention', async () => {
    const { deps } = bulkDeps();
    const from = new Date(deps.clock.now() - (DEFAULT_RETENTION.deadLetterDays - 1) * DAY_MS).toISOString();
    const record = await startBulkReplay(
      deps,
      { criteria: criteria(from), dryRun: true, operator: 'op', principal: 'admin' },
      { deadlineMs: deps.clock.now() + 5_000 },
    );
    assert.equal(record.criteria.createdFrom, from);
  });

  it('answers at its deadline while reading an empty range, with the cursor it reached checkpointed; a resume continues from there', async () => {
    const { deps, calls } = bulkDeps();
    const from = new Date(deps.clock.now() - 80 * DAY_MS).toISOString();
    const deadlineMs = deps.clock.now() + 5_000;

    const record = await startBulkReplay(
      deps,
      { criteria: criteria(from), dryRun: false, operator: 'op', principal: 'admin' },
      { deadlineMs },
    );

    assert.equal(record.status, 'running');
    assert.ok(calls.length <= 6, `${calls.length} reads for a 5 s budget of 1 s reads`);
    const saved = deps.replays.items.get(record.id)!;
    assert.ok(saved.cursor, 'the walk position is checkpointed');

    const reached = calls.length;
    await resumeBulkReplay(deps, record.id, { deadlineMs: deps.clock.now() + 2_000 });
    assert.equal(calls[reached]!.cursor, `stretch-${reached}`, 'the resume starts from where the first run reached');
  });
});

describe('replaying a delivery of a disabled subscription', () => {
  it('is a conflict, and changes nothing', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set(
      'sub_1',
      aSubscription({ id: 'sub_1', state: 'disabled', stateReason: 'endpoint answered 410 Gone' }),
    );
    deps.deliveries.put(aDelivery({ id: 'dlv_1', subscriptionId: 'sub_1', state: STATE.failed }));

    await assert.rejects(
      replayDelivery(deps, 'dlv_1'),
      (e: unknown) => e instanceof ConflictError && /disabled/.test(e.message) && /sub_1/.test(e.message),
    );

    assert.equal(deps.deliveries.items.get('dlv_1')!.state, STATE.failed);
    assert.deepEqual(deps.queue.messages(), []);
  });
});
