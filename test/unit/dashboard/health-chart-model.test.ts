import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  bucketName,
  latencySummary,
  linePath,
  niceTop,
  successSummary,
  windowName,
  type ChartBucket,
  type ChartSeries,
  type Formats,
} from '../../../dashboard/src/health-chart-model.ts';

const F: Formats = {
  percent: (r) => `${Math.round(r * 100)} %`,
  ms: (v) => `${v} ms`,
  time: (iso) => iso.slice(11, 16),
};

const bucket = (
  hour: number,
  attempts: number,
  succeeded: number,
  p50: number | null = null,
  p95 = p50,
): ChartBucket => ({
  from: `2025-03-02T${String(hour).padStart(2, '0')}:00:00.000Z`,
  to: `2025-03-02T${String(hour + 1).padStart(2, '0')}:00:00.000Z`,
  attempts,
  succeeded,
  failed: attempts - succeeded,
  successRate: attempts ? succeeded / attempts : null,
  latencyMs: { p50: attempts ? p50 : null, p95: attempts ? p95 : null },
  deadLettered: 0,
});

describe('linePath', () => {
  it('joins neighbouring values, leaves a gap for a null and draws a lone value as a dash across its slot', () => {
    // Slots 0-1 joined; 2 empty; 3 alone; 4 empty; 5-6 joined.
    assert.equal(linePath([1, 0.5, null, 0, null, 1, 1], 1), 'M0.5 0L1.5 50' + 'M3.2 100H3.8' + 'M5.5 0L6.5 0');
  });
  it('draws nothing for no value at all, and keeps a value above the top on the top', () => {
    assert.equal(linePath([null, null], 1), '');
    assert.equal(linePath([250, 50], 100), 'M0.5 0L1.5 50');
  });
});

describe('niceTop', () => {
  const CASES: readonly [number, number][] = [
    [0, 10],
    [7, 10],
    [10, 10],
    [11, 20],
    [130, 200],
    [201, 500],
    [999, 1000],
    [1001, 2000],
  ];
  for (const [value, top] of CASES) it(`${value} → ${top}`, () => assert.equal(niceTop(value), top));
});

describe('the words', () => {
  it('names windows and buckets', () => {
    assert.deepEqual(
      [windowName(24), windowName(168), windowName(1), bucketName(60), bucketName(360), bucketName(2)],
      ['24 h', '7 days', '1 h', 'hour', '6 hours', '2 minutes'],
    );
  });

  it('sums up the success rate: attempts, busy buckets, the lowest and the latest', () => {
    const series: ChartSeries = {
      bucketMinutes: 60,
      buckets: [bucket(9, 4, 4), bucket(10, 0, 0), bucket(11, 4, 1), bucket(12, 2, 2)],
    };
    assert.equal(
      successSummary(series, 24, F),
      'Success rate of attempts per hour, last 24 h: 10 attempts in 3 of 4 hours, 70 % succeeded; lowest 25 % from 11:00, latest 100 % from 12:00.',
    );
    assert.equal(
      successSummary({ bucketMinutes: 360, buckets: [bucket(0, 0, 0)] }, 168, F),
      'Success rate of attempts per 6 hours, last 7 days: no attempts.',
    );
  });

  it('sums up the latency: the slowest p95 and the latest p50 and p95', () => {
    const series: ChartSeries = {
      bucketMinutes: 60,
      buckets: [bucket(9, 3, 3, 40, 900), bucket(10, 2, 2, 30, 80), bucket(11, 0, 0)],
    };
    assert.equal(
      latencySummary(series, 24, F),
      'Attempt latency, p50 and p95, per hour, last 24 h: highest p95 900 ms from 09:00; latest p50 30 ms and p95 80 ms from 10:00.',
    );
  });
});
