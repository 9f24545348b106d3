import { recordRun, reportRecorded, runLines, utcMinute, type Run } from '../bench/benchmarks-file.ts';
import { commandLine, currentCommit, describeMachine } from '../bench/machine.ts';
import { FULL_CHAOS, SMOKE_CHAOS } from './presets.ts';
import { renderChaos } from './report.ts';
import { runChaos } from './run-chaos.ts';

/** `npm run chaos [-- --quick]`: the reliability harness; prints the report and records it as the chaos area of BENCHMARKS.md. */
const quick = process.argv.includes('--quick');
const options = quick ? SMOKE_CHAOS : FULL_CHAOS;
const started = Date.now();
const report = await runChaos({
  ...options,
  log: (line) => console.log(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`),
});

const markdown = renderChaos(report, options);
const run: Run = {
  date: utcMinute(),
  commit: currentCommit(),
  command: commandLine('chaos'),
  machine: describeMachine(),
};
console.log(`\n${runLines(run).join('\n')}\n\n${markdown}\n`);
reportRecorded(recordRun(run, [{ key: 'chaos', markdown }]));
if (report.lost > 0 || report.accepted < report.events) process.exitCode = 1;
