import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBulkReplay } from '#app/replay/bulk-replay.ts';
import { DEFAULT_REPLAY_POLICY, PACE_START_MS } from '#domain/replay.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { STATE } from '#domain/states.ts';
import type { Subscription } from '#domain/types.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';
import { InMemoryReplayStore } from '#test/memory-stores.ts';
import { deadLetterIndex, putDeadLetters } from '#test/dead-letter-index.ts';

/** `count` dead letters of sub_1, replayed all due at once (window 0) in pages of 25. */
async function replayAll(count: number, subscription: Partial<Subscription>) {
  const base = fakeDeps();
  putDeadLetters(base.deliveries, base.subscriptions, count);
  base.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', ...subscription }));
  const deps = {
    ...base,
    replays: new InMemoryReplayStore(),
    recovery: deadLetterIndex(base.deliveries),
    replayPolicy: { ...DEFAULT_REPLAY_POLICY, pageSize: 25 },
    retention: DEFAULT_RETENTION,
  };
  const startedMs = deps.clock.now();
  await startBulkReplay(
    deps,
    {
      criteria: {
        states: [STATE.failed],
        createdFrom: '2024-05-01T00:00:00.000Z',
        createdTo: '2024-05-01T12:00:00.000Z',
      },
      dryRun: false,
      operator: 'op',
      principal: 'admin',
      windowSeconds: 0,
    },
    { deadlineMs: startedMs + 60_000 },
  );
  // How many come due in each 100 ms sub-window after the start (20/s: two places in each).
  const perSubWindow = new Map<number, number>();
  for (const d of base.deliveries.items.values()) {
    const subWindow = (Date.parse(d.nextAttemptAt) - startedMs) / 100;
    perSubWindow.set(subWindow, (perSubWindow.get(subWindow) ?? 0) + 1);
  }
  const messages = base.queue.messages();
  return { perSubWindow, messages, deliveries: base.deliveries };
}

describe('bulk replay into a rate limit', () => {
  it("makes a limited subscription's dead letters due at its limit's pace, not all at once: they would only take turns, and hold up those back for theirs", async () => {
    const { perSubWindow, messages, deliveries } = await replayAll(100, { rateLimitPerSecond: 20 });

    assert.deepEqual(
      [...perSubWindow].sort((a, b) => a[0] - b[0]),
      Array.from({ length: 50 }, (_, i) => [PACE_START_MS / 100 + i + 1, 2]),
      'two due in each sub-window once the pace begins, over the five seconds 100 take at 20/s',
    );
    for (const m of messages) {
      const due = Date.parse(deliveries.items.get(m.deliveryId)!.nextAttemptAt);
      assert.equal(m.notBefore, new Date(due).toISOString(), 'its message carries its turn, for the gate');
      assert.equal(
        m.delaySeconds,
        Math.floor((due - Date.parse('2024-05-01T12:00:00.000Z')) / 1000),
        "SQS's whole seconds",
      );
    }
  });

  it('leaves an unlimited subscription all due at once (window 0)', async () => {
    const { perSubWindow, messages } = await replayAll(100, {});
    assert.deepEqual([...perSubWindow], [[0, 100]]);
    assert.ok(messages.every((m) => m.notBefore === undefined && m.delaySeconds === 0));
  });
});
