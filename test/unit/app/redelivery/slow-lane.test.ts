import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { divertToSlowLane, postWatchingForSlowness } from '#app/redelivery/slow-lane.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { SLOW_LANE } from '#domain/slow-lane.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';

const due: ReceivedDeliveryMessage = { kind: 'due', deliveryId: 'dlv_1', subscriptionId: 'sub_1' };
const ok: AttemptResult = { kind: 'response', status: 200, bodySnippet: '', durationMs: 40 };
/** A POST answered after `ms` of real time. */
const answeredAfter = (ms: number) => () => new Promise<AttemptResult>((r) => setTimeout(() => r(ok), ms));

describe('divertToSlowLane', () => {
  it('sends a marked subscription’s delivery on to the slow lane as it came, and is done with it', async () => {
    const deps = fakeDeps();
    const until = new Date(deps.clock.now() + 60_000).toISOString();
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', slowUntil: until }));
    const outcome = await divertToSlowLane(deps, due);
    assert.equal(outcome?.kind, 'done');
    assert.deepEqual(deps.slowLane.messages(), [due]);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('leaves a delivery alone when its subscription is unmarked, its mark has lapsed, or it is gone', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
    assert.equal(await divertToSlowLane(deps, due), undefined);
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', slowUntil: deps.clock.iso() }));
    assert.equal(await divertToSlowLane(deps, due), undefined);
    assert.equal(await divertToSlowLane(deps, { ...due, subscriptionId: 'sub_gone' }), undefined);
    assert.deepEqual(deps.slowLane.messages(), []);
  });
});

describe('postWatchingForSlowness', () => {
  it('marks the subscription while an attempt is still unanswered past the threshold, and returns the answer', async () => {
    const deps = { ...fakeDeps(), attemptTimeoutMs: 1000, slowAfterMs: 20 };
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
    const result = await postWatchingForSlowness(deps, aSubscription({ id: 'sub_1' }), answeredAfter(80));
    assert.deepEqual(result, ok);
    assert.equal(
      deps.subscriptions.items.get('sub_1')?.slowUntil,
      new Date(deps.clock.now() + SLOW_LANE.holdSeconds * 1000).toISOString(),
    );
  });

  it('marks nothing for an attempt answered in time, or when the setting is 0', async () => {
    for (const slowAfterMs of [200, 0]) {
      const deps = { ...fakeDeps(), attemptTimeoutMs: 1000, slowAfterMs };
      deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
      await postWatchingForSlowness(deps, aSubscription({ id: 'sub_1' }), answeredAfter(slowAfterMs ? 10 : 80));
      assert.equal(deps.subscriptions.items.get('sub_1')?.slowUntil, undefined, `slowAfterMs ${slowAfterMs}`);
    }
  });

  it('returns the answer even when the mark cannot be written', async () => {
    const deps = { ...fakeDeps(), attemptTimeoutMs: 1000, slowAfterMs: 10 };
    deps.subscriptions.markSlow = async () => {
      throw new Error('DynamoDB unreachable');
    };
    assert.deepEqual(await postWatchingForSlowness(deps, aSubscription({ id: 'sub_1' }), answeredAfter(50)), ok);
  });
});
