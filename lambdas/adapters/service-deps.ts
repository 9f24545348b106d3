import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SenderDeps, ServiceDeps } from '#app/deps.ts';
import { parseFlag, parsePositiveInt, parseRetryPolicyEnv, readFunctionEnv, type Env } from '#config/env.ts';
import { MissingEnvironmentError } from '#config/errors.ts';
import type { EnvName, FunctionKey } from '#config/topology.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';
import { DnsHostResolver } from './dns-host-resolver.ts';
import { DynamoDbAttemptStore } from './dynamodb-attempt-store.ts';
import { DynamoDbDeliveryStore } from './dynamodb-delivery-store.ts';
import { documentClient } from './dynamodb.ts';
import { DynamoDbEventStore } from './dynamodb-event-store.ts';
import { DynamoDbSubscriptionStore } from './dynamodb-subscription-store.ts';
import { NodeHttpSender } from './node-http-sender.ts';
import { autoPausePolicy } from './policy-env.ts';
import { SqsDeliveryQueue } from './sqs-delivery-queue.ts';
import { systemClock } from './system-clock.ts';

export interface Clients {
  readonly dynamodb?: DynamoDBClient;
  readonly sqs?: SQSClient;
  readonly s3?: S3Client;
}

export interface BuildOptions {
  readonly clients?: Clients;
  readonly metrics: DeliveryMetrics;
  readonly clock?: Clock;
  /** How long fan-out may serve subscriptions from memory (ms). */
  readonly subscriptionCacheMs?: number;
}

/** A store this function's environment does not configure: any use names the missing variable. */
export function notConfigured<T extends object>(variable: EnvName, fn: FunctionKey): T {
  return new Proxy({} as T, {
    get: () => () => Promise.reject(new MissingEnvironmentError(variable, fn)),
  });
}

/**
 * Builds the service dependencies of one function from its declared environment only
 * (topology.ts). Both wiring points call this: the Lambda entries with default clients, the
 * local runtime with clients pointed at its emulators.
 */
export function buildServiceDeps(fn: FunctionKey, env: Env, options: BuildOptions): ServiceDeps {
  const vars = readFunctionEnv(fn, env) as Partial<Record<EnvName, string>>;
  const clock = options.clock ?? systemClock;
  const db = documentClient(options.clients?.dynamodb);
  const table = <T extends object>(name: EnvName, make: (table: string) => T): T =>
    vars[name] ? make(vars[name]!) : notConfigured<T>(name, fn);
  return {
    subscriptions: table('SUBSCRIPTIONS_TABLE', (t) => new DynamoDbSubscriptionStore(db, t, options.subscriptionCacheMs ?? 5000, clock.now)),
    events: table('EVENTS_TABLE', (t) => new DynamoDbEventStore(db, t)),
    deliveries: table('DELIVERIES_TABLE', (t) => new DynamoDbDeliveryStore(db, t, clock.now)),
    attempts: table('ATTEMPTS_TABLE', (t) => new DynamoDbAttemptStore(db, t)),
    queue: table('DELIVERY_QUEUE_URL', (url) => new SqsDeliveryQueue(options.clients?.sqs ?? new SQSClient({}), url)),
    clock,
    metrics: options.metrics,
    defaultRetryPolicy: parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', env.HOOKLINE_DEFAULT_RETRY_POLICY ?? '{}'),
    allowPrivateTargets: vars.HOOKLINE_ALLOW_PRIVATE_TARGETS ? parseFlag('HOOKLINE_ALLOW_PRIVATE_TARGETS', vars.HOOKLINE_ALLOW_PRIVATE_TARGETS) : false,
    resolver: new DnsHostResolver(),
  };
}

export function buildSenderDeps(env: Env, options: BuildOptions): SenderDeps {
  const base = buildServiceDeps('sender', env, options);
  const vars = readFunctionEnv('sender', env);
  return {
    ...base,
    http: new NodeHttpSender({ allowPrivate: base.allowPrivateTargets, userAgent: 'Hookline/0.1 (+webhooks)' }, base.clock.now),
    attemptTimeoutMs: parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', vars.HOOKLINE_SENDER_TIMEOUT_MS),
    autoPause: autoPausePolicy(vars.HOOKLINE_AUTO_PAUSE_SECONDS),
  };
}

export function sweepGraceSeconds(env: Env): number {
  return parsePositiveInt('HOOKLINE_SWEEP_GRACE_SECONDS', readFunctionEnv('sweeper', env).HOOKLINE_SWEEP_GRACE_SECONDS);
}
