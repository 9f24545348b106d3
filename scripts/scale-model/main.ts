import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { recordRun, reportRecorded, runLines, utcMinute, type Run } from '../bench/benchmarks-file.ts';
import { commandLine, currentCommit, describeMachine } from '../bench/machine.ts';
import { renderScaleModel } from './report.ts';
import { runScenario } from './run-scenario.ts';
import { FULL_DEAD_LETTERS, FULL_PUBLISH_MINUTES, scenarios } from './scenarios.ts';
import { storedResults, storeResult, type StoredResult } from './stored-results.ts';

/**
 * `npm run scale-model [-- --quick] [-- --only=spread,hanging] [-- --minutes=10] [-- --dead-letters=1000000] [-- --env=NAME=VALUE] [-- --render]`:
 * every scenario on its own model,
 * one after another; prints each as it ends. At full size (the default minutes and dead letters)
 * each scenario is recorded as it ends (stored-results.ts), and the scale-model area of
 * BENCHMARKS.md is rendered from every scenario's last full-size run, so `--only` runs add up to
 * the whole; a smaller run, and the quick run (CI's), record nothing. `--render` runs no
 * scenario: it renders the area again from the stored runs (after one is added or removed by hand).
 * The npm script's Node flags are for speed only (a larger young generation, the cheaper async
 * context): the figures are the same without them (docs/aws.md, "Scale model").
 */
const quick = process.argv.includes('--quick');
const renderOnly = process.argv.includes('--render');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
/** A `--name=N` option: a positive number, or `fallback` when absent. */
function numberOption(name: string, fallback: number): number {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = raw === undefined ? fallback : Number(raw);
  if (!(value > 0)) {
    console.error(`--${name} must be a positive number, not '${raw}'`);
    process.exit(2);
  }
  return value;
}
// The steady-load scenarios' publishing time in simulated minutes (the issue's 10 by default),
// and the bulk replay's dead letters (1,000,000): a full-size run takes hours on a small machine.
const publishMinutes = numberOption('minutes', FULL_PUBLISH_MINUTES);
const deadLetters = numberOption('dead-letters', FULL_DEAD_LETTERS);
/**
 * `--env=NAME=VALUE`, repeatable: a deployment setting (a function's environment variable) for
 * every chosen scenario, on top of its own, to see what a setting moves; such a run records nothing.
 */
const envOverrides = Object.fromEntries(
  process.argv
    .filter((a) => a.startsWith('--env='))
    .map((a) => {
      const [, name, value] = /^--env=([A-Z][A-Z0-9_]*)=(.*)$/.exec(a) ?? [];
      if (name === undefined) {
        console.error(`--env takes NAME=VALUE with an upper-case variable name, not '${a.slice('--env='.length)}'`);
        process.exit(2);
      }
      return [name, value!];
    }),
);
const overridden = Object.keys(envOverrides).length > 0;
const fullSize = !quick && !overridden && publishMinutes === FULL_PUBLISH_MINUTES && deadLetters === FULL_DEAD_LETTERS;
// Taken before the first scenario: a commit made while a long run goes on is not the code it ran.
const commit = currentCommit();
const runOf = (): Run => ({
  date: utcMinute(),
  commit,
  command: commandLine('scale-model'),
  machine: describeMachine(),
});
const chosen = scenarios(quick ? 'quick' : 'full', publishMinutes, deadLetters)
  .filter((s) => !renderOnly && (!only || only.includes(s.key)))
  .map((s) => (overridden ? { ...s, env: { ...s.env, ...envOverrides } } : s));
if (only && !renderOnly && chosen.length !== only.length) {
  console.error(
    `unknown scenario in --only: the scenarios are ${scenarios('full')
      .map((s) => s.key)
      .join(', ')}`,
  );
  process.exit(2);
}
const thisRun: StoredResult[] = [];
for (const scenario of chosen) {
  const result = await runScenario(scenario);
  thisRun.push({ run: runOf(), result });
  if (fullSize) storeResult(thisRun.at(-1)!);
  // Every figure of the run, for a look past the report: DynamoDB's use by caller and by minute among them.
  const details = join(tmpdir(), 'hookline-scale-model', `${scenario.key}.json`);
  mkdirSync(dirname(details), { recursive: true });
  writeFileSync(details, JSON.stringify({ ...result, samples: undefined }, null, 1));
  console.log(
    `[scale-model] ${scenario.key}: ${result.meanDeliveriesPerSecond.toFixed(0)}/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, ` +
      `${result.undelivered} not delivered (${result.undeliveredBy.deadLettered} dead letters, ${result.undeliveredBy.lost} lost), ${result.duplicates} duplicates, wall ${result.wallSeconds.toFixed(0)} s; details in ${details}`,
  );
}
const run = runOf();
// This run's own rows, printed; a run that records nothing leaves benchmarks/ as it is (its chart goes to the temporary directory).
if (!renderOnly)
  console.log(
    `\n${runLines(run).join('\n')}\n\n${renderScaleModel(thisRun, quick ? 'quick' : fullSize ? 'full' : 'smaller', join(tmpdir(), 'hookline-scale-model'))}\n`,
  );
if (fullSize) {
  const all = scenarios('full').map((s) => s.key);
  const markdown = renderScaleModel(storedResults(all), 'full', undefined, all);
  reportRecorded(recordRun(run, [{ key: 'scale-model', markdown }]));
}
const results = thisRun.map((s) => s.result);
// A scenario that lost an event fails the run (CI's quick run among them). The exit is explicit:
// a handler's leftover handle (a keep-alive agent, an unreffed timer) must not keep a finished
// model alive.
// A scenario whose receivers all answer must deliver every event; one with failing receivers may
// leave events dead-lettered or still retrying, never without a trace.
const lost = results.filter((r) => r.undeliveredBy.lost > 0 || (!r.scenario.failingReceivers && r.undelivered > 0));
for (const r of lost)
  console.error(
    `[scale-model] ${r.scenario.key}: ${r.undelivered} accepted events not delivered, ${r.undeliveredBy.lost} of them lost`,
  );
// A rate-limited subscription never passes the rate gate's bound (L + ceil(L/10)) in any 1 s
// window, and at full size drains at 90 % of its limit or more: single publishes, batches and
// replays alike. A quick run's 20/s over 20 s swings a few points with the phase at which
// publishing starts (docs/aws.md, "What the model found"), so there the rate is reported only.
const offRate = results.filter((r) => {
  const f = r.rateLimit;
  return f && ((!quick && f.drainRate < 0.9 * f.limit) || f.mostInOneSecond > f.limit + Math.ceil(f.limit / 10));
});
for (const r of offRate)
  console.error(
    `[scale-model] ${r.scenario.key}: drained at ${r.rateLimit!.drainRate.toFixed(1)}/s with at most ${r.rateLimit!.mostInOneSecond} in 1 s, for a limit of ${r.rateLimit!.limit}/s`,
  );
process.exit(lost.length > 0 || offRate.length > 0 ? 1 : 0);
