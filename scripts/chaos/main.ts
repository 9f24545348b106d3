import { recordRun, reportRecorded, runLines, utcMinute, type Run } from '../bench/benchmarks-file.ts';
import { commandLine, currentCommit, describeMachine } from '../bench/machine.ts';
import { FULL_CHAOS, SMOKE_CHAOS } from './presets.ts';
import { renderChaos } from './report.ts';
import { runChaos } from './run-chaos.ts';
import { startDynamoDbLocal } from '../dynamodb-local.ts';

/**
 * `npm run chaos [-- --quick] [-- --dynamodb-local]`: the reliability harness; prints the report
 * and records it as the chaos area of BENCHMARKS.md, or with `--dynamodb-local` (the runtime on
 * Amazon's DynamoDB Local instead of the embedded dynalite) as the area of its own beside it.
 */
const quick = process.argv.includes('--quick');
const onDynamoDbLocal = process.argv.includes('--dynamodb-local');
const started = Date.now();
const log = (line: string) =>
  console.log(`[chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const dynamoDbLocal = onDynamoDbLocal ? await startDynamoDbLocal() : undefined;
if (dynamoDbLocal) log(`DynamoDB Local at ${dynamoDbLocal.endpoint}`);
const options = {
  ...(quick ? SMOKE_CHAOS : FULL_CHAOS),
  ...(dynamoDbLocal ? { dynamodbEndpoint: dynamoDbLocal.endpoint } : {}),
};
const report = await runChaos({ ...options, log }).finally(() => dynamoDbLocal?.stop());

const markdown = renderChaos(report, options);
const run: Run = {
  date: utcMinute(),
  commit: currentCommit(),
  command: commandLine('chaos'),
  machine: describeMachine(),
};
console.log(`\n${runLines(run).join('\n')}\n\n${markdown}\n`);
reportRecorded(recordRun(run, [{ key: onDynamoDbLocal ? 'chaos-dynamodb-local' : 'chaos', markdown }]));
if (report.lost > 0 || report.accepted < report.events) process.exitCode = 1;
