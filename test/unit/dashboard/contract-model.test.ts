import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryWords, spanWords } from '../../../dashboard/src/contract-model.ts';

describe('the delivery contract in words', () => {
  it('says a length of time in the unit that reads best', () => {
    for (const [seconds, words] of [
      [10, '10 s'],
      [90, '90 s'],
      [300, '5 min'],
      [3600, '1 h'],
      [5400, '1.5 hours'],
      [259_200, '72 hours'],
      [7_776_000, '90 days'],
    ] as const)
      assert.equal(spanWords(seconds), words, String(seconds));
  });

  it("states the default policy as the README does, and an endpoint's own as it is", () => {
    const byDefault = { initialDelaySeconds: 10, multiplier: 2, maxDelaySeconds: 3600, deadlineSeconds: 259_200 };
    assert.equal(retryWords(byDefault), 'for 72 hours, waiting longer each time (10 s, doubling up to 1 h)');
    assert.equal(
      retryWords({
        initialDelaySeconds: 30,
        multiplier: 1.5,
        maxDelaySeconds: 600,
        deadlineSeconds: 3600,
        maxAttempts: 5,
      }),
      'for 1 h, waiting longer each time (30 s, ×1.5 each time up to 10 min, at most 5 attempts)',
    );
    assert.equal(
      retryWords({ initialDelaySeconds: 60, multiplier: 1, maxDelaySeconds: 60, deadlineSeconds: 600 }),
      'for 10 min, every 60 s',
    );
  });
});
