import { ENV_DEFAULTS } from '#config/topology.ts';
import { AdminKeyError, adminKeyFromEnvironment, checkConfiguredAdminKey } from './admin-key.ts';
import { banner } from './banner.ts';
import { DataLayoutError } from './data-layout.ts';
import { PortError, portsFromEnvironment, type LocalPorts } from './ports.ts';
import { startRuntime, type Runtime } from './runtime.ts';

/** `npm start`: the whole system on this machine, until SIGINT/SIGTERM. */
const dataDir = process.env.HOOKLINE_DATA_DIR ?? '.data';
const allowPrivate = process.env.HOOKLINE_ALLOW_PRIVATE_TARGETS !== '0';
/** Local only: the sweeper's and the notifier's periods in ms (default: their cloud schedules); tests and chaos runs shorten them. */
const intervalMs = (name: string) => (Number(process.env[name]) > 0 ? Number(process.env[name]) : undefined);
const sweepIntervalMs = intervalMs('HOOKLINE_SWEEP_INTERVAL_MS');
const noticeIntervalMs = intervalMs('HOOKLINE_NOTICE_INTERVAL_MS');

/** A refusal the operator can act on (a short key, a taken port, an older data folder): its message, no stack trace. */
function refuse(error: unknown): never {
  if (!(error instanceof AdminKeyError) && !(error instanceof PortError) && !(error instanceof DataLayoutError))
    throw error;
  console.error(`hookline: ${error.message}`);
  process.exit(1);
}

// A key too short to be a secret, or a port setting that cannot work, is refused before anything starts.
let ports: LocalPorts;
try {
  checkConfiguredAdminKey(dataDir, process.env);
  // PORT (default 3000) and the listeners after it: stable, so queue URLs and endpoints survive a restart.
  ports = portsFromEnvironment(process.env);
} catch (error) {
  refuse(error);
}

const runtime: Runtime = await startRuntime({
  dataDir,
  port: ports.api,
  ports: { dynamodb: ports.dynamodb, sqs: ports.sqs, lambda: ports.lambda },
  allowPrivateTargets: allowPrivate,
  scheduleIntervalMs: {
    ...(sweepIntervalMs ? { sweeper: sweepIntervalMs } : {}),
    ...(noticeIntervalMs ? { notifier: noticeIntervalMs } : {}),
  },
  // Every tunable handler setting of topology.ts (retry policy, timeouts, replay window, rate
  // limit, auto-pause, retention, archive batch size) can be set for the local run as on AWS.
  env: Object.fromEntries(
    Object.keys(ENV_DEFAULTS)
      .filter(
        (k) =>
          k.startsWith('HOOKLINE_') && !['HOOKLINE_ADMIN_KEY_SECRET_ID', 'HOOKLINE_ALLOW_PRIVATE_TARGETS'].includes(k),
      )
      .filter((k) => process.env[k] !== undefined)
      .map((k) => [k, process.env[k]!]),
  ),
  logLevel: (process.env.HOOKLINE_LOG_LEVEL as 'INFO' | undefined) ?? 'INFO', // INFO: one line per delivery attempt (docs/operations.md, configuration)
}).catch(refuse);

// Handlers first: whoever reads the banner may stop the runtime at once (a test, a script), and
// a SIGTERM before they exist would kill the process without a clean stop.
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

console.log(banner(runtime, { adminKeyFromEnvironment: adminKeyFromEnvironment(process.env), allowPrivate }));
