import type { Chart } from './charts.ts';
import type { CostRun } from './cost.ts';
import { endsDelivered, type CostScenario } from './scenario.ts';
import type { LatencyRun } from './end-to-end.ts';
import { alternativesPerMillion, costRows } from './cost-report.ts';
import type { RetryTimingRun } from './retry-timing.ts';
import { median, percentile } from './stats.ts';

const PUBLISH_LABEL: Record<CostScenario['publish'], string> = { http: 'HTTP', 'http-batch': 'HTTP batch', sqs: 'SQS' };
const outcomeLabel = (s: CostScenario) =>
  !endsDelivered(s) ? `${s.finalStatus} → DLQ` : s.failuresFirst ? `${s.failuresFirst} fails first` : 'first try';

/** Cost per million deliveries, measured, beside what the same traffic costs on the alternatives. */
export function costChart(runs: readonly CostRun[][]): Chart {
  const rows = costRows(runs);
  return {
    file: 'cost-per-million',
    title: 'AWS cost per million deliveries (USD, us-east-1 list prices)',
    // Short labels: the full scenario names do not fit under their bars (the tables carry them).
    categories: rows.map(({ scenario: s }) => `fan-out ${s.fanOut}, ${PUBLISH_LABEL[s.publish]}, ${outcomeLabel(s)}`),
    yAxis: 'USD per million deliveries',
    series: [
      { name: 'Hookline (measured)', values: rows.map((r) => r.p.dollarsPerMillion.total) },
      { name: 'EventBridge API destinations', values: rows.map((r) => alternativesPerMillion(r).eventBridge) },
      { name: 'straightforward design (modelled)', values: rows.map((r) => alternativesPerMillion(r).straightforward) },
    ],
  };
}

/** Publish-to-receiver latency percentiles at each offered rate (medians over runs). */
export function latencyChart(latency: readonly LatencyRun[][]): Chart {
  const p = (runs: readonly LatencyRun[], f: (r: LatencyRun) => number) => median(runs.map(f));
  return {
    file: 'latency',
    title: 'Publish-to-receiver latency, local runtime (ms)',
    categories: latency.map((runs) => `${runs[0]!.offeredPerSecond} events/s offered`),
    yAxis: 'ms',
    series: (['p50', 'p95', 'p99'] as const).map((q) => ({
      name: q,
      values: latency.map((runs) => p(runs, (r) => r[q])),
    })),
  };
}

/** How late retries start after their scheduled time (never early). */
export function retryChart(runs: readonly RetryTimingRun[]): Chart {
  const late = runs.flatMap((r) => r.lateness);
  return {
    file: 'retry-lateness',
    title: 'Retry start after its scheduled time (ms)',
    categories: ['p50', 'p95', 'max'],
    yAxis: 'ms late',
    series: [
      { name: `${late.length} retries`, values: [percentile(late, 50), percentile(late, 95), Math.max(...late)] },
    ],
  };
}
