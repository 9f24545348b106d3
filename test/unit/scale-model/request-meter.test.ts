import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type RequestCounters, requestFigures } from '../../../scripts/scale-model/request-meter.ts';

const counters = (over: Partial<RequestCounters> = {}): RequestCounters => ({
  invocations: { api: 0, ingest: 0, sender: 0 },
  sqsRequests: 0,
  units: {},
  ...over,
});

describe('the scale model’s request meter', () => {
  it('gives what each delivery asked for between two counters, and its price a million', () => {
    const before = counters({
      invocations: { api: 5, ingest: 2, sender: 1 },
      sqsRequests: 7,
      units: { events: { wcu: 10, rcu: 0 } },
    });
    const after = counters({
      invocations: { api: 105, ingest: 27, sender: 11 },
      sqsRequests: 37,
      units: { events: { wcu: 110, rcu: 0 }, deliveries: { wcu: 100, rcu: 50 }, routes: { wcu: 0, rcu: 100 } },
    });
    const q = requestFigures(before, after, 100, 100)!;
    assert.deepEqual(q.invocations, { api: 1, ingest: 0.25, sender: 0.1 });
    assert.equal(q.sqsRequests, 0.3);
    assert.equal(q.wru, 2);
    assert.equal(q.rru, 1.5);
    assert.deepEqual(Object.keys(q.wruByTable), ['events', 'deliveries'], 'tables with writes only, largest first');
    assert.equal(q.eventsPerFanOut, 4, '100 events over 25 fan-out invocations');
    // 2 WRU × $0.625 + 1.5 RRU × $0.125; 0.3 × $0.40; 1.35 invocations × $0.20.
    assert.ok(Math.abs(q.dollarsPerMillion.dynamodb - 1.4375) < 1e-9);
    assert.ok(Math.abs(q.dollarsPerMillion.sqs - 0.12) < 1e-9);
    assert.ok(Math.abs(q.dollarsPerMillion.lambda - 0.27) < 1e-9);
    assert.ok(Math.abs(q.dollarsPerMillion.total - 1.8275) < 1e-9);
  });

  it('has nothing to say of a run that delivered nothing, and no batch size without a fan-out', () => {
    assert.equal(requestFigures(counters(), counters(), 0, 10), undefined);
    const q = requestFigures(counters(), counters({ invocations: { api: 3, ingest: 0, sender: 3 } }), 3, 3)!;
    assert.equal(q.eventsPerFanOut, undefined);
  });
});
