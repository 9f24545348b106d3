import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatencyHistogram, rateLimitFigures } from '../../../scripts/scale-model/measures.ts';

describe('the scale model’s measures', () => {
  it('counts the most POSTs in any sliding 1 s window, not only in whole seconds', () => {
    // 10 at 0.6 s to 0.69 s and 10 at 1.1 s to 1.19 s: 10 in each whole second, 20 within 0.6 s to 1.2 s.
    const times = [
      ...Array.from({ length: 10 }, (_, i) => 600 + i * 10),
      ...Array.from({ length: 10 }, (_, i) => 1100 + i * 10),
    ];
    const figures = rateLimitFigures(10, times);
    assert.equal(figures.mostInOneSecond, 20);
    assert.equal(figures.limit, 10);
  });

  it('takes the drain rate from the first POST to the last', () => {
    const times = Array.from({ length: 101 }, (_, i) => i * 50); // 20 a second for 5 s
    assert.equal(rateLimitFigures(20, times).drainRate, 20);
    assert.equal(rateLimitFigures(20, [5]).drainRate, 0);
  });

  it('reads percentiles off the latency histogram', () => {
    const h = new LatencyHistogram();
    for (let ms = 1; ms <= 1000; ms++) h.add(ms);
    const p50 = h.percentile(0.5);
    const p99 = h.percentile(0.99);
    assert.ok(p50 >= 450 && p50 <= 550, `p50 ${p50}`);
    assert.ok(p99 >= 950 && p99 <= 1050, `p99 ${p99}`);
  });
});
