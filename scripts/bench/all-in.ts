import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  API_ACCESS_LOG_FORMATS,
  ARCHIVE_LIFECYCLE_DEFAULTS as ARCHIVE_LIFECYCLE,
  COMMON_ENVIRONMENT,
  METRICS,
  FUNCTIONS,
  OBSERVABILITY_DEFAULTS,
  SCHEDULES,
  type ApiAccessLogFormat,
  type FunctionKey,
} from '#config/topology.ts';
import { DATA_KEY_CACHE_DEFAULTS } from '#adapters/kms-secret-cipher.ts';
import type { BackgroundCost, RunCost } from './background.ts';
import type { CostScenario } from './cost.ts';
import type { PerDelivery } from './cost-model.ts';
import type { LogUsage } from './log-meter.ts';
import { DEPLOYED_NAME_EXTRA_BYTES, XRAY_TRACE_ID_BYTES } from './log-meter.ts';
import { PRICES } from './prices.ts';
import { DAYS_PER_MONTH, GB, type StorageCost } from './storage.ts';

/**
 * The traffic the fixed and traffic-shaped costs are spread over, stated because the answer
 * depends on it: the scheduled functions' runs are a monthly cost, X-Ray samples a share that
 * falls as the rate grows, and KMS is called once per subscription per cache lifetime.
 */
export const TRAFFIC = {
  deliveriesPerMonth: 10_000_000,
  /** Subscriptions the deliveries are spread over, evenly. */
  subscriptions: 1000,
  /** Warm sender containers sharing the deliveries (at about 4 a second, batches of 10, one or two). */
  senderContainers: 2,
  /** How long a Lambda container lives before it is replaced (not published by AWS; an assumption). */
  containerLifetimeHours: 2,
} as const;

/**
 * Lambda bills wall time, and locally a handler's wall time is spent waiting for the CPU it shares
 * with the emulators. So duration is modelled: one in-region round trip per sequential call an
 * invocation makes (calls of the same kind for a batch's records go out together), the receiver's
 * answer, and this run's CPU per delivery, measured for the whole process (an upper bound).
 */
export const LATENCY_MS = { dynamodb: 8, sqs: 12, receiver: 100, init: 300 } as const;
const CHAIN_MS: Partial<Record<FunctionKey, (s: CostScenario) => number>> = {
  // The key and the routes are cached; the event's conditional write, the manifest, the hand-off.
  api: () => 2 * LATENCY_MS.dynamodb + LATENCY_MS.sqs,
  ingest: () => 2 * LATENCY_MS.dynamodb + LATENCY_MS.sqs,
  // The subscription is cached; the POST, the one write, and a retry's message when it fails.
  sender: (s) => LATENCY_MS.receiver + LATENCY_MS.dynamodb + (s.failuresFirst > 0 ? LATENCY_MS.sqs : 0),
};

/** The least a scheduled run is billed for: Lambda's own start of the handler, middy and the first call. */
const MIN_RUN_MS = 50;

/** Bytes of one Lambda platform record set per invocation (START, END, REPORT; XRAY with tracing), at a platform log level of INFO. */
export const PLATFORM_LINES_BYTES = { base: 61 + 52 + 140, xray: 100 } as const;

/** One access log record as the HTTP API writes it, with typical values. */
export function accessLogRecordBytes(format: ApiAccessLogFormat = OBSERVABILITY_DEFAULTS.apiAccessLog): number {
  const typical: Record<string, string> = {
    requestId: 'Ab1cDefGhIjKlMn=',
    ip: '203.0.113.10',
    caller: '-',
    user: '-',
    requestTime: '02/Dec/2026:10:00:00 +0000',
    httpMethod: 'POST',
    routeKey: 'ANY /v1/{proxy+}',
    path: '/v1/events',
    status: '202',
    protocol: 'HTTP/1.1',
    responseLength: '120',
    integrationLatency: '35',
    authorizerError: '-',
    integrationError: '-',
  };
  return Buffer.byteLength(
    `${JSON.stringify(Object.fromEntries(Object.keys(API_ACCESS_LOG_FORMATS[format]).map((k) => [k, typical[k] ?? '-'])))}\n`,
  );
}

/**
 * One EMF document as Powertools Metrics flushes it at the end of an invocation: rendered here for
 * a sender batch of 10 (a count and 10 latencies), the largest the handlers write.
 */
export function emfDocumentBytes(): number {
  const metrics = new Metrics({
    namespace: COMMON_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
    serviceName: COMMON_ENVIRONMENT.POWERTOOLS_SERVICE_NAME,
  });
  metrics.addMetric(METRICS.succeeded, MetricUnit.Count, 10);
  for (let i = 0; i < 10; i++) metrics.addMetric(METRICS.attemptLatency, MetricUnit.Milliseconds, 100 + i);
  return Buffer.byteLength(`${JSON.stringify(metrics.serializeMetrics())}\n`);
}

export interface AllInPart {
  readonly service: string;
  readonly dollars: number;
  readonly basis: 'measured' | 'modelled' | 'measured × modelled';
  readonly how: string;
}

export interface AllIn {
  readonly parts: readonly AllInPart[];
  readonly total: number;
  readonly logBytesPerDelivery: number;
}

export interface AllInInputs {
  readonly scenario: CostScenario;
  readonly p: PerDelivery;
  readonly logs: LogUsage;
  readonly cpuMs: number;
  readonly background?: BackgroundCost;
  /** Table storage per million deliveries over the default retention (point-in-time recovery is billed on the same GB-months). */
  readonly storage?: StorageCost;
  readonly tracing?: boolean;
}

const MILLION = 1e6;
const usd = (n: number) => `$${n.toFixed(2)}`;

/** Share of a function's invocations X-Ray records at `perSecond`: Lambda samples 1 a second and 5 % of the rest. */
export function xraySampledShare(perSecond: number): number {
  if (perSecond <= 0) return 0;
  return Math.min(1, (Math.min(perSecond, 1) + 0.05 * Math.max(0, perSecond - 1)) / perSecond);
}

/**
 * KMS Decrypts per attempt: each sender container decrypts a subscription's data key the first
 * time it serves it within the cache lifetime, and again after an eviction when it serves more
 * subscriptions than the cache holds. Deliveries spread evenly over the subscriptions.
 */
export function kmsDecryptsPerAttempt(attemptsPerSecond: number): number {
  const { subscriptions, senderContainers } = TRAFFIC;
  const perWindow = (attemptsPerSecond * (DATA_KEY_CACHE_DEFAULTS.ttlMs / 1000)) / senderContainers;
  if (perWindow <= 0) return 0;
  const distinct = subscriptions * (1 - Math.exp(-perWindow / subscriptions));
  const lifetimeMisses = distinct / perWindow;
  const evictionMisses = Math.max(0, 1 - DATA_KEY_CACHE_DEFAULTS.maxKeys / subscriptions);
  return Math.min(1, Math.max(lifetimeMisses, evictionMisses));
}

/** Every service a deployment is billed for, per million deliveries of one scenario. */
export function allInPerMillion(input: AllInInputs): AllIn {
  const { scenario, p } = input;
  const tracing = input.tracing ?? OBSERVABILITY_DEFAULTS.tracing;
  const deliveriesPerSecond = TRAFFIC.deliveriesPerMonth / (DAYS_PER_MONTH * 86_400);
  const attempts = Math.min(scenario.failuresFirst + 1, scenario.maxAttempts ?? Infinity);
  const inv = p.invocationsByFunction;
  const invocations = (['api', 'ingest', 'sender'] as const).map((fn) => [fn, inv[fn] ?? 0] as const);

  const gbSecondsOf = (fn: FunctionKey, seconds: number) => seconds * (FUNCTIONS[fn].memorySize / 1024);
  const waitGbS = invocations.reduce(
    (s, [fn, n]) => s + n * gbSecondsOf(fn, (CHAIN_MS[fn]?.(scenario) ?? 0) / 1000),
    0,
  );
  const cpuGbS = gbSecondsOf('sender', input.cpuMs / 1000 / p.deliveries);
  const containerStartsPerDelivery =
    (3 * (DAYS_PER_MONTH * 24)) / TRAFFIC.containerLifetimeHours / TRAFFIC.deliveriesPerMonth;
  const initGbS = containerStartsPerDelivery * gbSecondsOf('sender', LATENCY_MS.init / 1000);

  // Lambda's platform lines are written only at a platform level below WARN.
  const platformBytes =
    OBSERVABILITY_DEFAULTS.platformLogLevel === 'WARN'
      ? 0
      : PLATFORM_LINES_BYTES.base + (tracing ? PLATFORM_LINES_BYTES.xray : 0);
  const perInvocationLogBytes = platformBytes + emfDocumentBytes();
  const handlerLogBytes =
    (input.logs.bytes + input.logs.lines * (DEPLOYED_NAME_EXTRA_BYTES + (tracing ? XRAY_TRACE_ID_BYTES : 0))) /
    p.deliveries;
  const logBytes =
    handlerLogBytes + p.lambdaInvocations * perInvocationLogBytes + p.apiRequests * accessLogRecordBytes();
  const logDollarsPerByte =
    (PRICES.logsIngestionGb + PRICES.logsStorageGbMonth * (OBSERVABILITY_DEFAULTS.logRetentionDays / DAYS_PER_MONTH)) /
    GB;

  const traces = tracing ? invocations.reduce((s, [, n]) => s + n * xraySampledShare(n * deliveriesPerSecond), 0) : 0;
  const decrypts = attempts * kmsDecryptsPerAttempt(attempts * deliveriesPerSecond);

  const parts: AllInPart[] = [
    {
      service: 'DynamoDB requests',
      dollars: p.dollarsPerMillion.dynamodb,
      basis: 'measured',
      how: `${p.writeUnits.toFixed(2)} WRU, ${p.readUnits.toFixed(2)} RRU`,
    },
    {
      service: 'SQS',
      dollars: p.dollarsPerMillion.sqs,
      basis: 'measured',
      how: `${p.sqsRequests.toFixed(2)} requests`,
    },
    {
      service: 'API Gateway',
      dollars: p.dollarsPerMillion.apiGateway,
      basis: 'measured',
      how: `${p.apiRequests.toFixed(2)} requests`,
    },
    {
      service: 'Lambda requests',
      dollars: MILLION * p.lambdaInvocations * PRICES.lambdaRequest,
      basis: 'measured',
      how: `${p.lambdaInvocations.toFixed(3)} invocations`,
    },
    {
      service: 'Lambda duration',
      dollars: MILLION * (waitGbS + cpuGbS + initGbS) * PRICES.lambdaArmGbSecond,
      basis: 'measured × modelled',
      how: `${((waitGbS + cpuGbS + initGbS) * 1000).toFixed(2)} GB-ms: round trips and the receiver ${(waitGbS * 1000).toFixed(2)}, CPU ${(cpuGbS * 1000).toFixed(2)} (measured, upper bound), INIT ${(initGbS * 1000).toFixed(3)}`,
    },
    {
      service: 'CloudWatch Logs',
      dollars: MILLION * logBytes * logDollarsPerByte,
      basis: 'measured × modelled',
      how: `${logBytes.toFixed(0)} B: handlers ${handlerLogBytes.toFixed(0)} (${(input.logs.lines / p.deliveries).toFixed(2)} records, measured at ${OBSERVABILITY_DEFAULTS.logLevel}), platform and EMF ${(p.lambdaInvocations * perInvocationLogBytes).toFixed(0)}, access log ${(p.apiRequests * accessLogRecordBytes()).toFixed(0)}; ${OBSERVABILITY_DEFAULTS.logRetentionDays} days kept`,
    },
    {
      service: 'X-Ray',
      dollars: MILLION * traces * PRICES.xrayTraceRecorded,
      basis: 'modelled',
      how: tracing ? `${traces.toFixed(3)} traces (1 a second and 5 % of the rest, per function)` : 'tracing off',
    },
    {
      service: 'KMS',
      dollars: MILLION * decrypts * PRICES.kmsRequest,
      basis: 'modelled',
      how: `${decrypts.toFixed(3)} Decrypts (data keys cached ${DATA_KEY_CACHE_DEFAULTS.ttlMs / 60_000} min, ${DATA_KEY_CACHE_DEFAULTS.maxKeys} per container)`,
    },
    ...backgroundParts(input),
  ];
  return { parts, total: parts.reduce((s, x) => s + x.dollars, 0), logBytesPerDelivery: logBytes };
}

/** The functions no delivery invokes, the storage's backups and the archive, per million deliveries. */
function backgroundParts(input: AllInInputs): AllInPart[] {
  const parts: AllInPart[] = [];
  const b = input.background;
  if (b) {
    const runsPerMonth = (fn: FunctionKey) =>
      SCHEDULES.filter((s) => s.function === fn).reduce((n, s) => n + (DAYS_PER_MONTH * 1440) / s.rateMinutes, 0);
    const perMillion = MILLION / TRAFFIC.deliveriesPerMonth;
    // One run's bill: its units (`per` times the measured figures: the notifier's grow with the subscriptions), one
    // request, and its duration, at least the MIN_RUN_MS a scheduled invocation's own overhead takes.
    const run = (fn: 'sweeper' | 'replay' | 'notifier', cost: RunCost, per = 1) =>
      runsPerMonth(fn) *
      (per * (cost.readUnits * PRICES.dynamodbReadRequestUnit + cost.writeUnits * PRICES.dynamodbWriteRequestUnit) +
        PRICES.lambdaRequest +
        (Math.max(per * cost.ms, MIN_RUN_MS) / 1000) * (FUNCTIONS[fn].memorySize / 1024) * PRICES.lambdaArmGbSecond);
    const scheduled =
      perMillion *
      (run('sweeper', b.idleRun.sweeper) +
        run('replay', b.idleRun.replay) +
        run('notifier', b.notifierPerSubscription, TRAFFIC.subscriptions));
    parts.push({
      service: 'Scheduled runs',
      dollars: scheduled,
      basis: 'measured × modelled',
      how: `sweeper, replay, notifier on their schedules, spread over ${TRAFFIC.deliveriesPerMonth / MILLION} M deliveries a month`,
    });
    const sweep =
      MILLION *
      (b.sweepPerDelivery.readUnits * PRICES.dynamodbReadRequestUnit +
        b.sweepPerDelivery.writeUnits * PRICES.dynamodbWriteRequestUnit);
    parts.push({
      service: 'Sweeper manifest checks',
      dollars: sweep,
      basis: 'measured',
      how: `${b.sweepPerDelivery.readUnits.toFixed(2)} RRU, ${b.sweepPerDelivery.writeUnits.toFixed(2)} WRU`,
    });
    const a = b.archival;
    const archiveDays = ARCHIVE_LIFECYCLE.coldAfterDays;
    const coldDays = ARCHIVE_LIFECYCLE.expireAfterDays - archiveDays;
    const s3Storage =
      (a.s3Bytes / GB) *
      ((archiveDays * PRICES.s3StandardGbMonth + coldDays * PRICES.s3GlacierInstantGbMonth) / DAYS_PER_MONTH);
    parts.push({
      service: 'Archiver',
      dollars:
        MILLION *
        (a.writeUnits * PRICES.dynamodbWriteRequestUnit +
          a.readUnits * PRICES.dynamodbReadRequestUnit +
          a.s3Puts * PRICES.s3Put +
          a.s3OtherRequests * PRICES.s3Get +
          s3Storage),
      basis: 'measured',
      how: `${a.readUnits.toFixed(2)} RRU and ${a.writeUnits.toFixed(2)} WRU to read and delete each row, ${a.s3Puts.toFixed(3)} PUTs, ${a.s3Bytes.toFixed(0)} B kept ${ARCHIVE_LIFECYCLE.expireAfterDays} days`,
    });
  }
  if (input.storage) {
    const gbMonths = input.storage.parts.reduce((n, part) => n + part.gbMonthsPerMillionEvents, 0);
    parts.push(
      {
        service: 'DynamoDB storage',
        dollars: input.storage.dollarsPerMillionEvents,
        basis: 'measured',
        how: `${gbMonths.toFixed(2)} GB-months over the default retention`,
      },
      {
        service: 'Point-in-time recovery',
        dollars: gbMonths * PRICES.dynamodbPitrGbMonth,
        basis: 'measured',
        how: `the same ${gbMonths.toFixed(2)} GB-months`,
      },
    );
  }
  return parts;
}

/**
 * NAT when egress is static: every attempt's request and answer pass the gateway, and the
 * gateways bill by the hour whatever the traffic. Not in the all-in total (static egress is off by default).
 */
export function staticEgressPerMillion(
  attempts: number,
  bytesPerAttempt = 2500,
  gateways = 2,
): { dollars: number; how: string } {
  const processed = MILLION * attempts * (bytesPerAttempt / GB) * PRICES.natGatewayGb;
  const hourly = (gateways * PRICES.natGatewayHour * DAYS_PER_MONTH * 24 * MILLION) / TRAFFIC.deliveriesPerMonth;
  return {
    dollars: processed + hourly,
    how: `${usd(processed)} processed (${bytesPerAttempt} B an attempt) + ${usd(hourly)} of ${gateways} gateways' hours`,
  };
}
