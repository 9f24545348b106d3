import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failingNow, longestFailingFirst, type FailingFacts } from '#domain/failing-now.ts';
import type { SubscriptionState } from '#domain/types.ts';

const SINCE = '2026-12-04T10:00:00.000Z';

describe('failing now', () => {
  it('is a dead-letter streak, whatever the state but deleted', () => {
    const states: SubscriptionState[] = ['active', 'paused', 'disabled'];
    for (const state of states)
      assert.deepEqual(failingNow({ state, deadLetteringSince: SINCE, deadLetterStreak: 3 }), {
        since: SINCE,
        deadLetters: 3,
      });
    assert.equal(failingNow({ state: 'deleted', deadLetteringSince: SINCE, deadLetterStreak: 3 }), undefined);
  });

  it('is not failing without a streak, as a stored row (absent) or an API view (null, 0) says it', () => {
    assert.equal(failingNow({ state: 'active' }), undefined);
    assert.equal(failingNow({ state: 'active', deadLetteringSince: null, deadLetterStreak: 0 }), undefined);
    assert.equal(failingNow({ state: 'paused', deadLetteringSince: '' }), undefined);
  });

  it('counts a streak without a count (or a 0 beside a since) as one dead letter', () => {
    assert.equal(failingNow({ state: 'active', deadLetteringSince: SINCE })?.deadLetters, 1);
    assert.equal(failingNow({ state: 'active', deadLetteringSince: SINCE, deadLetterStreak: 0 })?.deadLetters, 1);
  });

  it('sorts the longest failing first, ties by id, those not failing last', () => {
    const row = (id: string, since?: string, state: SubscriptionState = 'active'): FailingFacts & { id: string } => ({
      id,
      state,
      deadLetteringSince: since ?? null,
    });
    const rows = [
      row('sub_healthy'),
      row('sub_new', '2026-12-04T11:00:00.000Z'),
      row('sub_b', SINCE),
      row('sub_gone', '2026-12-01T00:00:00.000Z', 'deleted'),
      row('sub_old', '2026-12-03T09:00:00.000Z', 'paused'),
      row('sub_a', SINCE),
    ];
    assert.deepEqual(
      [...rows].sort(longestFailingFirst).map((r) => r.id),
      ['sub_old', 'sub_a', 'sub_b', 'sub_new', 'sub_gone', 'sub_healthy'],
    );
  });
});
