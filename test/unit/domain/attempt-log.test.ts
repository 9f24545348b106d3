import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasLoggedAttempts } from '#domain/attempt-log.ts';
import type { InlineAttempt } from '#domain/types.ts';

const attempt = (seq: number): InlineAttempt => ({
  seq,
  attempt: seq,
  startedAt: '2024-05-01T12:00:00.000Z',
  durationMs: 5,
});

describe('hasLoggedAttempts: whether a delivery has attempts off its row', () => {
  it('none when each attempt it made is on its row', () => {
    assert.equal(hasLoggedAttempts({ attemptSeq: 0 }), false, 'not attempted');
    assert.equal(hasLoggedAttempts({ attemptSeq: 1, lastAttempt: attempt(1) }), false, 'attempted once');
    assert.equal(
      hasLoggedAttempts({ attemptSeq: 2, firstAttempt: attempt(1), lastAttempt: attempt(2) }),
      false,
      'an earlier version held the first inline too',
    );
  });

  it('some once an attempt was replaced on its row, or when the row holds none (an earlier version logged every one)', () => {
    assert.equal(hasLoggedAttempts({ attemptSeq: 2, lastAttempt: attempt(2) }), true);
    assert.equal(hasLoggedAttempts({ attemptSeq: 1 }), true);
    assert.equal(hasLoggedAttempts({ attemptSeq: 3, firstAttempt: attempt(1), lastAttempt: attempt(3) }), true);
  });
});
