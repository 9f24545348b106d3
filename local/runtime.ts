import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbApiKeyStore } from '#adapters/dynamodb-api-key-store.ts';
import { DynamoDbPortalSessionStore } from '#adapters/dynamodb-portal-session-store.ts';
import { documentClient } from '#adapters/dynamodb.ts';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { buildDeps, sweepGraceSeconds } from '#adapters/function-deps.ts';
import { loadLocalSecretsKey } from '#adapters/local-key-secret-cipher.ts';
import { sealPlainSecrets } from '#app/secrets/seal-plain-secrets.ts';
import { buildRoutes } from '#app/subscriptions/routing.ts';
import type { Env } from '#config/env.ts';
import {
  BUCKETS,
  consoleUrlOf,
  ENV_DEFAULTS,
  EVENT_SOURCES,
  STREAM_SOURCES,
  localResourceName,
  longestHandlingMs,
  QUEUES,
  SCHEDULES,
  TABLES,
  validResourcePrefix,
  type FunctionKey,
  type QueueKey,
} from '#config/topology.ts';
import type { ScheduledEvent } from 'aws-lambda';
import { createApiHandler } from '#handlers/api/handler.ts';
import { createArchiverHandler } from '#handlers/archiver.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import { inProcessAuthenticator } from '#handlers/api/in-process-auth.ts';
import { bearerGrants } from '#app/credentials/bearer-grants.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { createFanOutHandler } from '#handlers/fan-out.ts';
import { createIngestHandler } from '#handlers/ingest.ts';
import type { Observability } from '#handlers/observability.ts';
import { createReplayHandler } from '#handlers/replay.ts';
import { createSenderHandler } from '#handlers/sender.ts';
import { createNotifierHandler } from '#handlers/notifier.ts';
import { createSweeperHandler } from '#handlers/sweeper.ts';
import { externalEndpoints, reachableQueueUrl, SERVICES, type Emulators, type Service } from './emulators.ts';
import { checkAdminKey } from './admin-key.ts';
import { localDashboardAssets } from './dashboard-assets.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { startLambdaApi, type LambdaApi } from './lambda-api.ts';
import { lambdaContext, type Invoke } from './lambda-context.ts';
import { chooseLogFormat, localLogger, type LogFormat } from './local-logger.ts';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MemoryMetrics } from './memory-metrics.ts';
import { QueuePoller } from './poller.ts';
import { ensureFeedTable, eventsFeed } from './change-feed.ts';
import { ChangeFeedPoller } from './change-feed-poller.ts';
import { recordInserts } from './change-feed-recorder.ts';
import { repairActiveIndex } from './index-repair.ts';
import { listening, resolvePorts, type Listener } from './ports.ts';
import { RUNTIME_FILE_VERSION, type RuntimeFile } from './runtime-file.ts';
import { checkDataLayout } from './data-layout.ts';
import { startEmulatorThread } from './emulator-thread.ts';
import { provision, provisionBuckets, type ProvisionedQueues } from './provision.ts';
import { Schedule } from './scheduler.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import type { Factories } from '#adapters/deps/factory.ts';
import { LOCAL_SECRETS_KEY_ID } from '#adapters/deps/secrets-factories.ts';
import { FileMailbox } from '#adapters/file-mail-catcher.ts';
import { LOCAL_MAIL_FACTORIES } from '#adapters/deps/local-mail-factories.ts';

export interface RuntimeOptions {
  /** Where dynalite and fauxqs keep their data; a restart on the same folder loses nothing. */
  readonly dataDir: string;
  /** HTTP port of the API (default 3000); 0 picks a free one. The other listeners follow it (local/ports.ts). */
  readonly port?: number;
  /** Ports of the other listeners; default PORT+1 (DynamoDB), +2 (SQS and S3), +3 (Invoke API), or all free ones when `port` is 0. */
  readonly ports?: Partial<Record<Exclude<Listener, 'api'>, number>>;
  readonly adminKey?: string;
  /** Let deliveries reach loopback and private addresses (default true locally; never in the cloud). */
  readonly allowPrivateTargets?: boolean;
  /** Extra handler environment, e.g. a short HOOKLINE_DEFAULT_RETRY_POLICY or HOOKLINE_SENDER_TIMEOUT_MS for tests. */
  readonly env?: Readonly<Record<string, string>>;
  /** Interval per scheduled function; defaults to the topology's rate. */
  readonly scheduleIntervalMs?: Partial<Record<FunctionKey, number>>;
  /** Concurrent sender batches; defaults to the event source mapping's maxConcurrency capped for a laptop. */
  readonly senderConcurrency?: number;
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** How log records are printed; default: HOOKLINE_LOG_FORMAT, else pretty lines on a terminal and JSON otherwise. */
  readonly logFormat?: LogFormat;
  /** A logger in place of the one logLevel and logFormat make: the cost bench counts the bytes the handlers log. */
  readonly logger?: Logger;
  /**
   * How long the sender and fan-out may serve a subscription from memory (ms). 0 by default: one
   * process serves every function here, so nothing waits out a cache; the cost benchmark sets
   * Lambda's 5 s to count what AWS reads.
   */
  readonly subscriptionCacheMs?: number;
  /** Wraps each handler as it is wired, e.g. to count and time invocations (benchmarks). */
  readonly wrapHandler?: <E, R>(fn: FunctionKey, handler: Invoke<E, R>) => Invoke<E, R>;
  /** Endpoints to use instead of the embedded emulators; default: AWS_ENDPOINT_URL_DYNAMODB, _SQS, _S3. */
  readonly endpoints?: Partial<Record<Service, string>>;
  /** Prepended to every table, queue and bucket name (`<prefix>-hookline-…`); default: HOOKLINE_RESOURCE_PREFIX, else none. */
  readonly resourcePrefix?: string;
  /** Where notice emails go: this SMTP server (e.g. `smtp://127.0.0.1:1025`); default HOOKLINE_SMTP_URL, else the mail catcher in `<dataDir>/mail`. */
  readonly smtpUrl?: string;
  /**
   * What serves the API, as the stack's `apiType`: `url` (a Function URL: the api checks keys
   * itself) or `http` (API Gateway's HTTP API: the authorizer checks them first). Default:
   * HOOKLINE_API_TYPE, else `url`, the stack's default.
   */
  readonly apiType?: LocalApiType;
}

/** The stack's API entries the local gateway can stand in for (REST differs from `http` only on AWS's side). */
export type LocalApiType = 'url' | 'http';

/** The API entry to run: the option, else HOOKLINE_API_TYPE, else the stack's default; anything else is refused by name. */
export function localApiType(value: string | undefined): LocalApiType {
  if (value === undefined || value === '') return 'url';
  if (value === 'url' || value === 'http') return value;
  throw new InvalidEnvironmentError('HOOKLINE_API_TYPE', `must be 'url' or 'http', not '${value}'`);
}

export interface Runtime {
  readonly url: string;
  /** The web dashboard: the operator console, and where portal links open (`<url>/dashboard`). */
  readonly consoleUrl: string;
  readonly adminKey: string;
  readonly dataDir: string;
  readonly metrics: MemoryMetrics;
  readonly queues: ProvisionedQueues;
  readonly clients: { readonly dynamodb: DynamoDBClient; readonly sqs: SQSClient; readonly s3: S3Client };
  /** Where each service is reached (S3 path-style); `lambda` is the local Invoke API the CLI uses for the replay and archiver functions. */
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string; readonly s3: string; readonly lambda: string };
  /** Which services the embedded emulators serve (dynalite; fauxqs), as opposed to an endpoint given from outside. */
  readonly embedded: Readonly<Record<Service, boolean>>;
  /** The prefix of every local resource name ('' for none). */
  readonly resourcePrefix: string;
  /** Each function's environment, exactly as its handler reads it. */
  readonly env: Env;
  /** The mail catcher's folder (`hookline mail list` reads it); unused when notices go to an SMTP server. */
  readonly mailDir: string;
  /** Runs a scheduled function now instead of waiting for its timer. */
  runSchedule(fn: FunctionKey): Promise<void>;
  /** Invokes a directly invocable function (replay, archiver, sweeper) with a payload, as `aws lambda invoke` would. */
  invoke(fn: FunctionKey, payload: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** Dummy credentials for the embedded emulators only; an external endpoint gets the SDK's own chain. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
/**
 * Concurrent sender batches locally: the event source mapping's maxConcurrency (20) would crowd
 * a laptop, and 4 left a rate-limited backlog short of batches, since a held-back delivery holds
 * its batch for the part of its wait below a second (app/send/rate-gate.ts).
 */
const LOCAL_SENDER_CONCURRENCY = 8;

function loadAdminKey(dataDir: string, given?: string): string {
  if (given) return checkAdminKey(given, { variable: 'HOOKLINE_ADMIN_KEY' });
  const file = join(dataDir, 'admin-key');
  if (existsSync(file)) return checkAdminKey(readFileSync(file, 'utf8').trim(), { file });
  const key = `hk_admin_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** The handlers' environment: names from topology.ts (under `prefix`), values pointing at the local resources. */
export function localEnv(
  queues: ProvisionedQueues,
  allowPrivate: boolean,
  overrides: Readonly<Record<string, string>> = {},
  prefix = '',
): Env {
  const env: Record<string, string | undefined> = { ...ENV_DEFAULTS };
  for (const def of Object.values(TABLES)) env[def.envVar] = localResourceName(def, prefix);
  for (const key of Object.keys(QUEUES) as QueueKey[]) env[QUEUES[key].envVar] = queues.urls[key];
  for (const def of Object.values(BUCKETS)) env[def.envVar] = localResourceName(def, prefix);
  env.HOOKLINE_ADMIN_KEY_SECRET_ID = 'local:HOOKLINE_ADMIN_KEY';
  env.HOOKLINE_ALLOW_PRIVATE_TARGETS = allowPrivate ? '1' : '0';
  // Signing secrets are sealed with the key file in the data folder (no KMS locally).
  env.HOOKLINE_SECRETS_SEAL_KEY_ID = LOCAL_SECRETS_KEY_ID;
  env.HOOKLINE_SECRETS_OPEN_KEY_ID = LOCAL_SECRETS_KEY_ID;
  // Notice emails go to the local SMTP server or mail catcher (no SES locally).
  env.HOOKLINE_MAIL_TRANSPORT = 'local';
  // Required by the api's environment; startRuntime's own archiver factory reaches the handler in-process instead of by this name.
  env.ARCHIVER_FUNCTION_NAME = 'local:archiver';
  return { ...env, ...overrides };
}

/**
 * How the runtime's clients reach each service: the embedded emulator with dummy credentials,
 * or the given endpoint with the SDK's own credentials and AWS_REGION (default us-east-1).
 */
export function clientConfig(endpoint: string, embedded: boolean, env: NodeJS.ProcessEnv = process.env) {
  return embedded
    ? { region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 5, endpoint }
    : { region: env.AWS_REGION || 'us-east-1', maxAttempts: 5, endpoint };
}

/** S3 path-style except on AWS itself: bucket subdomains of 127.0.0.1 or localhost do not resolve. */
function pathStyle(endpoint: string): boolean {
  return !/(^|\.)amazonaws\.com$/.test(new URL(endpoint).hostname);
}

/** Every queue URL with its origin replaced by the embedded fauxqs endpoint. */
function reachableQueues(queues: ProvisionedQueues, endpoint: string): ProvisionedQueues {
  const map = (urls: Record<QueueKey, string>) =>
    Object.fromEntries(Object.entries(urls).map(([k, url]) => [k, reachableQueueUrl(url, endpoint)])) as Record<
      QueueKey,
      string
    >;
  return { ...queues, urls: map(queues.urls), redriveUrls: map(queues.redriveUrls) };
}

/** What EventBridge hands a scheduled function (the scale model hands its own the same). */
export function scheduledEvent(id = 'local'): ScheduledEvent {
  return {
    version: '0',
    id,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [],
    detail: {},
  };
}

/**
 * The one wiring point of the local runtime: emulators, tables and queues from topology.ts,
 * the real handlers with clients pointed at the emulators, pollers standing in for the event
 * source mappings, the gateway for API Gateway, and timers for the schedules.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const dataDir = resolve(options.dataDir);
  // The folder holds the admin key, the secrets key and every table row: the owner's only,
  // also when it already existed from before this rule.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const localSecretsKey = loadLocalSecretsKey(dataDir);
  // Before anything starts: a refused key (under 24 characters) or entry leaves nothing running.
  const adminKey = loadAdminKey(dataDir, options.adminKey ?? process.env.HOOKLINE_ADMIN_KEY);
  const apiType = options.apiType ?? localApiType(process.env.HOOKLINE_API_TYPE);
  const logger =
    options.logger ??
    localLogger(
      options.logLevel ?? 'WARN',
      options.logFormat ?? chooseLogFormat(process.env.HOOKLINE_LOG_FORMAT, process.stdout.isTTY === true),
    );
  const onError = (error: unknown) => logger.error('local runtime error', { error: error as Error });
  const prefix = validResourcePrefix(options.resourcePrefix ?? process.env.HOOKLINE_RESOURCE_PREFIX);
  const ports = resolvePorts(options.port ?? 3000, options.ports);
  const external = options.endpoints ?? externalEndpoints(process.env);
  // On a thread of their own: the emulators' half of every call runs beside the handlers, not behind them (about 1.5x the deliveries a second).
  const emulators: Emulators = await startEmulatorThread(dataDir, new Set(SERVICES.filter((s) => !external[s])), ports);
  const embedded = Object.fromEntries(SERVICES.map((s) => [s, !external[s]])) as Record<Service, boolean>;
  const endpoint = Object.fromEntries(SERVICES.map((s) => [s, external[s] ?? emulators.endpoints[s]!])) as Record<
    Service,
    string
  >;
  const dynamodb = new DynamoDBClient(clientConfig(endpoint.dynamodb, embedded.dynamodb));
  // The change feed's own reads (the stand-in for the events table's stream, which AWS does not
  // bill to Lambda) on a client of their own, outside whatever meters the handlers' calls.
  const feedReader = new DynamoDBClient(clientConfig(endpoint.dynamodb, embedded.dynamodb));
  const feed = eventsFeed(prefix);
  const sqs = new SQSClient(clientConfig(endpoint.sqs, embedded.sqs));
  const s3 = new S3Client({ ...clientConfig(endpoint.s3, embedded.s3), forcePathStyle: pathStyle(endpoint.s3) });
  const closeClients = () => [dynamodb, feedReader, sqs, s3].forEach((c) => c.destroy());
  let queues: ProvisionedQueues;
  try {
    // Every table is checked before any is created or read: an older layout is refused whole, never half-read.
    await checkDataLayout(dynamodb, prefix, embedded.dynamodb ? dataDir : undefined);
    queues = await provision(dynamodb, sqs, prefix);
    // What fauxqs answers is not a URL a producer can use as it is (see reachableQueueUrl).
    if (embedded.sqs) queues = reachableQueues(queues, endpoint.sqs);
    if (embedded.dynamodb) await repairActiveIndex(dynamodb, localResourceName(TABLES.deliveries, prefix));
    await ensureFeedTable(dynamodb, prefix);
    await provisionBuckets(s3, prefix);
  } catch (error) {
    closeClients();
    await emulators.stop();
    throw error;
  }

  // Failure notices link to the local dashboard when its address is known before it listens (a fixed port).
  const consoleUrl: Record<string, string> =
    ports.api > 0 ? { HOOKLINE_CONSOLE_URL: consoleUrlOf(`http://127.0.0.1:${ports.api}`) } : {};
  const env = localEnv(queues, options.allowPrivateTargets ?? true, { ...consoleUrl, ...options.env }, prefix);
  const metrics = new MemoryMetrics();
  // One process serves every function here, so fan-out reads subscriptions fresh (no cross-function cache to go stale).
  const mailDir = join(dataDir, 'mail');
  const smtpUrl = options.smtpUrl ?? process.env.HOOKLINE_SMTP_URL;
  const build = {
    clients: { dynamodb, sqs, s3 },
    metrics,
    subscriptionCacheMs: options.subscriptionCacheMs ?? 0,
    // The api registers types and ingest checks against them in one process: neither waits out a cache.
    eventTypeCacheMs: 0,
    localSecretsKey,
    localMail: { dir: mailDir, ...(smtpUrl ? { smtpUrl } : {}) },
  };
  const obs: Observability = { logger };

  const wrap = options.wrapHandler ?? (<E, R>(_fn: FunctionKey, handler: Invoke<E, R>) => handler);
  const handlers = {
    ingest: wrap('ingest', createIngestHandler(buildDeps('ingest', env, build, ALL_FACTORIES), obs)),
    sender: wrap('sender', createSenderHandler(buildDeps('sender', env, build, ALL_FACTORIES), obs)),
  };
  // The events table's stream and its event source mapping on the ingest function (the fan-out).
  const fanOut = new ChangeFeedPoller({
    dynamodb: feedReader,
    feed,
    batchSize: STREAM_SOURCES.find((s) => s.table === 'events')!.batchSize,
    handler: wrap('ingest', createFanOutHandler(buildDeps('ingest', env, build, ALL_FACTORIES), obs)),
    context: () => lambdaContext('ingest'),
    onError,
  });
  // Before any handler runs: every event stored from here on has its entry in the feed first, and
  // the poller looks as soon as one has landed.
  recordInserts(dynamodb, feed, Date.now, () => fanOut.nudge());
  const pollers = EVENT_SOURCES.map(
    (source) =>
      new QueuePoller({
        sqs,
        queueUrl: queues.urls[source.queue],
        queueArn: queues.arns[source.queue],
        source,
        concurrency: source.function === 'sender' ? (options.senderConcurrency ?? LOCAL_SENDER_CONCURRENCY) : 1,
        // A message held by a process that died comes back soon after its handling would have ended (the queue's own timeout is minutes).
        visibilityTimeoutSeconds: Math.ceil(
          longestHandlingMs(Number(env.HOOKLINE_SENDER_TIMEOUT_MS ?? ENV_DEFAULTS.HOOKLINE_SENDER_TIMEOUT_MS)) / 1000,
        ),
        handler: handlers[source.function],
        onError,
      }),
  );
  const scheduled = {
    sweeper: wrap(
      'sweeper',
      createSweeperHandler(
        buildDeps('sweeper', env, build, ALL_FACTORIES),
        { graceSeconds: sweepGraceSeconds(env) },
        obs,
      ),
    ),
    replay: wrap('replay', createReplayHandler(buildDeps('replay', env, build, ALL_FACTORIES), obs)),
    archiver: wrap('archiver', createArchiverHandler(buildDeps('archiver', env, build, ALL_FACTORIES), obs)),
    notifier: wrap(
      'notifier',
      createNotifierHandler(buildDeps('notifier', env, build, { ...ALL_FACTORIES, ...LOCAL_MAIL_FACTORIES }), obs),
    ),
  } satisfies Record<(typeof SCHEDULES)[number]['function'], Invoke<never, unknown>>;
  // The console's archive runs and restores: the same archiver handler the Invoke stand-in serves, as Lambda would run it.
  const localArchiver: Factories<'archiver'> = {
    archiver: () => ({ invoke: (payload) => scheduled.archiver(payload as never, lambdaContext('archiver')) }),
  };
  const apiDeps = buildDeps('api', env, build, { ...ALL_FACTORIES, ...localArchiver });
  // Rows from before secrets were sealed are sealed once, here, before anything polls or runs;
  // until then (or if this fails) the sender still signs with the plain list it finds.
  await sealPlainSecrets(apiDeps).catch((error: unknown) =>
    logger.error('could not seal plain-text signing secrets', { error: error as Error }),
  );
  // The routing index holds every subscription before anything publishes (a fresh data folder: at once).
  if ((await apiDeps.routes.status())?.kind !== 'built') {
    const routing = await buildRoutes(apiDeps, Number.POSITIVE_INFINITY);
    if (routing.indexed > 0)
      logger.info(`routing index built: ${routing.indexed} subscriptions stored before it indexed`);
  }
  const schedules = new Map(
    SCHEDULES.map((s) => [
      s.function as FunctionKey,
      new Schedule(
        options.scheduleIntervalMs?.[s.function] ?? s.rateMinutes * 60_000,
        () => scheduled[s.function](scheduledEvent(), lambdaContext(s.function)),
        onError,
      ),
    ]),
  );
  // What operators invoke directly on AWS (`aws lambda invoke`, the CLI with --aws), served locally by the Invoke stand-in.
  const invocable: Partial<Record<FunctionKey, Invoke<unknown, unknown>>> = scheduled as Record<
    string,
    Invoke<unknown, unknown>
  >;
  let lambdaApi: LambdaApi;
  try {
    lambdaApi = await listening('lambda', ports.lambda, () =>
      startLambdaApi({ functions: invocable, onError, port: ports.lambda }),
    );
  } catch (error) {
    closeClients();
    await emulators.stop();
    throw error;
  }

  // Where bearer credentials are looked up, by the api (a Function URL) or the authorizer (API Gateway).
  const credentials = {
    adminKey: new StaticKeySource(adminKey),
    tenantKeys: new DynamoDbApiKeyStore(documentClient(dynamodb), env.API_KEYS_TABLE!),
    portalSessions: new DynamoDbPortalSessionStore(documentClient(dynamodb), env.PORTAL_SESSIONS_TABLE!),
  };
  let gateway: Gateway;
  try {
    gateway = await listening('api', ports.api, () =>
      startGateway({
        port: ports.api,
        api: wrap(
          'api',
          createApiHandler(apiDeps, obs, {
            dashboard: localDashboardAssets(),
            // Caught notice emails, when they are caught here (not handed to an SMTP server).
            ...(env.HOOKLINE_MAIL_TRANSPORT === 'local' && !smtpUrl ? { mailbox: new FileMailbox(mailDir) } : {}),
            // A Function URL: the api checks keys itself; nothing is cached here, so a revocation is immediate.
            ...(apiType === 'url' ? { authenticate: inProcessAuthenticator(bearerGrants(credentials), 0) } : {}),
          }),
        ),
        ...(apiType === 'http'
          ? {
              authorizer: wrap(
                'authorizer',
                createAuthorizerHandler(
                  credentials.adminKey,
                  obs,
                  credentials.tenantKeys,
                  Date.now,
                  credentials.portalSessions,
                ),
              ),
            }
          : {}),
        onError,
      }),
    );
  } catch (error) {
    await lambdaApi.close();
    closeClients();
    await emulators.stop();
    throw error;
  }
  // Where the CLI finds this runtime (`npx hookline`, default data folder); removed on a clean stop.
  const runtimeFile = join(dataDir, 'runtime.json');
  writeFileSync(
    runtimeFile,
    `${JSON.stringify({ version: RUNTIME_FILE_VERSION, api: gateway.url, lambda: lambdaApi.url, lambdaToken: lambdaApi.token, ...endpoint, embedded, ingestQueueUrl: queues.urls.ingest, ingestRedriveQueueUrl: queues.redriveUrls.ingest, resourcePrefix: prefix, pid: process.pid } satisfies RuntimeFile, null, 2)}\n`,
    { mode: 0o600 },
  );
  // A file left by a crashed run keeps its old mode when rewritten.
  chmodSync(runtimeFile, 0o600);
  for (const p of pollers) p.start();
  fanOut.start();
  for (const s of schedules.values()) s.start();

  let stopped: Promise<void> | undefined;
  return {
    url: gateway.url,
    consoleUrl: consoleUrlOf(gateway.url),
    adminKey,
    dataDir,
    metrics,
    queues,
    clients: { dynamodb, sqs, s3 },
    endpoints: { ...endpoint, lambda: lambdaApi.url },
    embedded,
    resourcePrefix: prefix,
    env,
    mailDir,
    runSchedule: async (fn) => {
      const schedule = schedules.get(fn);
      if (!schedule) throw new Error(`no schedule for ${fn}`);
      await schedule.tick();
    },
    invoke: async (fn, payload) => {
      const handler = invocable[fn];
      if (!handler) throw new Error(`${fn} is not invocable locally (try: ${Object.keys(invocable).join(', ')})`);
      return handler(payload, lambdaContext(fn));
    },
    stop: () =>
      (stopped ??= (async () => {
        await gateway.close();
        await lambdaApi.close();
        rmSync(runtimeFile, { force: true });
        await Promise.all([...pollers.map((p) => p.stop()), fanOut.stop()]);
        await Promise.all([...schedules.values()].map((s) => s.stop()));
        closeClients();
        await emulators.stop();
      })()),
  };
}
