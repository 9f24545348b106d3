import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Deps, ProvidedDep, ProvidedTo } from '#app/deps.ts';
import type { EnvName, FunctionKey } from '#config/topology.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';
import type { documentClient } from '../dynamodb.ts';

export interface Clients {
  readonly dynamodb?: DynamoDBClient;
  readonly sqs?: SQSClient;
  readonly s3?: S3Client;
  readonly kms?: KMSClient;
  readonly ses?: SESv2Client;
  readonly lambda?: LambdaClient;
}

export interface BuildOptions {
  readonly clients?: Clients;
  readonly metrics: DeliveryMetrics;
  readonly clock?: Clock;
  /** How long fan-out may serve subscriptions from memory (ms). */
  readonly subscriptionCacheMs?: number;
  /** How long publish may check events against the event-type catalog it read (ms); default EVENT_TYPE_CATALOG_CACHE_MS. */
  readonly eventTypeCacheMs?: number;
  /** The local runtime's secrets key (local-key-secret-cipher.ts), used where HOOKLINE_SECRETS_*_KEY_ID is `local`. */
  readonly localSecretsKey?: Uint8Array;
  /** The local runtime's mail: an SMTP URL (HOOKLINE_SMTP_URL), else the catcher's folder; used where HOOKLINE_MAIL_TRANSPORT is `local`. */
  readonly localMail?: { readonly dir: string; readonly smtpUrl?: string };
}

/** Declared variables of one function, every one present (readFunctionEnv fills the defaults). */
export type Vars = Readonly<Record<EnvName, string>>;
/** What every factory of one build shares: one clock, one DynamoDB document client, the options. */
export interface Shared {
  readonly clock: Clock;
  readonly db: ReturnType<typeof documentClient>;
  readonly options: BuildOptions;
}

/** How one dependency is made from the variables PROVIDED_BY names for it. */
export type Factory<K extends ProvidedDep> = (v: Vars, s: Shared) => Deps[K];

/**
 * Factories for some dependencies. Each Lambda entry passes only the groups its function uses,
 * so its bundle carries only the SDK clients it calls (the archiver's S3, the sender's KMS).
 */
export type Factories<K extends ProvidedDep = ProvidedDep> = { readonly [D in K]: Factory<D> };
/** The factories function F must be given: one for every dependency its environment provides. */
export type FactoriesFor<F extends FunctionKey> = Factories<ProvidedTo<F>>;
