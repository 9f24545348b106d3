import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inSlowLane, SLOW_LANE, slowAttemptMs, slowMarkToWrite } from '#domain/slow-lane.ts';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const at = (secondsFromNow: number) => new Date(NOW + secondsFromNow * 1000).toISOString();

describe('the slow lane', () => {
  it('holds a subscription while its mark is in the future, and not once it has passed', () => {
    assert.equal(inSlowLane({}, NOW), false);
    assert.equal(inSlowLane({ slowUntil: at(1) }, NOW), true);
    assert.equal(inSlowLane({ slowUntil: at(0) }, NOW), false);
    assert.equal(inSlowLane({ slowUntil: at(-60) }, NOW), false);
  });

  it('counts an attempt slow after the setting, or half a shorter timeout; never when the setting is 0', () => {
    assert.equal(slowAttemptMs(5000, 15_000), 5000);
    assert.equal(slowAttemptMs(5000, 4000), 2000);
    assert.equal(slowAttemptMs(0, 15_000), undefined);
  });

  it('writes a mark of holdSeconds when there is none, or the one there ends within renewWithinSeconds', () => {
    const fresh = at(SLOW_LANE.holdSeconds);
    assert.equal(slowMarkToWrite({}, NOW), fresh);
    assert.equal(slowMarkToWrite({ slowUntil: at(-5) }, NOW), fresh);
    assert.equal(slowMarkToWrite({ slowUntil: at(SLOW_LANE.renewWithinSeconds) }, NOW), fresh);
    // Long enough to run: no write, so a hanging endpoint costs a write per renewal, not per attempt.
    assert.equal(slowMarkToWrite({ slowUntil: at(SLOW_LANE.renewWithinSeconds + 1) }, NOW), undefined);
  });
});
