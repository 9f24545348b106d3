import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderRouting, type RoutingRun } from '../../../scripts/bench/routing.ts';

const run = (eventRru: number[], listingRru: number[]): RoutingRun => ({
  subscriptions: 100_000,
  tenants: 1000,
  events: eventRru.length,
  entries: 195_000,
  seedSeconds: 160,
  eventRru,
  matched: eventRru.map(() => 30),
  lookupMs: eventRru.map(() => 2),
  keyRru: [0.5, 1],
  scanRru: 8900,
  scanSeconds: 4,
  listingRru,
  listingItems: 50,
  filteredScanRru: 2225,
  broadcastRru: 960,
  broadcastMatched: 34_000,
});

describe('routing report', () => {
  it('checks read units per event and a listing page against their targets, beside what they replace', () => {
    const md = renderRouting(run([1, 1.5, 2], [2, 2]));
    assert.match(
      md,
      /\| read units per published event \(two keys\), mean \/ p99 \/ max \| 1\.50 \/ 2\.0 \/ 2\.0 \| ≤ 2: met \|/,
    );
    assert.match(md, /from the byTenant index \| 2\.00 \| ≤ 5: met \|/);
    assert.match(md, /the consistent scan of every subscription it replaces .* \| 8900 \|/);
    assert.match(md, /\$0\.188 per million events/);
  });

  it('says when a target is missed', () => {
    const md = renderRouting(run([2.5, 3], [6]));
    assert.match(md, /≤ 2: \*\*not met\*\*/);
    assert.match(md, /≤ 5: \*\*not met\*\*/);
  });
});
