import { FUNCTIONS, OBSERVABILITY_DEFAULTS, type FunctionKey } from '#config/topology.ts';
import { DATA_KEY_CACHE_DEFAULTS } from '#adapters/kms-secret-cipher.ts';
import { backgroundParts } from './all-in-background.ts';
import type { BackgroundCost } from './background.ts';
import type { CostScenario } from './scenario.ts';
import { PATH_FUNCTIONS, type PerDelivery } from './cost-model.ts';
import type { LogUsage } from './log-meter.ts';
import { DEPLOYED_NAME_EXTRA_BYTES, XRAY_TRACE_ID_BYTES } from './log-meter.ts';
import { emfDocumentBytes, entryAccessLogBytes, PLATFORM_LINES_BYTES } from './log-records.ts';
import { API_REQUEST_PRICE, DEFAULT_API_ENTRY, PRICES } from './prices.ts';
import { DAYS_PER_MONTH, GB, type StorageCost } from './storage.ts';
import { STATED_DELIVERIES_PER_SECOND, TRAFFIC } from './traffic.ts';

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
  /** Table storage per million deliveries over the default retention (PITR is billed on the same GB-months). */
  readonly storage?: StorageCost;
  readonly tracing?: boolean;
}

const MILLION = 1e6;

/** Share of a function's invocations X-Ray records at `perSecond`: Lambda samples 1 a second and 5 % of the rest. */
export function xraySampledShare(perSecond: number): number {
  if (perSecond <= 0) return 0;
  return Math.min(1, (Math.min(perSecond, 1) + 0.05 * Math.max(0, perSecond - 1)) / perSecond);
}

/**
 * KMS Decrypts per attempt: each sender container decrypts a data key the first time it needs
 * it within the cache lifetime, and again after an eviction when it needs more keys than the
 * cache holds. `keys` is how many data keys the subscriptions' secrets are sealed under: the
 * keyring's rings (TRAFFIC.ringsInUse); before the keyring it was one per subscription.
 * Deliveries spread evenly over the keys.
 */
export function kmsDecryptsPerAttempt(attemptsPerSecond: number, keys: number = TRAFFIC.ringsInUse): number {
  const perWindow = (attemptsPerSecond * (DATA_KEY_CACHE_DEFAULTS.ttlMs / 1000)) / TRAFFIC.senderContainers;
  if (perWindow <= 0) return 0;
  const distinct = keys * (1 - Math.exp(-perWindow / keys));
  const lifetimeMisses = distinct / perWindow;
  const evictionMisses = Math.max(0, 1 - DATA_KEY_CACHE_DEFAULTS.maxKeys / keys);
  return Math.min(1, Math.max(lifetimeMisses, evictionMisses));
}

/** Every service a deployment is billed for, per million deliveries of one scenario. */
export function allInPerMillion(input: AllInInputs): AllIn {
  const { scenario, p } = input;
  const tracing = input.tracing ?? OBSERVABILITY_DEFAULTS.tracing;
  const deliveriesPerSecond = STATED_DELIVERIES_PER_SECOND;
  const attempts = Math.min(scenario.failuresFirst + 1, scenario.maxAttempts ?? Infinity);
  const inv = p.invocationsByFunction;
  const invocations = PATH_FUNCTIONS.map((fn) => [fn, inv[fn] ?? 0] as const);

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
    handlerLogBytes + p.lambdaInvocations * perInvocationLogBytes + p.apiRequests * entryAccessLogBytes();
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
      service: `API entry (${DEFAULT_API_ENTRY})`,
      dollars: p.dollarsPerMillion.apiGateway,
      basis: 'measured',
      how: `${p.apiRequests.toFixed(2)} requests at $${(API_REQUEST_PRICE * MILLION).toFixed(2)} a million`,
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
      how: `${logBytes.toFixed(0)} B: handlers ${handlerLogBytes.toFixed(0)} (${(input.logs.lines / p.deliveries).toFixed(2)} records, measured at ${OBSERVABILITY_DEFAULTS.logLevel}), platform and EMF ${(p.lambdaInvocations * perInvocationLogBytes).toFixed(0)}, access log ${(p.apiRequests * entryAccessLogBytes()).toFixed(0)} (${DEFAULT_API_ENTRY}); ${OBSERVABILITY_DEFAULTS.logRetentionDays} days kept`,
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
      how: `${decrypts.toFixed(4)} Decrypts (${TRAFFIC.ringsInUse} shared data keys, one a month, each cached ${DATA_KEY_CACHE_DEFAULTS.ttlMs / 60_000} min per container)`,
    },
    ...backgroundParts(input),
  ];
  return { parts, total: parts.reduce((s, x) => s + x.dollars, 0), logBytesPerDelivery: logBytes };
}
