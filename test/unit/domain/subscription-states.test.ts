import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endedReason, liveSecretIndexes, receivesEvents } from '#domain/subscription-states.ts';
import type { Subscription } from '#domain/types.ts';

const sub = (state: Subscription['state'], extra: Partial<Subscription> = {}) => ({ state, ...extra }) as Subscription;

describe('what a subscription state means for its deliveries', () => {
  it('fans out to active and paused only', () => {
    assert.deepEqual(
      (['active', 'paused', 'disabled', 'deleted'] as const).map((s) => receivesEvents(sub(s))),
      [true, true, false, false],
    );
  });

  it('ends deliveries of deleted, disabled and vanished subscriptions, saying why', () => {
    assert.equal(endedReason(sub('deleted')), 'subscription deleted');
    assert.equal(endedReason(sub('disabled', { stateReason: '410' })), 'subscription disabled: 410');
    assert.equal(endedReason(undefined), 'subscription no longer exists');
    assert.equal(endedReason(sub('active')), undefined);
    assert.equal(endedReason(sub('paused')), undefined);
  });

  it('keeps a rotated-out secret until its overlap ends, and the newest always', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const s = { secretExpiry: [null, '2026-01-01T00:00:01Z', '2025-12-31T23:59:59Z'] };
    assert.deepEqual(liveSecretIndexes(s, 3, now), [0, 1]);
    assert.deepEqual(liveSecretIndexes(s, 3, now + 1000), [0]);
    assert.deepEqual(liveSecretIndexes({}, 2, now), [0, 1], 'a row from before rotations: every secret signs');
  });
});
