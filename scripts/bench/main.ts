import { loadavg } from 'node:os';
import { recordRun, reportRecorded, runLines, utcMinute, type Measured, type Run } from './benchmarks-file.ts';
import { costChart, latencyChart, retryChart } from './bench-charts.ts';
import { writeCharts } from './charts.ts';
import { bareNodeStartMs, measureColdStarts } from './cold-start.ts';
import { measureBackground } from './background.ts';
import { measureCost } from './cost.ts';
import { profileShares } from './cpu-profile.ts';
import { measureCallFloor } from './call-floor.ts';
import { measureLatency, measureThroughput } from './end-to-end.ts';
import { measureNotices, renderNotices } from './notices.ts';
import { commandLine, currentCommit, describeMachine } from './machine.ts';
import { measureOverhead } from './overhead.ts';
import { FULL_PLAN, QUICK_PLAN } from './plan.ts';
import { NotMeasured } from './bench-stack.ts';
import { renderCost, type Unmeasured } from './cost-report.ts';
import { renderColdStart, renderEndToEnd, renderOverhead, renderRetryTiming } from './report.ts';
import { TIMING_POLICY, measureRetryTiming } from './retry-timing.ts';
import { measureRateLimit, renderRateLimit } from './rate-limit.ts';
import { measureRouting, renderRouting } from './routing.ts';
import { repeat } from './stats.ts';

/**
 * `npm run bench [-- --quick] [-- --only=cost,overhead,e2e,retry,rate-limit,routing,cold,notices]`: measures, prints, and
 * replaces the sections of the areas it measured in BENCHMARKS.md (the `--only=` names are the
 * areas' keys, areas.ts), with SVG charts in benchmarks/ (ECharts, rendered server-side).
 * Loopback only; every loop is bounded in count and time.
 */
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (name: string) => !only || only.includes(name);
const plan = quick ? QUICK_PLAN : FULL_PLAN;
const started = Date.now();
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
const loadAtStart = load();
const progress = (what: string) =>
  console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${what}`);
const sections: Measured[] = [];

if (wanted('cost')) {
  const results = [];
  const unmeasured: Unmeasured[] = [];
  for (const scenario of plan.cost) {
    progress(`cost: ${scenario.name}`);
    try {
      results.push(await repeat(plan.runs, () => measureCost(scenario)));
    } catch (error) {
      // A scenario this build cannot run (a route not there yet) becomes a "not measured" row.
      if (!(error instanceof NotMeasured)) throw error;
      progress(`cost: not measured: ${error.message}`);
      unmeasured.push({ scenario, reason: error.message });
    }
  }
  progress('cost: the archiver, sweeper, replay and notifier runs');
  const background = await measureBackground(plan.backgroundEvents);
  sections.push({
    key: 'cost',
    markdown: `${renderCost(results, unmeasured, background)}\n\n${writeCharts([costChart(results)])}`,
  });
}
if (wanted('overhead')) {
  progress('engine overhead');
  sections.push({
    key: 'overhead',
    markdown: renderOverhead(await repeat(plan.runs, (run) => measureOverhead(plan.overheadCount, 32, run))),
  });
}
if (wanted('e2e')) {
  progress('end to end: throughput');
  const fo1 = await repeat(plan.runs, () => measureThroughput(plan.throughputDeliveries, 1));
  const fo10 = await repeat(plan.runs, () => measureThroughput(plan.throughputDeliveries, 10));
  const wide = await repeat(plan.runs, () => measureThroughput(plan.throughputDeliveries, 1, 20));
  progress('end to end: the same AWS calls alone');
  const floor = await repeat(plan.runs, () => measureCallFloor(plan.throughputDeliveries));
  const latency = [];
  for (const rate of plan.latencyRates) {
    progress(`end to end: latency at ${rate}/s`);
    latency.push(await repeat(plan.runs, () => measureLatency(rate, plan.latencySeconds)));
  }
  progress('end to end: CPU profile');
  const profile = await profileShares(() => measureThroughput(plan.throughputDeliveries, 1));
  sections.push({
    key: 'e2e',
    markdown: `${renderEndToEnd(fo1, fo10, wide, floor, latency, profile)}\n\n${writeCharts([latencyChart(latency)])}`,
  });
}
if (wanted('retry')) {
  progress('retry timing');
  const retryRuns = await repeat(plan.runs, () => measureRetryTiming(plan.retryDeliveries, plan.retryFailures));
  sections.push({
    key: 'retry',
    markdown: `${renderRetryTiming(retryRuns, TIMING_POLICY)}\n\n${writeCharts([retryChart(retryRuns)])}`,
  });
}
if (wanted('notices')) {
  progress('failure notices: bookkeeping writes under a failing endpoint');
  sections.push({ key: 'notices', markdown: renderNotices([await measureNotices(plan.noticeDeliveries)]) });
}
if (wanted('rate-limit')) {
  progress(
    `rate limit: a burst of ${plan.rateLimitEvents} events at 20/s, in batches, by single publishes, then as a bulk replay`,
  );
  const runs = [
    await measureRateLimit(plan.rateLimitEvents, 20, 'batch', { withUnlimited: true }),
    await measureRateLimit(plan.rateLimitEvents, 20, 'single', { withUnlimited: false }),
    await measureRateLimit(plan.rateLimitEvents, 20, 'replay', { withUnlimited: false }),
  ];
  sections.push({ key: 'rate-limit', markdown: renderRateLimit(runs) });
}
if (wanted('routing')) {
  progress(`routing: ${plan.routing.subscriptions} subscriptions over ${plan.routing.tenants} tenants`);
  sections.push({ key: 'routing', markdown: renderRouting(await measureRouting(plan.routing)) });
}
if (wanted('cold')) {
  progress('cold start');
  sections.push({
    key: 'cold',
    markdown: renderColdStart(
      await measureColdStarts(plan.coldStartRuns),
      await bareNodeStartMs(plan.coldStartRuns),
      plan.coldStartRuns,
    ),
  });
}

const run: Run = {
  date: utcMinute(),
  commit: currentCommit(),
  command: commandLine('bench'),
  commandDetail: `(${quick ? 'quick: one run per figure, small counts' : `${plan.runs} runs per figure, medians`}), ${((Date.now() - started) / 60_000).toFixed(1)} minutes`,
  machine: describeMachine(),
  notes: [
    `Load average (1 / 5 / 15 min) at start ${loadAtStart}, at end ${load()}: anything else running on this machine slows every figure alike.`,
  ],
};
console.log(`\n${[runLines(run).join('\n'), ...sections.map((s) => s.markdown)].join('\n\n')}\n`);
if (sections.length) reportRecorded(recordRun(run, sections));
else {
  console.error(
    `nothing measured: --only=${only?.join(',')} names no area (cost, overhead, e2e, retry, notices, rate-limit, routing, cold)`,
  );
  process.exitCode = 1;
}
