import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atStatedTraffic } from '../../../scripts/bench/at-stated-traffic.ts';
import type { StoredResult } from '../../../scripts/scale-model/stored-results.ts';
import { UNSHARED_REQUESTS as requests } from '../scale-model/request-figures-fixture.ts';

const stored = (withRequests: boolean): StoredResult =>
  ({
    run: { date: '2026-12-07 15:00 UTC', commit: 'abc1234', command: 'npm run scale-model', machine: 'test' },
    result: { meanDeliveriesPerSecond: 3.8, ...(withRequests ? { requests } : {}) },
  }) as unknown as StoredResult;

describe('the single publish at the stated traffic', () => {
  it('puts the scale model’s requests at that rate in place of the run’s, and says so', () => {
    const text = atStatedTraffic({ requests: 2.11, allIn: 3.36 }, stored(true)).join('\n');
    assert.match(text, /At 3\.8 a second/);
    assert.match(text, /1\.00 event a fan-out batch/);
    assert.match(text, /\*\*\$3\.86\*\* a million in requests where this run's are \$2\.11/);
    // 3.36 − 2.11 + 3.86
    assert.match(text, /at least \*\*\$5\.11\*\*/);
    assert.match(text, /2026-12-07 15:00 UTC, abc1234/);
  });

  it('says nothing without a recorded run that metered its requests', () => {
    assert.deepEqual(atStatedTraffic({ requests: 2, allIn: 3 }, undefined), []);
    assert.deepEqual(atStatedTraffic({ requests: 2, allIn: 3 }, stored(false)), []);
  });
});
