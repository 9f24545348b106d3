import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OverheadRun } from '../../../scripts/bench/overhead.ts';
import { renderEndToEnd, renderOverhead } from '../../../scripts/bench/report.ts';

const overhead = (raw: number, signed: number, memory: number): OverheadRun => ({
  rawPerSecond: raw,
  signedRawPerSecond: signed,
  memoryPerSecond: memory,
  emulatorPerSecond: 300,
  concurrency: 32,
  count: 1500,
  memoryProfile: [],
});
const throughput = (perSecond: number, senderConcurrency = 4) => ({
  fanOut: 1,
  senderConcurrency,
  deliveries: 1000,
  perSecond,
});

describe('engine overhead report', () => {
  it("shows the signed raw POSTs as the protocol's floor, the engine against them, and what a ratio of 0.8 leaves the engine", () => {
    const md = renderOverhead([overhead(10_000, 8_000, 6_000)]);
    assert.match(md, /\| signed raw POSTs: .* \| 8000 \| 0\.80 \| the floor for any sender of the protocol \|/);
    assert.match(
      md,
      /\| sender path, in-memory stores \(the engine's own CPU cost\) \| 6000 \| 0\.60 \| \*\*not met\*\* \|/,
    );
    assert.match(md, /the engine's own share is the in-memory path against them, 0\.75/);
    // 1 / (0.8 × 10,000) − 1 / 8,000 = 0: nothing left beyond signing.
    assert.match(md, /would leave the engine 0\.0 µs a delivery beyond signing/);
    assert.match(
      renderOverhead([overhead(10_000, 9_000, 8_500)]),
      /would leave the engine 13\.9 µs a delivery beyond signing/,
    );
  });
});

describe('end-to-end report', () => {
  const latency = [
    [{ offeredPerSecond: 100, events: 1000, acceptedPerSecond: 100, p50: 20, p95: 50, p99: 90, max: 120 }],
  ];

  it('says a ceiling below the target leaves no code change able to meet it', () => {
    const md = renderEndToEnd(
      [throughput(150)],
      [throughput(440)],
      [throughput(120, 20)],
      [{ deliveries: 1000, perSecond: 250 }],
      latency,
      [],
    );
    assert.match(md, /\| the ceiling: fan-out 1's AWS calls alone, .* \| 250 \| fan-out 1 runs at 0\.60 of it \|/);
    assert.match(
      md,
      /At 250 a second it is below the 400 the target asks for, so no change to Hookline's code can meet the target here/,
    );
    assert.match(md, /sustained deliveries per second, fan-out 1 \(1000 deliveries\) \| 150 \| ≥ 400: \*\*not met\*\*/);
  });

  it('says where the gap is when the ceiling is above the target', () => {
    const md = renderEndToEnd(
      [throughput(300)],
      [throughput(700)],
      [throughput(280, 20)],
      [{ deliveries: 1000, perSecond: 900 }],
      latency,
      [],
    );
    assert.match(md, /At 900 a second it leaves room above the 400 the target asks for/);
    assert.doesNotMatch(md, /no change to Hookline's code can meet/);
  });
});
