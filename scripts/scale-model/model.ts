import { Logger } from '@aws-lambda-powertools/logger';
import type {
  DynamoDBStreamEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  SQSBatchResponse,
  SQSEvent,
  ScheduledEvent,
} from 'aws-lambda';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import type { Factories } from '#adapters/deps/factory.ts';
import { buildDeps, sweepGraceSeconds } from '#adapters/function-deps.ts';
import {
  EVENT_SOURCES,
  STREAM_SOURCES,
  slowLaneMaxConcurrencyFor,
  type FunctionKey,
  localResourceName,
  QUEUES,
  type QueueKey,
  TABLES,
  type TableDef,
} from '#config/topology.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { createFanOutHandler } from '#handlers/fan-out.ts';
import type { Observability } from '#handlers/observability.ts';
import { createNotifierHandler } from '#handlers/notifier.ts';
import { createReplayHandler } from '#handlers/replay.ts';
import { createSenderHandler } from '#handlers/sender.ts';
import { createSweeperHandler } from '#handlers/sweeper.ts';
import type { Invoke } from '#local/lambda-context.ts';
import { localEnv, scheduledEvent } from '#local/runtime.ts';
import { noMetrics } from '#ports/metrics.ts';
import { SimDynamoDB } from './sim/dynamodb/sim-dynamodb.ts';
import type { DynamoLimits } from './sim/dynamodb/capacity.ts';
import { type EndpointPlan, type Receipt, SimEndpoints } from './sim/endpoints.ts';
import { AccountConcurrency, FunctionPool, QueueMapping } from './sim/lambda.ts';
import { SimSqs, type SimQueue } from './sim/sqs.ts';
import { StreamMapping, type StreamResponse } from './sim/stream-mapping.ts';
import type { VirtualTime } from './virtual-time.ts';

/**
 * Service latencies the model waits, per call. DynamoDB: AWS states "single-digit
 * millisecond" latency at any scale (https://aws.amazon.com/dynamodb/); the model takes 4 ms
 * for a key operation and 8 ms for a query. SQS publishes no latency figure; the model takes
 * 12 ms a call, in the tens of milliseconds the SQS FAQ's "low latency" queues show in practice.
 * Lambda: the INIT the bench measures for these bundles is a few hundred ms; the model takes 400 ms.
 */
export const LATENCY = {
  dynamodbKeyMs: 4,
  dynamodbQueryMs: 8,
  sqsMs: 12,
  lambdaInitMs: 400,
} as const;

/**
 * The tables as docs/aws.md advises for a launch at this scale ("Before a launch at scale"): warm
 * throughput raised to the default per-table quota (40,000 WRU and RRU a second). A new on-demand
 * table serves only 4,000 WRU/s at first, which 10,000 events/s (2 WRU each, 1 KB and its
 * attributes) would pass at once; a run with `dynamoLimits: { tableWcu: 4000 }` shows that.
 */
const WARMED: Partial<DynamoLimits> = { tableWcu: 40_000, tableRcu: 40_000 };

export interface ModelSettings {
  readonly time: VirtualTime;
  readonly plan: EndpointPlan;
  readonly onReceipt: (receipt: Receipt) => void;
  readonly dynamoLimits?: Partial<DynamoLimits>;
  /** Per-function reserved concurrency, as the construct props set it. */
  readonly reserved?: Partial<Record<FunctionKey, number>>;
  /** The sender's event source MaximumConcurrency (default: the topology's). */
  readonly senderMaxConcurrency?: number;
  readonly accountConcurrency?: number;
  /** Environment overrides (policies), on top of the deployment defaults. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Counts what the handlers log as errors, by message, instead of printing them. */
class CountingLogger extends Logger {
  readonly errors = new Map<string, number>();
  override error(message: unknown, ...rest: unknown[]): void {
    const key = typeof message === 'string' ? message : 'error';
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    void rest;
  }
}

const scheduled = () => scheduledEvent('model');

/**
 * The scale model's one wiring point: the real handlers, built per execution environment by
 * the same buildDeps the Lambda entries call, on real SDK clients answered by the simulated
 * services (sim/), with the receivers in place of the HTTP adapter. Nothing else is swapped.
 */
export function buildModel(settings: ModelSettings) {
  const { time } = settings;
  const dynamo = new SimDynamoDB({
    time,
    limits: { ...WARMED, ...settings.dynamoLimits },
    latencyMs: (command) => (/Query|Scan/.test(command) ? LATENCY.dynamodbQueryMs : LATENCY.dynamodbKeyMs),
  });
  for (const def of Object.values(TABLES) as TableDef[]) {
    dynamo.createTable(def, localResourceName(def));
    if (def.stream) dynamo.enableStream(localResourceName(def), { viewType: def.stream });
  }
  const sqs = new SimSqs(time, () => LATENCY.sqsMs);
  const queues = Object.fromEntries(
    (Object.keys(QUEUES) as QueueKey[]).map((key) => [key, sqs.queue(QUEUES[key].localName)]),
  ) as Record<QueueKey, SimQueue>;
  const urls = Object.fromEntries(Object.entries(queues).map(([k, q]) => [k, q.url])) as Record<QueueKey, string>;
  const env = localEnv({ urls, arns: urls, redriveUrls: urls }, true, {
    HOOKLINE_MAIL_TRANSPORT: 'off',
    ...settings.env,
  });
  const endpoints = new SimEndpoints(time, settings.plan, settings.onReceipt);
  const logger = new CountingLogger({ logLevel: 'SILENT' });
  const obs: Observability = { logger };
  const build = {
    clients: { dynamodb: dynamo.client(), sqs: sqs.client() },
    metrics: noMetrics,
    clock: time,
    localSecretsKey: new Uint8Array(32).fill(7),
  };
  const factories: Factories = { ...ALL_FACTORIES, http: () => endpoints };
  const account = new AccountConcurrency(settings.accountConcurrency);
  const pool = <E, R>(fn: FunctionKey, make: () => Invoke<E, R>) =>
    new FunctionPool<E, R>(fn, {
      time,
      account,
      make,
      initMs: LATENCY.lambdaInitMs,
      ...(settings.reserved?.[fn] !== undefined ? { reserved: settings.reserved[fn] } : {}),
    });
  const withResolver = <D extends object>(deps: D) => ({
    ...deps,
    // No DNS in the model: every receiver resolves to one public documentation address.
    resolver: { resolve: async () => ['203.0.113.10'] },
  });
  const pools = {
    api: pool<APIGatewayProxyEventV2, APIGatewayProxyResult>('api', () =>
      createApiHandler(withResolver(buildDeps('api', env, build, factories)), obs),
    ),
    // The fan-out: the ingest function on the events table's stream.
    ingest: pool<DynamoDBStreamEvent, StreamResponse>('ingest', () =>
      createFanOutHandler(buildDeps('ingest', env, build, factories), obs),
    ),
    sender: pool<SQSEvent, SQSBatchResponse>('sender', () =>
      createSenderHandler(withResolver(buildDeps('sender', env, build, factories)), obs),
    ),
    sweeper: pool<ScheduledEvent, unknown>(
      'sweeper',
      () =>
        createSweeperHandler(
          buildDeps('sweeper', env, build, factories),
          { graceSeconds: sweepGraceSeconds(env) },
          obs,
        ) as Invoke<ScheduledEvent, unknown>,
    ),
    replay: pool<ScheduledEvent, unknown>(
      'replay',
      () => createReplayHandler(buildDeps('replay', env, build, factories), obs) as Invoke<ScheduledEvent, unknown>,
    ),
    notifier: pool<ScheduledEvent, unknown>(
      'notifier',
      () => createNotifierHandler(buildDeps('notifier', env, build, factories), obs) as Invoke<ScheduledEvent, unknown>,
    ),
  };
  // The sender's event sources: the delivery queue and the slow lane, each with its own cap.
  const mainCap = settings.senderMaxConcurrency ?? EVENT_SOURCES.find((s) => s.queue === 'delivery')!.maxConcurrency;
  const slowCap = slowLaneMaxConcurrencyFor(mainCap);
  const senderMappings = EVENT_SOURCES.filter((s) => s.function === 'sender').map(
    (source) =>
      new QueueMapping(
        queues[source.queue],
        pools.sender as FunctionPool<SQSEvent, SQSBatchResponse | undefined>,
        {
          batchSize: source.batchSize,
          batchingWindowSeconds: source.maxBatchingWindowSeconds,
          // The construct's defaults: the slow lane's cap follows the main lane's (DeliverySender).
          maxConcurrency: source.queue === 'delivery' ? mainCap : slowCap,
          visibilitySeconds: QUEUES[source.queue].visibilityTimeoutSeconds,
        },
        time,
      ),
  );
  // The fan-out's event sources, as the construct connects them (connectStream).
  const streamMappings = STREAM_SOURCES.map(
    (source) =>
      new StreamMapping(
        dynamo.stream(localResourceName(TABLES[source.table])),
        pools.ingest,
        {
          batchSize: source.batchSize,
          maximumBatchingWindowSeconds: source.maxBatchingWindowSeconds,
          eventNames: [source.eventName],
          bisectBatchOnFunctionError: source.bisectBatchOnError,
          maximumRetryAttempts: source.retryAttempts,
        },
        time,
      ),
  );
  const eventSources = {
    start: () => {
      for (const m of [...senderMappings, ...streamMappings]) m.start();
    },
    stop: () => {
      for (const m of [...senderMappings, ...streamMappings]) m.stop();
    },
  };
  return {
    dynamo,
    sqs,
    queues,
    endpoints,
    pools,
    account,
    eventSources,
    /** The sender's two mappings' MaximumConcurrency: the main lane's, and the slow lane's on top. */
    senderCaps: { main: mainCap, slow: slowCap },
    logger,
    scheduledEvent: scheduled,
  };
}

export type Model = ReturnType<typeof buildModel>;
