import { type Chart, writeCharts } from '../bench/charts.ts';
import { table } from '../bench/benchmarks-file.ts';
import { LATENCY } from './model.ts';
import type { ScenarioResult } from './run-scenario.ts';
import type { StoredResult } from './stored-results.ts';
import { renderRequests } from './requests-report.ts';
import { n, s1 } from './figures.ts';

/** The DynamoDB limits as the report states them (sim/dynamodb/ holds the figures and their sources). */
const DYNAMO_LIMITS_SAID =
  'DynamoDB 1,000 WCU and 3,000 RCU a second per partition key value (GSIs alike), an on-demand table ceiling from its warm throughput, the SDK’s 3 tries with backoff before a throttle surfaces';

/** p50 / p99 of all; with endpoints that hang, the others' too, and theirs past the first minute when the run measured it. */
function latencyCell(r: ScenarioResult): string {
  const all = `${n(r.latencyP50Ms)} / ${n(r.latencyP99Ms)}`;
  if (r.healthyP99Ms === undefined) return all;
  const settled =
    r.settledHealthyP99Ms !== undefined
      ? `; after the first minute ${n(r.settledHealthyP50Ms!)} / ${n(r.settledHealthyP99Ms)}`
      : '';
  return `${all} (others ${n(r.healthyP50Ms!)} / ${n(r.healthyP99Ms)}${settled})`;
}

/** The sender's peak batches against its caps: the main lane's plus the slow lane's (runs recorded before: the main lane's). */
function senderBatchesCell(r: ScenarioResult): string {
  const caps = r.senderCaps
    ? `${n(r.senderCaps.main)} + ${n(r.senderCaps.slow)}`
    : n(r.scenario.senderMaxConcurrency ?? 20);
  return `${n(r.senderPeakConcurrency)} of ${caps}`;
}

function throttleCell(r: ScenarioResult): string {
  const tables = Object.entries(r.dynamodb.tables)
    .filter(([, t]) => t.throttledRequests > 0 || t.throttleEvents > 0)
    .map(([name, t]) => `${name.replace(/^hookline-/, '')} ${n(t.throttleEvents)} (${n(t.throttledRequests)} failed)`);
  return tables.length ? tables.join('; ') : '0';
}

/** What the undelivered came to: dead letters, still on their way (retrying), lost. */
function notDelivered(r: ScenarioResult): string {
  if (r.undelivered === 0) return '';
  const { deadLettered, onItsWay, lost } = r.undeliveredBy;
  return ` (${n(deadLettered)} dead letters, ${n(onItsWay)} still retrying, ${n(lost)} lost)`;
}

function hotPartitions(results: readonly ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const r of results)
    for (const [name, t] of Object.entries(r.dynamodb.tables))
      for (const p of t.topThrottledPartitions ?? [])
        lines.push(`- ${r.scenario.key}: ${name} partition \`${p.key}\`: ${n(p.throttles)} refused tries`);
  return lines;
}

/** Which run a row comes from: its date, commit and the command's options. */
function runCell(run: StoredResult['run']): string {
  const options = run.command.replace(/^npm run scale-model( -- )?/, '');
  return `${run.date.replace(/ UTC$/, '')}, ${run.commit}${options ? `, \`${options}\`` : ''}`;
}

/**
 * The scale model's section of BENCHMARKS.md: one row per scenario, each from its own run, the
 * limits it enforced, and a chart of delivered/s. `expected`: every scenario's key, for the line
 * naming those not recorded yet.
 */
export function renderScaleModel(
  stored: readonly StoredResult[],
  /** full: the issue's size; smaller: a run with fewer minutes or dead letters; quick: CI's. */
  scale: 'full' | 'smaller' | 'quick',
  /** Where the chart goes: benchmarks/ (the default) for a recorded run, elsewhere for one that records nothing. */
  chartDir?: string,
  expected: readonly string[] = [],
): string {
  const results = stored.map((s) => s.result);
  const missing = expected.filter((key) => !results.some((r) => r.scenario.key === key));
  const charted = results.filter((r) => r.samples.length > 0);
  const rows = stored.map(({ run, result: r }) => [
    r.scenario.title,
    `${n(r.scenario.publishSeconds)} + ${n(r.scenario.drainSeconds)}`,
    s1(r.meanDeliveriesPerSecond),
    `${n(r.published)} / ${n(r.delivered)} / ${n(r.undelivered)}${notDelivered(r)}${r.duplicates ? `; ${n(r.duplicates)} duplicates` : ''}`,
    latencyCell(r),
    `${s1(r.queueAgePeakSeconds)}${r.slowLaneAgePeakSeconds ? ` (slow lane ${s1(r.slowLaneAgePeakSeconds)})` : ''}`,
    `${n(r.inFlightPeak)}${r.overLimitRefusals ? ` (${n(r.overLimitRefusals)} OverLimit)` : ''}`,
    senderBatchesCell(r),
    throttleCell(r),
    `${r.sweeper.runs} runs, longest ${s1(r.sweeper.longestRunSeconds)} s, lag ≤ ${s1(r.sweeper.lagPeakSeconds)} s, ${n(r.sweeper.requeued)} requeued`,
    `${n(r.wallSeconds)} s`,
    runCell(run),
  ]);
  const chart: Chart = {
    file: 'scale-model-delivered',
    title: 'Scale model: deliveries a second over simulated time (10 s means)',
    kind: 'line',
    yAxis: 'deliveries / s',
    categories: buckets(charted).map((b) => `${b} s`),
    series: charted.map((r) => ({ name: r.scenario.key, values: perBucket(r) })),
  };
  const replays = results.filter((r) => r.replay);
  const limited = results.filter((r) => r.rateLimit);
  const errors = results.flatMap((r) =>
    Object.entries(r.handlerErrors).map(([m, c]) => `- ${r.scenario.key}: "${m}" × ${n(c)}`),
  );
  return [
    `### Scale model${scale === 'quick' ? ' (quick run)' : scale === 'smaller' ? ' (smaller run)' : ''}`,
    '',
    'The real handlers and app code (API publish and subscription routes, the fan-out, sender, sweeper, replay,',
    'notifier), built per execution environment by the same `buildDeps` the Lambda entries call,',
    'on real SDK clients whose calls a simulated DynamoDB, SQS and Lambda answer on a simulated',
    'clock (`scripts/scale-model/`). Only the clients below the adapters and the HTTP sender are',
    'swapped. Latencies: DynamoDB ' +
      `${LATENCY.dynamodbKeyMs} ms a key operation, ${LATENCY.dynamodbQueryMs} ms a query; SQS ${LATENCY.sqsMs} ms a call; ` +
      `Lambda INIT ${LATENCY.lambdaInitMs} ms; receivers 40 to 200 ms. Limits enforced: ${DYNAMO_LIMITS_SAID}; SQS 120,000 in flight per queue, ` +
      'delays to 900 s, 10 per batch; Lambda 1,000 concurrent executions per account, an SQS mapping from 5 batches adding 300 a minute, ' +
      "filling a batch for its batching window; the events table's stream (4 shards, a record readable 100 ms after its write, each shard read 4 times a second, one batch in flight per shard) feeding the fan-out.",
    '',
    'Where endpoints hang, the latency cell gives the others’ figures too, and theirs for events published after the first minute:',
    'a run starts cold (mappings at 5 batches, caches empty, every hanging endpoint starting to hang at once). Sender batches are',
    'the peak against the main lane’s cap plus the slow lane’s; the queue age, the delivery queue’s, and the slow lane’s beside it.',
    ...(scale === 'full'
      ? [
          '',
          'Each row is its scenario’s last run at full size (10 simulated minutes of publishing, 1,000,000 dead',
          'letters replayed), recorded as it ended: `npm run scale-model -- --only=<scenario>` records one, and the',
          'date and commit above are those of the run that last rendered this section.',
        ]
      : []),
    '',
    table(
      [
        'scenario',
        'simulated s (publishing + drain)',
        'delivered/s while publishing',
        'accepted / delivered / not delivered',
        'latency p50 / p99 ms',
        'queue age peak s',
        'in flight peak',
        'sender batches peak',
        'DynamoDB throttles (refused tries)',
        'sweeper',
        'wall time',
        'run (UTC, commit, options)',
      ],
      rows,
    ),
    '',
    ...renderRequests(results),
    ...(missing.length ? [`Not recorded at full size yet: ${missing.join(', ')}.`, ''] : []),
    ...(charted.length < results.length
      ? [
          `Not in the chart (recorded without per-second samples): ${results
            .filter((r) => r.samples.length === 0)
            .map((r) => r.scenario.key)
            .join(', ')}.`,
          '',
        ]
      : []),
    ...replays.flatMap((r) => [
      `Bulk replay (${r.scenario.key}): ${n(r.replay!.replayed)} of ${n(r.scenario.replayDeadLetters ?? 0)} dead letters delivered` +
        (r.replay!.finishedAfterSeconds !== undefined
          ? ` within ${s1(r.replay!.finishedAfterSeconds)} s of the request`
          : ' by the end of the run') +
        ` (${r.scenario.replayWindowSeconds === 0 ? 'all due at once' : `spread over a ${n(r.scenario.replayWindowSeconds ?? 300)} s window`}; ` +
        "the row's latency counts from each dead letter's first publish, before the run).",
      '',
    ]),
    ...limited.map(
      (r) =>
        `Rate limit (${r.scenario.key}): ${r.rateLimit!.limit}/s; POSTs began at ${r.rateLimit!.drainRate.toFixed(1)}/s from the first to the last ` +
        `(${((100 * r.rateLimit!.drainRate) / r.rateLimit!.limit).toFixed(0)} % of the limit), at most ${r.rateLimit!.mostInOneSecond} in any 1 s window ` +
        `(the bound: ${r.rateLimit!.limit + Math.ceil(r.rateLimit!.limit / 10)}).\n`,
    ),
    ...(hotPartitions(results).length ? ['Hottest throttled partitions:', '', ...hotPartitions(results), ''] : []),
    ...(errors.length ? ['Errors the handlers logged:', '', ...errors, ''] : []),
    writeCharts([chart], chartDir),
  ].join('\n');
}

const BUCKET_SECONDS = 10;

function buckets(results: readonly ScenarioResult[]): number[] {
  const longest = Math.max(0, ...results.map((r) => r.samples.length));
  return Array.from({ length: Math.ceil(longest / BUCKET_SECONDS) }, (_, i) => i * BUCKET_SECONDS);
}

function perBucket(r: ScenarioResult): number[] {
  const out: number[] = [];
  for (let i = 0; i < r.samples.length; i += BUCKET_SECONDS) {
    const slice = r.samples.slice(i, i + BUCKET_SECONDS);
    out.push(Math.round(slice.reduce((a, s) => a + s.delivered, 0) / slice.length));
  }
  return out;
}
