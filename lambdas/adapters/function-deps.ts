import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { PROVIDED_BY, type Deps, type FunctionDeps, type ProvidedDep } from '#app/deps.ts';
import { InvalidPolicyError } from '#domain/errors.ts';
import { parseAllowedPorts, type PortRanges } from '#domain/target-ports.ts';
import { parseFlag, parsePositiveInt, parseRetryPolicyEnv, readFunctionEnv, type Env } from '#config/env.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import type { EnvName, FunctionKey } from '#config/topology.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';
import { DnsHostResolver } from './dns-host-resolver.ts';
import { DynamoDbApiKeyStore } from './dynamodb-api-key-store.ts';
import { DynamoDbArchiveManifestStore } from './dynamodb-archive-manifest-store.ts';
import { DynamoDbAttemptStore } from './dynamodb-attempt-store.ts';
import { DynamoDbDeliveryStore } from './dynamodb-delivery-store.ts';
import { DynamoDbEventStore } from './dynamodb-event-store.ts';
import { DynamoDbRateLimiter } from './dynamodb-rate-limiter.ts';
import { DynamoDbRecoveryStore } from './dynamodb-recovery-store.ts';
import { DynamoDbReplayStore } from './dynamodb-replay-store.ts';
import { DynamoDbSubscriptionStore } from './dynamodb-subscription-store.ts';
import { documentClient } from './dynamodb.ts';
import { KmsSecretOpener, KmsSecretSealer } from './kms-secret-cipher.ts';
import { LocalKeySecretCipher } from './local-key-secret-cipher.ts';
import { NodeHttpSender } from './node-http-sender.ts';
import { POLICIES_FROM_ENV } from './policy-env.ts';
import { S3Archive } from './s3-archive.ts';
import { SqsDeliveryQueue } from './sqs-delivery-queue.ts';
import { systemClock } from './system-clock.ts';

export interface Clients {
  readonly dynamodb?: DynamoDBClient;
  readonly sqs?: SQSClient;
  readonly s3?: S3Client;
  readonly kms?: KMSClient;
}

/** The value of HOOKLINE_SECRETS_*_KEY_ID that means "the local key file", never a KMS key. */
export const LOCAL_SECRETS_KEY_ID = 'local';

export interface BuildOptions {
  readonly clients?: Clients;
  readonly metrics: DeliveryMetrics;
  readonly clock?: Clock;
  /** How long fan-out may serve subscriptions from memory (ms). */
  readonly subscriptionCacheMs?: number;
  /** The local runtime's secrets key (local-key-secret-cipher.ts), used where HOOKLINE_SECRETS_*_KEY_ID is `local`. */
  readonly localSecretsKey?: Uint8Array;
}

const USER_AGENT = 'Hookline/0.1 (+webhooks)';

/** Declared variables of one function, every one present (readFunctionEnv fills the defaults). */
type Vars = Readonly<Record<EnvName, string>>;
type Shared = { readonly clock: Clock; readonly db: ReturnType<typeof documentClient>; readonly options: BuildOptions };

/** How each dependency is made from the variables PROVIDED_BY names for it. */
const MAKE: { readonly [K in ProvidedDep]: (v: Vars, s: Shared) => Deps[K] } = {
  subscriptions: (v, s) => new DynamoDbSubscriptionStore(s.db, v.SUBSCRIPTIONS_TABLE, s.options.subscriptionCacheMs ?? 5000, s.clock.now),
  events: (v, s) => new DynamoDbEventStore(s.db, v.EVENTS_TABLE),
  deliveries: (v, s) => new DynamoDbDeliveryStore(s.db, v.DELIVERIES_TABLE, s.clock.now),
  attempts: (v, s) => new DynamoDbAttemptStore(s.db, v.ATTEMPTS_TABLE),
  queue: (v, s) => new SqsDeliveryQueue(s.options.clients?.sqs ?? new SQSClient({}), v.DELIVERY_QUEUE_URL),
  replays: (v, s) => new DynamoDbReplayStore(s.db, v.REPLAYS_TABLE),
  // The recovery store also reads attempts and events when the function has those tables (the archiver).
  recovery: (v, s) =>
    new DynamoDbRecoveryStore(s.db, { deliveries: v.DELIVERIES_TABLE, ...(v.ATTEMPTS_TABLE ? { attempts: v.ATTEMPTS_TABLE } : {}), ...(v.EVENTS_TABLE ? { events: v.EVENTS_TABLE } : {}) }, s.clock.now),
  rateLimiter: (v, s) => new DynamoDbRateLimiter(s.db, v.RATE_LIMITS_TABLE),
  apiKeys: (v, s) => new DynamoDbApiKeyStore(s.db, v.API_KEYS_TABLE),
  archive: (v, s) => new S3Archive(s.options.clients?.s3 ?? new S3Client({}), v.ARCHIVE_BUCKET),
  manifests: (v, s) => new DynamoDbArchiveManifestStore(s.db, v.ARCHIVE_BATCHES_TABLE),
  http: (v, s) => new NodeHttpSender({ allowPrivate: MAKE.allowPrivateTargets(v, s), allowedPorts: MAKE.allowedPorts(v, s), userAgent: USER_AGENT }, s.clock.now),
  attemptTimeoutMs: (v) => parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', v.HOOKLINE_SENDER_TIMEOUT_MS),
  defaultRetryPolicy: (v) => parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', v.HOOKLINE_DEFAULT_RETRY_POLICY),
  allowPrivateTargets: (v) => parseFlag('HOOKLINE_ALLOW_PRIVATE_TARGETS', v.HOOKLINE_ALLOW_PRIVATE_TARGETS),
  allowedPorts: (v) => allowedPortsFromEnv('HOOKLINE_ALLOWED_PORTS', v.HOOKLINE_ALLOWED_PORTS),
  secretSealer: (v, s) => secretsCipher('HOOKLINE_SECRETS_SEAL_KEY_ID', v, s, (kms, keyId) => new KmsSecretSealer(kms, keyId)),
  secretOpener: (v, s) => secretsCipher('HOOKLINE_SECRETS_OPEN_KEY_ID', v, s, (kms, keyId) => new KmsSecretOpener(kms, keyId)),
  ...POLICIES_FROM_ENV,
};

/** The local key where the variable says `local` (and the local runtime gave one), else KMS envelope encryption under that key. */
function secretsCipher<T>(name: EnvName, v: Vars, s: Shared, kms: (client: KMSClient, keyId: string) => T): T | LocalKeySecretCipher {
  const keyId = v[name];
  if (keyId !== LOCAL_SECRETS_KEY_ID) return kms(s.options.clients?.kms ?? new KMSClient({}), keyId);
  if (!s.options.localSecretsKey) throw new InvalidEnvironmentError(name, `is '${LOCAL_SECRETS_KEY_ID}' but no local secrets key was given (only the local runtime has one)`);
  return new LocalKeySecretCipher(s.options.localSecretsKey);
}

/** The domain's port list from a variable; a refusal names the variable. */
function allowedPortsFromEnv(name: EnvName, value: string): PortRanges {
  try {
    return parseAllowedPorts(value);
  } catch (error) {
    if (!(error instanceof InvalidPolicyError)) throw error;
    throw new InvalidEnvironmentError(name, error.rule, { cause: error });
  }
}

/** The dependencies function `fn`'s declared environment provides (what FunctionDeps<fn> names). */
export function providedTo(fn: FunctionKey, env: Env = {}): readonly ProvidedDep[] {
  const declared = new Set<string>(Object.keys(readDeclared(fn, env)));
  return (Object.keys(PROVIDED_BY) as ProvidedDep[]).filter((dep) => PROVIDED_BY[dep].every((name) => declared.has(name)));
}

function readDeclared(fn: FunctionKey, env: Env): Vars {
  return readFunctionEnv(fn, env) as unknown as Vars;
}

/**
 * Builds exactly what function `fn` can use, from its declared environment only
 * (topology.ts), with one DynamoDB client. Both wiring points call this: the Lambda entries
 * with default clients, the local runtime with clients pointed at its emulators. A dependency
 * the environment does not provide is absent, in the type as at run time.
 */
export function buildDeps<F extends FunctionKey>(fn: F, env: Env, options: BuildOptions): FunctionDeps<F> {
  const vars = readDeclared(fn, env);
  const shared: Shared = { clock: options.clock ?? systemClock, db: documentClient(options.clients?.dynamodb), options };
  const provided = Object.fromEntries(providedTo(fn, env).map((dep) => [dep, MAKE[dep](vars, shared)]));
  return { ...provided, clock: shared.clock, metrics: options.metrics, resolver: new DnsHostResolver() } as unknown as FunctionDeps<F>;
}

export function sweepGraceSeconds(env: Env): number {
  return parsePositiveInt('HOOKLINE_SWEEP_GRACE_SECONDS', readFunctionEnv('sweeper', env).HOOKLINE_SWEEP_GRACE_SECONDS);
}
