import { ENV_DEFAULTS } from '#config/topology.ts';
import { ENDPOINT_VARIABLES, type Service } from './emulators.ts';
import { startRuntime } from './runtime.ts';

/** `npm start`: the whole system on this machine, until SIGINT/SIGTERM. */
const dataDir = process.env.HOOKLINE_DATA_DIR ?? '.data';
const port = Number(process.env.PORT ?? 3000);
const allowPrivate = process.env.HOOKLINE_ALLOW_PRIVATE_TARGETS !== '0';
/** Local only: the sweeper's period in ms (default: its cloud schedule); tests and chaos runs shorten it. */
const sweepIntervalMs = process.env.HOOKLINE_SWEEP_INTERVAL_MS ? Number(process.env.HOOKLINE_SWEEP_INTERVAL_MS) : undefined;

const runtime = await startRuntime({
  dataDir,
  port,
  allowPrivateTargets: allowPrivate,
  ...(sweepIntervalMs && sweepIntervalMs > 0 ? { scheduleIntervalMs: { sweeper: sweepIntervalMs } } : {}),
  // Every tunable handler setting of topology.ts (retry policy, timeouts, replay window, rate
  // limit, auto-pause, retention, archive batch size) can be set for the local run as on AWS.
  env: Object.fromEntries(
    Object.keys(ENV_DEFAULTS)
      .filter((k) => k.startsWith('HOOKLINE_') && !['HOOKLINE_ADMIN_KEY_SECRET_ID', 'HOOKLINE_ALLOW_PRIVATE_TARGETS'].includes(k))
      .filter((k) => process.env[k] !== undefined)
      .map((k) => [k, process.env[k]!]),
  ),
  logLevel: (process.env.HOOKLINE_LOG_LEVEL as 'INFO' | undefined) ?? 'WARN',
});

/** Embedded emulator, or the variable that pointed the service elsewhere. */
const via = (service: Service, emulator: string) => (runtime.embedded[service] ? `(${emulator}, embedded)` : `(${ENDPOINT_VARIABLES[service]})`);
console.log(`Hookline is running locally.
  API        ${runtime.url}   (try: curl ${runtime.url}/health)
  Admin key  ${runtime.adminKey}
  Data       ${runtime.dataDir}
  DynamoDB   ${runtime.endpoints.dynamodb} ${via('dynamodb', 'dynalite')}
  SQS        ${runtime.endpoints.sqs} ${via('sqs', 'fauxqs')}
  S3         ${runtime.endpoints.s3} ${via('s3', 'fauxqs')}
  Names      ${runtime.resourcePrefix ? `${runtime.resourcePrefix}-hookline-… (HOOKLINE_RESOURCE_PREFIX)` : 'hookline-… (no HOOKLINE_RESOURCE_PREFIX)'}
  Lambda     ${runtime.endpoints.lambda} (Invoke API for the replay and archiver functions; try: npx hookline --help)
  Private targets ${allowPrivate ? 'allowed (HOOKLINE_ALLOW_PRIVATE_TARGETS=1)' : 'refused'}
Press Ctrl+C to stop.`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping (in-flight batches finish, nothing is lost)…`);
    runtime.stop().then(
      () => {
        console.log('stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error('error while stopping:', error);
        process.exit(1);
      },
    );
  });
}
