import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/** Shortened from the default 24 h so the test sees a whole streak. */
const AUTO_PAUSE_SECONDS = 3;
/** One attempt, then the dead letter: every failure is a dead letter at once. */
const ONE_TRY = {
  initialDelaySeconds: 1,
  multiplier: 1,
  maxDelaySeconds: 1,
  jitter: 0,
  deadlineSeconds: 30,
  maxAttempts: 1,
};

describe('pause, resume, auto-pause and disable', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack({ env: { HOOKLINE_AUTO_PAUSE_SECONDS: String(AUTO_PAUSE_SECONDS) } });
  });
  after(() => stack.stop());

  it('pause → publish: events accepted and stored, no attempts → resume: the backlog drains, spread, every delivery once', async (t) => {
    const sub = await stack.subscribe('/pause', { eventTypes: ['pause.test'] });
    const paused = await stack.api.post(`/v1/subscriptions/${sub.id}/pause`, { reason: 'receiver deploy' });
    assert.deepEqual([paused.body.state, paused.body.stateReason], ['paused', 'receiver deploy']);
    assert.ok(paused.body.stateChangedAt);

    const ids: string[] = [];
    for (let i = 0; i < 150; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, (_, j) =>
          stack.api.post('/v1/events', { type: 'pause.test', payload: { n: i + j } }),
        ),
      );
      for (const r of batch) {
        assert.equal(r.status, 202, 'a paused subscription still accepts events');
        ids.push(...r.body.deliveryIds);
      }
    }
    assert.equal(ids.length, 150);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(stack.receiver.on('/pause').length, 0, 'no attempt while paused');
    const pending = await Promise.all(ids.map((id) => stack.delivery(id)));
    assert.ok(
      pending.every((d) => d.state === 'pending' && d.attempts === 0),
      'every event stored as a pending delivery',
    );

    const resumedAt = Date.now();
    const resumed = await stack.api.post(`/v1/subscriptions/${sub.id}/resume`);
    assert.deepEqual(
      [resumed.body.state, resumed.body.stateReason, resumed.body.drained],
      ['active', 'resumed by request', 150],
    );
    await Promise.all(ids.map((id) => stack.waitForState(id, ['delivered'], 30_000)));
    // Every delivery arrived; at-least-once may repeat one under load, so count webhook-ids.
    const received = stack.receiver.distinct('/pause');
    assert.equal(received.length, 150, 'each delivery received');
    const offsets = received.map((r) => r.receivedAt - resumedAt).sort((a, b) => a - b);
    t.diagnostic(
      `resume drained 150 (${stack.receiver.on('/pause').length} requests) over ${offsets[0]} .. ${offsets[offsets.length - 1]} ms after resume`,
    );
    assert.ok(
      offsets[offsets.length - 1]! - offsets[0]! >= 1500,
      'spread over the drain window, not all at one instant',
    );
  });

  it(`auto-pauses after ${AUTO_PAUSE_SECONDS} s of continuous dead letters, says why, and attempts nothing more until resumed`, async (t) => {
    stack.receiver.script('/down', [], { status: 503 });
    // Same failures, but every other attempt succeeds: its streak never lasts.
    stack.receiver.script(
      '/flaky',
      Array.from({ length: 200 }, (_, i) => ({ status: i % 2 === 0 ? 503 : 200 })),
    );
    const down = await stack.subscribe('/down', { eventTypes: ['streak.test'], retryPolicy: ONE_TRY });
    const flaky = await stack.subscribe('/flaky', { eventTypes: ['streak.test'], retryPolicy: ONE_TRY });
    const startedAt = Date.now();
    let published = 0;
    const state = async (id: string) => (await stack.api.get(`/v1/subscriptions/${id}`)).body;
    const pausedSub = await waitFor(
      'auto-pause',
      async () => {
        await stack.publish('streak.test', { n: published++ });
        await new Promise((r) => setTimeout(r, 300));
        const s = await state(down.id);
        return s.state === 'paused' ? s : undefined;
      },
      20_000,
      0,
    );
    const tookMs = Date.now() - startedAt;
    t.diagnostic(`auto-paused after ${tookMs} ms and ${published} events: ${pausedSub.stateReason}`);
    assert.match(
      pausedSub.stateReason,
      /^auto-paused: every delivery since .* was dead-lettered \(\d+ in a row over \d+ s, threshold 3 s\)/,
    );
    assert.ok(tookMs >= AUTO_PAUSE_SECONDS * 1000, 'not before the period has passed');
    assert.ok(pausedSub.deadLetterStreak >= 2);
    assert.ok(pausedSub.deadLetteringSince);
    assert.equal((await state(flaky.id)).state, 'active', 'successes between failures reset the streak');

    // Still accepted and stored while auto-paused, but not attempted.
    const before = stack.receiver.requests.length;
    const held = await Promise.all(Array.from({ length: 5 }, (_, i) => stack.publish('streak.test', { held: i })));
    const heldIds = [];
    for (const h of held)
      for (const id of h.deliveryIds) if ((await stack.delivery(id)).subscriptionId === down.id) heldIds.push(id);
    assert.equal(heldIds.length, 5);
    await new Promise((r) => setTimeout(r, 2000));
    // Precisely: none of the held events was attempted (a late repeat of an earlier delivery may still arrive).
    const heldEvents = new Set(held.map((h) => h.eventId));
    assert.equal(
      stack.receiver.distinct('/down', before).filter((r) => heldEvents.has(r.webhookId)).length,
      0,
      'nothing attempted while auto-paused',
    );

    // Fixed: resume clears the streak and drains the held deliveries.
    stack.receiver.script('/down', [], { status: 200 });
    const resumed = (await stack.api.post(`/v1/subscriptions/${down.id}/resume`)).body;
    assert.deepEqual([resumed.state, resumed.deadLetteringSince, resumed.deadLetterStreak], ['active', null, 0]);
    await Promise.all(heldIds.map((id) => stack.waitForState(id, ['delivered'])));
  });

  it('a 410 Gone disables the subscription with the reason; later events are not fanned out to it', async () => {
    stack.receiver.script('/gone', [], { status: 410 });
    const sub = await stack.subscribe('/gone', { eventTypes: ['gone.test'] });
    const first = (await stack.publish('gone.test', {})).deliveryIds;
    assert.equal(first.length, 1);
    await stack.waitForState(first[0]!, ['failed']);
    const s = (await stack.api.get(`/v1/subscriptions/${sub.id}`)).body;
    assert.equal(s.state, 'disabled');
    assert.match(s.stateReason, /410 Gone/);
    assert.ok(s.stateChangedAt >= s.createdAt);
    // The routing entries follow the row in the sender's same change (intent, row, entries), so a
    // publish racing that last step may still fan out once; the sender dead-letters such a delivery.
    // Within a moment no event reaches the disabled subscription.
    await waitFor(
      'the routing index to drop the disabled subscription',
      async () => (await stack.publish('gone.test', {})).deliveryIds.length === 0,
      5_000,
      200,
    );
    assert.equal(
      (await stack.api.post(`/v1/subscriptions/${sub.id}/pause`)).status,
      409,
      'a disabled subscription is resumed, not paused',
    );
  });
});
