import { S3Client } from '@aws-sdk/client-s3';
import type { OperatorDeps } from '#app/deps.ts';
import { readFunctionEnv, type Env } from '#config/env.ts';
import type { EnvName, FunctionKey } from '#config/topology.ts';
import { DynamoDbApiKeyStore } from './dynamodb-api-key-store.ts';
import { DynamoDbArchiveManifestStore } from './dynamodb-archive-manifest-store.ts';
import { DynamoDbRateLimiter } from './dynamodb-rate-limiter.ts';
import { DynamoDbRecoveryStore } from './dynamodb-recovery-store.ts';
import { DynamoDbReplayStore } from './dynamodb-replay-store.ts';
import { documentClient } from './dynamodb.ts';
import { recoveryPolicies } from './policy-env.ts';
import { S3Archive } from './s3-archive.ts';
import { buildServiceDeps, notConfigured, type BuildOptions } from './service-deps.ts';

/**
 * The delivery engine's dependencies plus the recovery ones, for the functions operators use
 * (api, replay, archiver), from the function's declared environment only. A store the
 * environment does not configure fails on first use, naming the missing variable.
 */
export function buildOperatorDeps(fn: FunctionKey, env: Env, options: BuildOptions): OperatorDeps {
  const base = buildServiceDeps(fn, env, options);
  const vars = readFunctionEnv(fn, env) as Partial<Record<EnvName, string>>;
  const db = documentClient(options.clients?.dynamodb);
  const table = <T extends object>(name: EnvName, make: (value: string) => T): T => (vars[name] ? make(vars[name]!) : notConfigured<T>(name, fn));
  return {
    ...base,
    replays: table('REPLAYS_TABLE', (t) => new DynamoDbReplayStore(db, t)),
    recovery: table('DELIVERIES_TABLE', (t) =>
      new DynamoDbRecoveryStore(db, { deliveries: t, ...(vars.ATTEMPTS_TABLE ? { attempts: vars.ATTEMPTS_TABLE } : {}), ...(vars.EVENTS_TABLE ? { events: vars.EVENTS_TABLE } : {}) }, base.clock.now),
    ),
    rateLimiter: table('RATE_LIMITS_TABLE', (t) => new DynamoDbRateLimiter(db, t)),
    apiKeys: table('API_KEYS_TABLE', (t) => new DynamoDbApiKeyStore(db, t)),
    archive: table('ARCHIVE_BUCKET', (bucket) => new S3Archive(options.clients?.s3 ?? new S3Client({}), bucket)),
    manifests: table('ARCHIVE_BATCHES_TABLE', (t) => new DynamoDbArchiveManifestStore(db, t)),
    policies: recoveryPolicies(vars),
  };
}
