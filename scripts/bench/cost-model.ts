import { FUNCTIONS, type FunctionKey } from '#config/topology.ts';
import type { FunctionUsage } from './invocation-meter.ts';
import { API_REQUEST_PRICE, PRICES } from './prices.ts';
import type { Usage } from './sdk-meter.ts';

/**
 * The functions on a delivery's path, billed per delivery: the api's publish, the ingest function
 * (the ingest queue and the fan-out on the events stream), the sender. The scheduled ones
 * (sweeper, replay, notifier) run on a clock, not per delivery: the all-in prices them apart.
 */
export const PATH_FUNCTIONS = ['api', 'ingest', 'sender'] as const satisfies readonly FunctionKey[];

/** Per-delivery AWS usage of one measured run, and what it costs per million deliveries. */
export interface PerDelivery {
  readonly deliveries: number;
  /** Table write units as DynamoDB reported them, index write units as computed, refused conditional writes at 1 unit each. */
  readonly tableWrites: number;
  readonly indexWrites: number;
  readonly conditionFailures: number;
  readonly writeUnits: number;
  readonly readUnits: number;
  /** Read units of the subscription Scan fan-out makes per publish (cached 5 s per container on AWS; not cached locally). */
  readonly subscriptionScanReadUnits: number;
  /** Billed SQS requests (every 64 KB of payload counts one), idle receives left out. */
  readonly sqsRequests: number;
  readonly messagesPerReceive: number;
  readonly lambdaInvocations: number;
  readonly lambdaGbSeconds: number;
  /** Billed API Gateway requests (HTTP API: each 512 KB of a request counts one). */
  readonly apiRequests: number;
  readonly invocationsByFunction: Partial<Record<FunctionKey, number>>;
  readonly dollarsPerMillion: {
    readonly dynamodb: number;
    readonly sqs: number;
    readonly lambda: number;
    readonly apiGateway: number;
    readonly total: number;
  };
}

const SCAN_KEY = 'DynamoDB Scan hookline-subscriptions';

/**
 * Turns metered usage into per-delivery figures. Left out, and said so in the report: empty
 * receives (idle polling, a fixed cost per queue, not per delivery), the authorizer (API Gateway
 * caches its answer), and the subscription Scan (cached for 5 s per container on AWS). API
 * requests are priced as HTTP API requests unless another price is given.
 */
export function perDelivery(
  usage: Usage,
  lambdas: Partial<Record<FunctionKey, FunctionUsage>>,
  deliveries: number,
  apiRequests: number,
  apiRequestPrice: number = API_REQUEST_PRICE,
): PerDelivery {
  const calls = Object.entries(usage.calls);
  const dynamo = calls.filter(([k]) => k.startsWith('DynamoDB '));
  const sum = (list: typeof calls, pick: (c: (typeof calls)[number][1]) => number) =>
    list.reduce((s, [, c]) => s + pick(c), 0);
  // Manifests are kept as the event log until TTL (free) takes them; the sweeper, after the
  // metered window, only moves a per-shard watermark (at most 16 small writes a run, a fixed cost).
  const tableWrites = sum(dynamo, (c) => c.writeUnits);
  const indexWrites = sum(dynamo, (c) => c.indexWriteUnits);
  const scanReads = usage.calls[SCAN_KEY]?.readUnits ?? 0;
  const readUnits = sum(dynamo, (c) => c.readUnits) - scanReads;
  const sqsRequests = sum(
    calls.filter(([k]) => k.startsWith('SQS ')),
    (c) => c.billedRequests,
  );
  const invocations = PATH_FUNCTIONS.reduce((s, fn) => s + (lambdas[fn]?.invocations ?? 0), 0);
  const gbSeconds = PATH_FUNCTIONS.reduce(
    (s, fn) => s + ((lambdas[fn]?.totalMs ?? 0) / 1000) * (FUNCTIONS[fn].memorySize / 1024),
    0,
  );
  const per = (n: number) => n / deliveries;
  const writeUnits = per(tableWrites + indexWrites + usage.conditionFailures);
  const cost = {
    dynamodb: 1e6 * (writeUnits * PRICES.dynamodbWriteRequestUnit + per(readUnits) * PRICES.dynamodbReadRequestUnit),
    sqs: 1e6 * per(sqsRequests) * PRICES.sqsRequest,
    lambda: 1e6 * (per(invocations) * PRICES.lambdaRequest + per(gbSeconds) * PRICES.lambdaArmGbSecond),
    apiGateway: 1e6 * per(apiRequests) * apiRequestPrice,
  };
  return {
    deliveries,
    tableWrites: per(tableWrites),
    indexWrites: per(indexWrites),
    conditionFailures: per(usage.conditionFailures),
    writeUnits,
    readUnits: per(readUnits),
    subscriptionScanReadUnits: per(scanReads),
    sqsRequests: per(sqsRequests),
    messagesPerReceive: usage.receivesWithMessages ? usage.messagesReceived / usage.receivesWithMessages : 0,
    lambdaInvocations: per(invocations),
    lambdaGbSeconds: per(gbSeconds),
    apiRequests: per(apiRequests),
    invocationsByFunction: Object.fromEntries(PATH_FUNCTIONS.map((fn) => [fn, per(lambdas[fn]?.invocations ?? 0)])),
    dollarsPerMillion: { ...cost, total: cost.dynamodb + cost.sqs + cost.lambda + cost.apiGateway },
  };
}

/** EventBridge API destinations: one $1/M event fanned out to `fanOut` targets, each attempt a $0.20/M invocation (retries assumed billed). */
export function eventBridgePerMillion(fanOut: number, attempts: number): number {
  return 1e6 * (PRICES.eventBridgeEvent / fanOut + attempts * PRICES.eventBridgeApiDestinationInvocation);
}

/** How the events reach Hookline: one HTTP request each, HTTP requests of many events, or the ingest queue. */
export type PublishPath = 'http' | 'http-batch' | 'sqs';

/**
 * The straightforward design, modelled with the same prices: per delivery a delivery record
 * carrying the 1 KB body (2 WRU), an attempt record (1 WRU) and a state update (2 WRU), one
 * consistent read (1 RRU); one SQS send, then a receive and delete per attempt, one Lambda invocation per
 * attempt (batch size 1) with the same GB-seconds per attempt as measured here; the publish as
 * one API Gateway request and one Lambda invocation per `eventsPerRequest` events (or one SQS
 * send, receive and delete and one invocation per event).
 */
export function naivePerMillion(
  fanOut: number,
  attempts: number,
  gbSecondsPerAttempt: number,
  publish: PublishPath,
  eventsPerRequest = 1,
  apiRequestPrice: number = API_REQUEST_PRICE,
): number {
  const writeUnits = 2 + attempts * (1 + 2);
  const readUnits = attempts;
  const sqs = 1 + attempts * 2 + (attempts - 1);
  const publishes = publish === 'sqs' ? 1 / fanOut : 1 / (fanOut * eventsPerRequest);
  const invocations = attempts + publishes;
  return (
    1e6 *
    (writeUnits * PRICES.dynamodbWriteRequestUnit +
      readUnits * PRICES.dynamodbReadRequestUnit +
      sqs * PRICES.sqsRequest +
      invocations * PRICES.lambdaRequest +
      attempts * gbSecondsPerAttempt * PRICES.lambdaArmGbSecond +
      (publish === 'sqs' ? 3 * PRICES.sqsRequest * publishes : apiRequestPrice * publishes))
  );
}
