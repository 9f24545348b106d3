import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  ARCHIVE_LIFECYCLE_DEFAULTS,
  BUCKETS,
  DEFAULT_SECRETS_CACHE_SECONDS,
  DEFAULT_SENDER_TIMEOUT_MS,
  FUNCTIONS,
  OBSERVABILITY_DEFAULTS,
  QUEUES,
  type ApiAccessLogFormat,
  type FunctionKey,
  type LogLevelName,
  type PointInTimeRecovery,
  type PlatformLogLevelName,
  type TableKey,
} from '../lambdas/config/topology.ts';
import { baseDelaySeconds } from '../lambdas/domain/backoff.ts';
import { resolveArchivePolicy } from '../lambdas/domain/archive.ts';
import { resolveAutoPausePolicy } from '../lambdas/domain/auto-pause.ts';
import { isEmailAddress, resolveNoticePolicy } from '../lambdas/domain/notices.ts';
import { resolvePauseLimit, resolveRateLimit } from '../lambdas/domain/rate-limit.ts';
import { resolveReplayPolicy } from '../lambdas/domain/replay.ts';
import { DEFAULT_RETENTION } from '../lambdas/domain/retention.ts';
import { resolveRetryPolicy, type RetryPolicy } from '../lambdas/domain/retry-policy.ts';
import { SLOW_LANE } from '../lambdas/domain/slow-lane.ts';
import { DEFAULT_ALLOWED_PORTS, formatPorts, parseAllowedPorts } from '../lambdas/domain/target-ports.ts';
import {
  DEFAULT_EVENT_TYPE_CHECK,
  EVENT_TYPE_CHECKS,
  isEventTypeCheck,
  type EventTypeCheck,
} from '../lambdas/domain/event-type-catalog.ts';
import { InvalidPolicyError } from '../lambdas/domain/errors.ts';
import { HooklineAlarms, type DeadLetterAlarmOptions, type LambdaAlarmSettings } from './constructs/alarms.ts';
import { HooklineDashboard } from './constructs/dashboard.ts';
import { HooklineApi, type ApiAuth, type ApiThrottling, type ApiType } from './constructs/api.ts';
import { ArchiveBucket } from './constructs/archive.ts';
import { DeliveryArchiver } from './constructs/archiver.ts';
import { validateReservedConcurrency, type ReservedConcurrency } from './constructs/concurrency.ts';
import { DEFAULT_LOG_RETENTION } from './constructs/hookline-function.ts';
import type { EnvironmentValues } from './constructs/environment.ts';
import type { FunctionConstructProps, SharedFunctionOptions } from './constructs/function-options.ts';
import { EventIngest } from './constructs/ingest.ts';
import { HooklineQueues } from './constructs/queues.ts';
import { DeliveryReplay } from './constructs/replay.ts';
import { HooklineSchedules } from './constructs/schedules.ts';
import { DeliverySender } from './constructs/sender.ts';
import { StaticEgress, type StaticEgressProps } from './constructs/static-egress.ts';
import { SigningSecretsKey } from './constructs/secrets-key.ts';
import { HooklineStorage } from './constructs/storage.ts';
import { DeliverySweeper } from './constructs/sweeper.ts';
import { FailureNotifier } from './constructs/notifier.ts';
import { InvalidPropError, ReservedConcurrencyError } from './errors.ts';

/** How long finished deliveries stay queryable in DynamoDB, and how long their archive is kept in S3. */
export interface RetentionProps {
  /** Days a delivered delivery stays in DynamoDB before TTL deletes it (or, with `archiveDelivered`, it is archived). @default 30 */
  readonly deliveredDays?: number;
  /**
   * Archive delivered deliveries to S3 after `deliveredDays`, where a restore can bring them back
   * (HOOKLINE_ARCHIVE_DELIVERED). Off, DynamoDB TTL deletes them then, for free: the archiver's
   * read-then-delete of a row costs about $1.10 per million deliveries. Dead letters are always
   * archived. @default false
   */
  readonly archiveDelivered?: boolean;
  /** Days a dead letter (failed/expired) stays visible and replayable before it is archived. @default 90 */
  readonly deadLetterDays?: number;
  /** Days after archiving an archive object moves to Glacier Instant Retrieval. @default 30 */
  readonly archiveColdAfterDays?: number;
  /** Days after archiving an archive object is deleted. @default 365 */
  readonly archiveExpireAfterDays?: number;
}

export type ResolvedRetention = Required<RetentionProps>;

/** Bulk replay, customer resends, auto-pause and archive settings (docs/operations.md). Unset: the topology defaults. */
export interface RecoveryProps {
  /** Spread of a bulk replay's re-attempts (whole seconds, at most a day). @default 5 minutes */
  readonly replayWindow?: Duration;
  /** Replays a tenant key may make per subscription per minute (429 beyond). @default 100 */
  readonly customerReplaysPerMinute?: number;
  /** Pauses and resumes (together) a tenant key may make per subscription per hour (429 beyond). @default 10 */
  readonly customerPausesPerHour?: number;
  /** Continuous dead-lettering after which a subscription is paused. @default 24 hours */
  readonly autoPauseAfter?: Duration;
  /** Most deliveries per archive object (1-2000). @default 1000 */
  readonly archiveBatchSize?: number;
  /** How long restored deliveries stay in DynamoDB. @default 7 days */
  readonly restoreHold?: Duration;
}

/**
 * Per-subscription failure notices (docs/operations.md, "Failure notices and operational
 * webhooks"). Emails go through Amazon SES from `emailIdentity`; operational webhooks go to any
 * producer-owned subscription of `hookline.subscription.*` / `hookline.replay.*` whatever is set here.
 */
export interface NoticeProps {
  /**
   * A verified SES identity (a domain such as `example.com`, or an address) notice emails are
   * sent from; the notifier may `ses:SendEmail` from it and nothing else.
   * @default none: no email, notices go as operational webhooks only
   */
  readonly emailIdentity?: string;
  /** The From address. @default `notices@<emailIdentity>` for a domain identity, the identity itself for an address */
  readonly fromAddress?: string;
  /** The producer's support address: every notice goes to it too. @default none */
  readonly supportEmail?: string;
  /**
   * The web dashboard notices link to for a subscription's dead letters
   * (`<consoleUrl>#/subscriptions/<id>?tab=dead-letters`) and customer portal links open
   * (`<consoleUrl>#portal=…`), when it is served elsewhere (a custom domain, a base path).
   * @default the API's own dashboard: `consoleUrl` of this construct for notices, the URL the mint request came in on for portal links
   */
  readonly consoleUrl?: string;
  /** How long a subscription has been failing at the first notice. @default 1 hour */
  readonly firstAfter?: Duration;
  /** …and at the second. @default 24 hours */
  readonly secondAfter?: Duration;
  /** How long before the oldest pending delivery's retry deadline the "expiring" notice goes. @default 6 hours */
  readonly beforeExpiry?: Duration;
  /** The lost summary's latest time after the streak's first retry deadline (it goes sooner once nothing is left to retry). @default 1 hour */
  readonly lostAfter?: Duration;
  /** Send a "recovered" notice when a 2xx ends a streak someone was told about. @default true */
  readonly recovered?: boolean;
}

export interface WebhookDeliveryProps {
  /**
   * Deployment-wide retry default, merged over the built-in policy (10 s doubling to 1 h,
   * ±20 % jitter, 72 h deadline) and passed to the handlers as HOOKLINE_DEFAULT_RETRY_POLICY.
   * Subscriptions may still override it. Validated at synth time with the domain's own rules.
   * @default {} (the built-in policy)
   */
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** @default delivered 30 days, dead letters 90 days, archive cold after 30 and deleted after 365 days */
  readonly retention?: RetentionProps;
  /** @default replay window 5 minutes, 100 customer replays a minute, 10 customer pauses/resumes an hour, auto-pause after 24 h, 1000 deliveries per archive object, restores kept 7 days */
  readonly recovery?: RecoveryProps;
  /** @default no email (operational webhooks only), notices after 1 h and 24 h of failing and 6 h before expiry, recovered notices on */
  readonly notices?: NoticeProps;
  /** The `WebhookDLQRateHigh` alarm: a preset (`default` or `low-volume`) and/or explicit threshold, period, evaluation. */
  readonly deadLetterAlarm?: DeadLetterAlarmOptions;
  /** Sender errors alarm settings. @default at least 5 in 5 minutes */
  readonly senderErrorsAlarm?: Partial<LambdaAlarmSettings>;
  /** Sender throttles alarm settings. @default at least 1 in each of 2 consecutive 5-minute periods */
  readonly senderThrottlesAlarm?: Partial<LambdaAlarmSettings>;
  /** Email address subscribed to the on-call topic. @default no subscription */
  readonly onCallEmail?: string;
  /** `DeliveryQueueStuck`: how old the oldest not-yet-retried delivery message may get. @default 15 minutes */
  readonly deliveryQueueMaxAge?: Duration;
  /** `ApiServerErrors`: the 5xx share of API requests (%) that pages. @default 5 */
  readonly apiServerErrorPercent?: number;
  /** Name of the CloudWatch dashboard. @default `${stackName}-Hookline` */
  readonly dashboardName?: string;
  /**
   * Send webhooks from fixed addresses receivers can allow-list: the sender runs in a VPC
   * behind NAT gateways with Elastic IPs (NAT hours and per-GB processing are billed; see
   * docs/aws.md). @default off: the sender uses Lambda's shared, changing addresses
   */
  readonly staticEgress?: StaticEgressProps;
  /** Prefix of every alarm name. @default `${stackName}-` */
  readonly alarmNamePrefix?: string;
  /**
   * `url` (the api function's Lambda Function URL, no per-request charge; the api checks keys
   * itself), `http` (API Gateway HTTP API, $1.00 per million requests) or `rest` (REST API, $3.50
   * per million; needed for `webAclArn`). @default 'url'
   */
  readonly apiType?: ApiType;
  /** `bearer` (admin key in Secrets Manager, checked by the api or a Lambda authorizer) or `iam` (SigV4). @default 'bearer' */
  readonly apiAuth?: ApiAuth;
  /** API Gateway stage throttling (`apiType` `http` or `rest`). @default 100 requests/s, burst 200 */
  readonly apiThrottling?: ApiThrottling;
  /** Regional WAFv2 web ACL to associate with the API stage. Needs `apiType: 'rest'`. */
  readonly webAclArn?: string;
  /** Create the account-level API Gateway CloudWatch role (REST only). @default true */
  readonly createApiGatewayCloudWatchRole?: boolean;
  /** Cap on concurrent sender batches, i.e. on parallel outbound POSTs / 10. @default 20 (EVENT_SOURCES) */
  readonly senderMaxConcurrency?: number;
  /**
   * Cap on concurrent sender batches from the slow lane, where the deliveries of endpoints that
   * just timed out or answered slowly go (docs/design.md, "Slow endpoints"), in addition to
   * `senderMaxConcurrency`. @default a quarter of `senderMaxConcurrency`, at least 10 (slowLaneMaxConcurrencyFor)
   */
  readonly senderSlowLaneMaxConcurrency?: number;
  /** Cap on concurrent ingest batches. @default 5 (EVENT_SOURCES) */
  readonly ingestMaxConcurrency?: number;
  /**
   * Lambda reserved concurrency by function, e.g. `{ api: 100, authorizer: 20, sender: 30 }`: each
   * is set aside for its function and caps it, so an API burst cannot take the sender's concurrency
   * (the sender's own caps are `senderMaxConcurrency` and `senderSlowLaneMaxConcurrency`). The
   * sender's and ingest's must be at least the sum of their mappings' caps. Lambda refuses reservations that leave under 100 of the account's quota
   * unreserved, so check `aws lambda get-account-settings` first (docs/aws.md, "Reserved concurrency").
   * @default none on any function (RESERVED_CONCURRENCY_DEFAULTS)
   */
  readonly reservedConcurrency?: ReservedConcurrency;
  /**
   * How long a container reuses a subscription's decrypted signing-key data key
   * (HOOKLINE_SECRETS_CACHE_SECONDS): one KMS Decrypt ($0.03 per 10,000) per subscription per
   * container per this, and how long signing goes on after the key's grant is revoked. A rotated
   * secret is a new data key and takes effect within seconds either way. At most 24 h.
   * @default 1 hour (DEFAULT_SECRETS_CACHE_SECONDS)
   */
  readonly secretsCacheTtl?: Duration;
  /** Per-attempt HTTP timeout of the sender (HOOKLINE_SENDER_TIMEOUT_MS). @default 15 seconds */
  readonly senderTimeout?: Duration;
  /**
   * How long an attempt may go unanswered before its subscription moves to the slow lane for
   * 10 minutes (HOOKLINE_SLOW_LANE_AFTER_MS; docs/design.md, "Slow endpoints"); half the
   * `senderTimeout` when that is shorter. `Duration.millis(0)` turns the slow lane off.
   * @default 5 seconds
   */
  readonly senderSlowAfter?: Duration;
  /**
   * Destination ports subscription URLs may use, e.g. `'443'` or `'80,443,8000-8999'`
   * (HOOKLINE_ALLOWED_PORTS), checked when a subscription is created and at every send.
   * Validated at synth time. @default '80,443,1024-65535'
   */
  readonly allowedTargetPorts?: string;
  /**
   * What publish (the api and ingest functions) does with an event whose type is not in the
   * event-type catalog, or whose payload its type's JSON Schema refuses
   * (HOOKLINE_EVENT_TYPE_CHECK; docs/design.md, "The event-type catalog"): `allow` publishes it
   * and never reads the catalog; `warn` publishes it with `warnings` in the answer (the ingest
   * queue logs them); `refuse` answers 400 naming `type` or `payload` (an ingest message goes to
   * the redrive queue). Either of the two reads the catalog once per container every 30 s and
   * validates each payload with a schema. @default 'allow'
   */
  readonly eventTypeCheck?: EventTypeCheck;
  /**
   * Which DynamoDB tables keep point-in-time recovery (35 days restorable), at $0.20 per GB-month
   * on top of the $0.25 of storage: about $0.24 per million first-try deliveries at the default
   * retention (docs/aws.md, "What observability costs"). `configuration` keeps it on the tables
   * that hold the configuration (subscriptions, routes, keys, the keyring, event types, replays,
   * notices) and drops it from the traffic tables (events, deliveries, attempts, manifests, rate
   * and idempotency records), nearly all of the storage: those hold at most their retention, and
   * dead letters go to the archive bucket after theirs. `none` drops it everywhere.
   * @default 'all'
   */
  readonly pointInTimeRecovery?: PointInTimeRecovery;
  /** Retention of every function log group and the API access logs. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /**
   * X-Ray active tracing on the functions (and the REST stage). Lambda records 1 invocation a
   * second and 5 % of the rest, at $5.00 per million traces: about $0.30 per million deliveries
   * over the ingest queue and $1.50 over single HTTP publishes at 10 million a month (docs/aws.md,
   * "What observability costs"). @default false
   */
  readonly tracing?: boolean;
  /**
   * Powertools' level (and Lambda's application log level) on every function. `WARN` logs what
   * went wrong; `INFO` adds the sender's record per attempt, for Logs Insights by subscription
   * and the DeliveryAttempts metric: about 0.85 KB an attempt, $0.42 per million. @default 'WARN'
   */
  readonly logLevel?: LogLevelName;
  /**
   * Lambda's own records: `WARN` drops the START, END and REPORT lines of every invocation
   * (about 0.25 KB each, $0.14 per million single HTTP publishes); `INFO` keeps them. Duration
   * and memory stay in the Lambda metrics either way. @default 'WARN'
   */
  readonly platformLogLevel?: PlatformLogLevelName;
  /**
   * The HTTP API's access log record: `lean` (request id, caller IP, route, status, latency,
   * errors; about 170 B, $0.08 per million requests) or `standard` (the REST stage's standard
   * fields, about 320 B). @default 'lean'
   */
  readonly apiAccessLog?: ApiAccessLogFormat;
  /**
   * What happens to tables, buckets, log groups, the topic key and the admin-key secret when
   * they leave the stack (queues are always deleted: DynamoDB holds every delivery's state,
   * and the sweeper re-enqueues what a lost message carried). RETAIN (with DynamoDB deletion protection) for real deployments;
   * DESTROY only for throwaway test stacks.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * Hookline, whole: storage, queues, the ingest/sender/sweeper/API functions, schedules,
 * the archive bucket and on-call alarms, built from `lambdas/config/topology.ts`.
 *
 * ```ts
 * const hookline = new WebhookDelivery(this, 'Webhooks', { onCallEmail: 'oncall@example.com' });
 * hookline.grantPublish(orderService.role); // producers SendMessage to the ingest queue
 * ```
 */
export class WebhookDelivery extends Construct {
  readonly storage: HooklineStorage;
  readonly tables: Readonly<Record<TableKey, dynamodb.ITable>>;
  readonly queues: HooklineQueues;
  /** Producers publish `{id?, type, payload}` messages here. */
  readonly ingestQueue: sqs.IQueue;
  readonly deliveryQueue: sqs.IQueue;
  readonly ingestRedriveQueue: sqs.IQueue;
  readonly deliveryRedriveQueue: sqs.IQueue;
  /** Every deployed function by its FUNCTIONS key (`authorizer` only with bearer auth). */
  readonly functions: Readonly<Partial<Record<FunctionKey, lambda.IFunction>>>;
  readonly api: HooklineApi;
  readonly archive: ArchiveBucket;
  /** The operators' replay function (single, bulk, audit trail). */
  readonly replay: DeliveryReplay;
  /** The daily archiver (and on-demand restore). */
  readonly archiver: DeliveryArchiver;
  readonly alarms: HooklineAlarms;
  /** The KMS key that seals signing secrets: the api may seal, the sender may open, nobody else. */
  readonly secretsKey: SigningSecretsKey;
  readonly dashboard: HooklineDashboard;
  /** The failure notices' scheduled function. */
  readonly notifier: FailureNotifier;
  /**
   * A managed policy a producer's role attaches to publish and do nothing else: SendMessage on
   * the ingest queue, and with `apiAuth: 'iam'` the `POST /v1/events` routes of the API.
   */
  readonly producerPolicy: iam.ManagedPolicy;
  /** The sender's VPC and Elastic IPs, when `staticEgress` is set. */
  readonly staticEgress?: StaticEgress;
  /** The on-call SNS topic every alarm notifies. */
  readonly topic: sns.ITopic;
  /** The deployment-wide retry default after merging and validation. */
  readonly retryPolicy: RetryPolicy;
  readonly retention: ResolvedRetention;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.retryPolicy = validateRetryPolicy(props.retryPolicy);
    this.retention = resolveRetention(props.retention);
    const senderTimeoutMs = validateSenderTimeout(props.senderTimeout);
    const reservedConcurrency = validateReservedConcurrency(props.reservedConcurrency);
    const functionOptions: SharedFunctionOptions = {
      logRetention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      logRemovalPolicy: removalPolicy,
      tracing: props.tracing ?? OBSERVABILITY_DEFAULTS.tracing,
      logLevel: props.logLevel ?? OBSERVABILITY_DEFAULTS.logLevel,
      platformLogLevel: props.platformLogLevel ?? OBSERVABILITY_DEFAULTS.platformLogLevel,
    };

    this.storage = new HooklineStorage(this, 'Storage', {
      removalPolicy,
      ...(props.pointInTimeRecovery ? { pointInTimeRecovery: props.pointInTimeRecovery } : {}),
    });
    this.tables = this.storage.tables;
    this.secretsKey = new SigningSecretsKey(this, 'SigningSecrets', { removalPolicy });
    this.queues = new HooklineQueues(this, 'Queues');
    this.ingestQueue = this.queues.ingest.queue;
    this.deliveryQueue = this.queues.delivery.queue;
    this.ingestRedriveQueue = this.queues.ingest.redriveQueue;
    this.deliveryRedriveQueue = this.queues.delivery.redriveQueue;
    this.archive = new ArchiveBucket(this, 'Archive', {
      coldAfterDays: this.retention.archiveColdAfterDays,
      expireAfterDays: this.retention.archiveExpireAfterDays,
      removalPolicy,
    });

    const environmentValues: EnvironmentValues = {
      ...this.storage.environmentValues(),
      ...this.secretsKey.environmentValues(),
      [QUEUES.ingest.envVar]: this.ingestQueue.queueUrl,
      [QUEUES.delivery.envVar]: this.deliveryQueue.queueUrl,
      [QUEUES.slowDelivery.envVar]: this.queues.slowDelivery.queue.queueUrl,
      HOOKLINE_DEFAULT_RETRY_POLICY: JSON.stringify(props.retryPolicy ?? {}),
      HOOKLINE_SENDER_TIMEOUT_MS: String(senderTimeoutMs),
      HOOKLINE_SLOW_LANE_AFTER_MS: String(validateSenderSlowAfter(props.senderSlowAfter)),
      HOOKLINE_SECRETS_CACHE_SECONDS: String(validateSecretsCacheTtl(props.secretsCacheTtl)),
      HOOKLINE_ALLOWED_PORTS: validateAllowedTargetPorts(props.allowedTargetPorts),
      HOOKLINE_EVENT_TYPE_CHECK: validateEventTypeCheck(props.eventTypeCheck),
      [BUCKETS.archive.envVar]: this.archive.bucket.bucketName,
      HOOKLINE_RETENTION_DELIVERED_DAYS: String(this.retention.deliveredDays),
      HOOKLINE_RETENTION_DEAD_LETTER_DAYS: String(this.retention.deadLetterDays),
      HOOKLINE_ARCHIVE_DELIVERED: this.retention.archiveDelivered ? '1' : '0',
      ...recoveryEnvironment(props.recovery),
      ...noticeEnvironment(props.notices),
    };
    const shared: FunctionConstructProps = {
      storage: this.storage,
      environmentValues,
      functionOptions,
      reservedConcurrency,
    };

    const ingest = new EventIngest(this, 'Ingest', {
      ...shared,
      ingestQueue: this.queues.ingest,
      deliveryQueue: this.queues.delivery,
      maxConcurrency: props.ingestMaxConcurrency,
    });
    if (props.staticEgress) this.staticEgress = new StaticEgress(this, 'StaticEgress', props.staticEgress);
    const sender = new DeliverySender(this, 'Sender', {
      ...shared,
      deliveryQueue: this.queues.delivery,
      maxConcurrency: props.senderMaxConcurrency,
      slowLane: this.queues.slowDelivery,
      slowLaneMaxConcurrency: props.senderSlowLaneMaxConcurrency,
      ...(this.staticEgress ? { staticEgress: this.staticEgress } : {}),
    });
    const sweeper = new DeliverySweeper(this, 'Sweeper', { ...shared, deliveryQueue: this.queues.delivery });
    this.archiver = new DeliveryArchiver(this, 'Archiver', { ...shared, archive: this.archive });
    this.api = new HooklineApi(this, 'Api', {
      ...shared,
      // The console's archive runs and restores invoke the archiver (created first for its name).
      environmentValues: { ...environmentValues, ARCHIVER_FUNCTION_NAME: this.archiver.handler.function.functionName },
      deliveryQueue: this.queues.delivery,
      apiType: props.apiType,
      auth: props.apiAuth,
      throttling: props.apiThrottling,
      webAclArn: props.webAclArn,
      createCloudWatchRole: props.createApiGatewayCloudWatchRole,
      accessLogFormat: props.apiAccessLog,
      removalPolicy,
    });
    // With IAM auth or a Function URL there is no authorizer: a reservation for it would be silently dropped.
    if (reservedConcurrency.authorizer !== undefined && !this.api.authorizerHandler)
      throw new ReservedConcurrencyError(
        'authorizer',
        "is set, but only apiAuth 'bearer' behind API Gateway (apiType 'http' or 'rest') deploys an authorizer",
      );
    // Synchronous invokes of the archiver alone (not grantInvoke, which adds every version and alias):
    // the bucket stays the archiver's, and the api can start nothing else.
    this.api.handler.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [this.archiver.handler.function.functionArn],
      }),
    );
    this.secretsKey.grantSeal(this.api.handler.function);
    // A rotation opens the current secrets to keep the old one beside the new, and GET .../secret shows them.
    this.secretsKey.grantOpen(this.api.handler.function);
    this.secretsKey.grantOpen(sender.handler.function);
    this.replay = new DeliveryReplay(this, 'Replay', { ...shared, deliveryQueue: this.queues.delivery });
    this.notifier = new FailureNotifier(this, 'Notifier', {
      ...shared,
      // Notices link to the dashboard this API serves, unless the props name another.
      environmentValues: { HOOKLINE_CONSOLE_URL: this.api.consoleUrl, ...environmentValues },
      deliveryQueue: this.queues.delivery,
      ...(props.notices?.emailIdentity ? { emailIdentity: props.notices.emailIdentity } : {}),
    });
    this.functions = {
      api: this.api.handler.function,
      ...(this.api.authorizerHandler ? { authorizer: this.api.authorizerHandler.function } : {}),
      ingest: ingest.handler.function,
      sender: sender.handler.function,
      sweeper: sweeper.handler.function,
      replay: this.replay.handler.function,
      archiver: this.archiver.handler.function,
      notifier: this.notifier.handler.function,
    };
    new HooklineSchedules(this, 'Schedules', { functions: this.functions });

    this.alarms = new HooklineAlarms(this, 'Alarms', {
      queues: this.queues.all,
      sender: sender.handler.function,
      sweeper: sweeper.handler.function,
      fanOut: ingest.handler.function,
      api: this.api,
      deliveryQueueMaxAge: props.deliveryQueueMaxAge,
      apiServerErrorPercent: props.apiServerErrorPercent,
      onCallEmail: props.onCallEmail,
      deadLetterAlarm: props.deadLetterAlarm,
      senderErrors: props.senderErrorsAlarm,
      senderThrottles: props.senderThrottlesAlarm,
      alarmNamePrefix: props.alarmNamePrefix,
      removalPolicy,
    });
    this.topic = this.alarms.topic;
    this.producerPolicy = new iam.ManagedPolicy(this, 'ProducerPolicy', {
      description:
        'Publish Hookline events (ingest queue SendMessage, and POST /v1/events with IAM auth); nothing else',
      statements: [
        new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.ingestQueue.queueArn] }),
        // A Function URL's IAM permission is the whole API, not one route: it has no place in a publish-only policy.
        ...(this.api.auth === 'iam' && this.api.apiType !== 'url'
          ? [
              new iam.PolicyStatement({
                actions: ['execute-api:Invoke'],
                resources: [this.api.arnForExecuteApi('POST', '/v1/events')],
              }),
            ]
          : []),
      ],
    });
    this.dashboard = new HooklineDashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName ?? `${Stack.of(this).stackName}-Hookline`,
      queues: this.queues.all,
      functions: this.functions,
      api: this.api,
      alarms: this.alarms.alarms,
    });
  }

  /** The API's base URL (the Function URL, or the API Gateway stage's). */
  get apiUrl(): string {
    return this.api.url;
  }

  /** The web dashboard the API serves: the operator console, and where customer portal links open. */
  get consoleUrl(): string {
    return this.api.consoleUrl;
  }

  /** Lets a producer publish events: sqs:SendMessage on the ingest queue. */
  grantPublish(grantee: iam.IGrantable): iam.Grant {
    return this.ingestQueue.grantSendMessages(grantee);
  }

  /** Lets `grantee` call the HTTP API (required with `apiAuth: 'iam'`). */
  grantInvokeApi(grantee: iam.IGrantable): iam.Grant {
    return this.api.grantInvoke(grantee);
  }

  /** Lets `grantee` read the admin bearer key (operators, a CLI role, a dashboard backend). */
  grantReadAdminKey(grantee: iam.IGrantable): iam.Grant {
    return this.api.grantReadAdminKey(grantee);
  }

  /** Read-only access to deliveries and attempts, e.g. for a reporting job or a dashboard backend. */
  grantReadDeliveries(grantee: iam.IGrantable): void {
    this.storage.grant(grantee, { deliveries: 'read', attempts: 'read' });
  }

  /** Lets `grantee` invoke the replay function (single and bulk replay, the audit trail). */
  grantReplay(grantee: iam.IGrantable): iam.Grant {
    return this.replay.grantInvoke(grantee);
  }

  /** Lets `grantee` run the archiver on demand (an archive pass, a restore for a dispute). */
  grantArchiveOperations(grantee: iam.IGrantable): iam.Grant {
    return this.archiver.grantInvoke(grantee);
  }

  /** Lets `grantee` publish on the on-call topic (e.g. a custom alarm or a deploy pipeline). */
  grantOnCallPublish(grantee: iam.IGrantable): iam.Grant {
    return this.topic.grantPublish(grantee);
  }
}

/**
 * Merges the override with the domain's own validator, then checks it against what the
 * delivery queue can carry: the deadline must end before SQS drops the message, and the
 * most attempts the schedule can make (shortest jittered delays) must stay below the
 * redrive threshold, so business retries never land in the redrive queue.
 */
/** The allowedTargetPorts prop, parsed by the domain's own rules, as the handlers will read it. */
export function validateAllowedTargetPorts(ports: string | undefined): string {
  try {
    return formatPorts(parseAllowedPorts(ports ?? DEFAULT_ALLOWED_PORTS));
  } catch (error) {
    if (!(error instanceof InvalidPolicyError)) throw error;
    throw new InvalidPropError('allowedTargetPorts', error.rule, { cause: error });
  }
}

export function validateRetryPolicy(override: Partial<RetryPolicy> | undefined): RetryPolicy {
  let policy: RetryPolicy;
  try {
    policy = resolveRetryPolicy(override);
  } catch (error) {
    throw new InvalidPropError('retryPolicy', `is invalid: ${(error as Error).message}`, { cause: error });
  }
  const queue = QUEUES.delivery;
  if (policy.deadlineSeconds >= queue.retentionSeconds) {
    throw new InvalidPropError(
      'retryPolicy.deadlineSeconds',
      `(${policy.deadlineSeconds}) must be shorter than the delivery queue retention (${queue.retentionSeconds}s)`,
    );
  }
  const attempts = worstCaseAttempts(policy);
  if (attempts >= queue.maxReceiveCount) {
    throw new InvalidPropError(
      'retryPolicy',
      `allows up to ${attempts} attempts before its deadline, but the delivery queue redrives after ${queue.maxReceiveCount} receives; set maxAttempts or longer delays`,
    );
  }
  return policy;
}

/** Attempts the policy makes before it gives up, if every delay comes out as short as jitter allows. */
export function worstCaseAttempts(policy: RetryPolicy): number {
  let attempts = 1;
  let elapsed = 0;
  while (policy.maxAttempts === undefined || attempts < policy.maxAttempts) {
    const shortest = Math.max(1, Math.floor(baseDelaySeconds(policy, attempts) * (1 - policy.jitter)));
    if (elapsed + shortest >= policy.deadlineSeconds) break;
    elapsed += shortest;
    attempts += 1;
    if (attempts > 1_000_000) break;
  }
  return attempts;
}

/** Days between the longest retention allowed and the TTL: covers an archiver that failed for a few days running. */
const TTL_SLACK_DAYS = 7;

function resolveRetention(props: RetentionProps = {}): ResolvedRetention {
  const days = {
    deliveredDays: props.deliveredDays ?? DEFAULT_RETENTION.deliveredDays,
    deadLetterDays: props.deadLetterDays ?? DEFAULT_RETENTION.deadLetterDays,
    archiveColdAfterDays: props.archiveColdAfterDays ?? ARCHIVE_LIFECYCLE_DEFAULTS.coldAfterDays,
    archiveExpireAfterDays: props.archiveExpireAfterDays ?? ARCHIVE_LIFECYCLE_DEFAULTS.expireAfterDays,
  };
  const resolved: ResolvedRetention = {
    ...days,
    archiveDelivered: props.archiveDelivered ?? DEFAULT_RETENTION.archiveDelivered === 1,
  };
  for (const [name, value] of Object.entries(days)) {
    if (!Number.isInteger(value) || value < 1)
      throw new InvalidPropError(`retention.${name}`, `must be a positive whole number of days, got ${value}`);
  }
  // DynamoDB TTL is the net behind the archiver. The delivery rows' TTL follows the retention, but
  // the attempt rows' is stamped at the default's horizon when they are written: a longer
  // retention would let TTL delete history that was never archived.
  for (const name of ['deliveredDays', 'deadLetterDays'] as const) {
    const ttlDays = DEFAULT_RETENTION[name] + DEFAULT_RETENTION.ttlSafetyMarginDays;
    const max = ttlDays - TTL_SLACK_DAYS;
    if (resolved[name] > max)
      throw new InvalidPropError(
        `retention.${name}`,
        `must be at most ${max} days (DynamoDB TTL removes rows ${ttlDays} days after they finish), got ${resolved[name]}`,
      );
  }
  return resolved;
}

/** The eventTypeCheck prop as the publishing functions read it; a JavaScript caller's typo fails the synth, not the cold start. */
function validateEventTypeCheck(check: EventTypeCheck | undefined): EventTypeCheck {
  const value = check ?? DEFAULT_EVENT_TYPE_CHECK;
  if (!isEventTypeCheck(value))
    throw new InvalidPropError('eventTypeCheck', `must be one of ${EVENT_TYPE_CHECKS.join(', ')}, got '${value}'`);
  return value;
}

/** Longest a decrypted data key may be reused: a day bounds how long a revoked grant goes on signing. */
const MAX_SECRETS_CACHE_SECONDS = 86_400;

function validateSecretsCacheTtl(ttl: Duration | undefined): number {
  const seconds = ttl?.toSeconds({ integral: false }) ?? DEFAULT_SECRETS_CACHE_SECONDS;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_SECRETS_CACHE_SECONDS)
    throw new InvalidPropError('secretsCacheTtl', `must be whole seconds between 1 s and 24 h, got ${seconds} s`);
  return seconds;
}

/** Whole milliseconds, 0 (off) to the sender function's timeout. */
function validateSenderSlowAfter(after: Duration | undefined): number {
  const ms = after?.toMilliseconds() ?? SLOW_LANE.slowAfterMs;
  const functionMs = FUNCTIONS.sender.timeoutSeconds * 1000;
  if (!Number.isInteger(ms) || ms < 0 || ms > functionMs)
    throw new InvalidPropError(
      'senderSlowAfter',
      `must be whole milliseconds from 0 (off) to ${functionMs / 1000} s, got ${ms} ms`,
    );
  return ms;
}

/** The per-attempt timeout must leave the sender room to record the outcome before Lambda kills it. */
function validateSenderTimeout(timeout: Duration | undefined): number {
  const ms = timeout?.toMilliseconds() ?? DEFAULT_SENDER_TIMEOUT_MS;
  const functionMs = FUNCTIONS.sender.timeoutSeconds * 1000;
  if (!Number.isInteger(ms) || ms < 1000 || ms > functionMs / 2) {
    throw new InvalidPropError(
      'senderTimeout',
      `must be between 1 s and half the sender function timeout (${functionMs / 2000} s), got ${ms} ms`,
    );
  }
  return ms;
}

/**
 * The notice props as the notifier's environment, validated at synth time by the domain's own
 * rules. Only what is set is written; the rest keeps the topology default.
 */
export function noticeEnvironment(props: NoticeProps = {}): EnvironmentValues {
  const env: Record<string, string> = {};
  const address = (name: string, value: string) => {
    if (!isEmailAddress(value)) throw new InvalidPropError(`notices.${name}`, `is not an email address: '${value}'`);
    return value;
  };
  if (props.emailIdentity !== undefined) {
    const identity = props.emailIdentity;
    const isAddress = identity.includes('@');
    if (isAddress) address('emailIdentity', identity);
    else if (
      !/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(
        identity,
      )
    ) {
      throw new InvalidPropError('notices.emailIdentity', `is neither a domain nor an email address: '${identity}'`);
    }
    const from = props.fromAddress ?? (isAddress ? identity : `notices@${identity}`);
    address('fromAddress', from);
    // SES authorizes a send by the identity of the From address: it must be the identity or an address of its domain.
    if (
      isAddress
        ? from.toLowerCase() !== identity.toLowerCase()
        : !from.toLowerCase().endsWith(`@${identity.toLowerCase()}`)
    ) {
      throw new InvalidPropError(
        'notices.fromAddress',
        `must be an address of the SES identity ${identity}, got '${from}'`,
      );
    }
    env.HOOKLINE_MAIL_TRANSPORT = 'ses';
    env.HOOKLINE_MAIL_FROM = from;
  } else if (props.fromAddress !== undefined) {
    throw new InvalidPropError('notices.fromAddress', 'needs notices.emailIdentity (the SES identity it belongs to)');
  }
  if (props.supportEmail !== undefined) env.HOOKLINE_NOTICE_SUPPORT_EMAIL = address('supportEmail', props.supportEmail);
  if (props.consoleUrl !== undefined) {
    if (!/^https:\/\/[^\s]+$/.test(props.consoleUrl))
      throw new InvalidPropError('notices.consoleUrl', `must be an https URL, got '${props.consoleUrl}'`);
    env.HOOKLINE_CONSOLE_URL = props.consoleUrl;
  }
  const seconds = (d: Duration | undefined) => (d === undefined ? undefined : d.toSeconds());
  const override = Object.fromEntries(
    Object.entries({
      firstAfterSeconds: seconds(props.firstAfter),
      secondAfterSeconds: seconds(props.secondAfter),
      beforeExpirySeconds: seconds(props.beforeExpiry),
      lostAfterSeconds: seconds(props.lostAfter),
      recovered: props.recovered === undefined ? undefined : props.recovered ? 1 : 0,
    }).filter(([, v]) => v !== undefined),
  );
  try {
    resolveNoticePolicy(override);
  } catch (error) {
    const field = (error as { field?: string }).field;
    const prop =
      (
        {
          firstAfterSeconds: 'firstAfter',
          secondAfterSeconds: 'secondAfter',
          beforeExpirySeconds: 'beforeExpiry',
          lostAfterSeconds: 'lostAfter',
          recovered: 'recovered',
        } as Record<string, string>
      )[field ?? ''] ?? '';
    throw new InvalidPropError(`notices${prop ? `.${prop}` : ''}`, `is invalid: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const names = {
    firstAfterSeconds: 'HOOKLINE_NOTICE_FIRST_SECONDS',
    secondAfterSeconds: 'HOOKLINE_NOTICE_SECOND_SECONDS',
    beforeExpirySeconds: 'HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS',
    lostAfterSeconds: 'HOOKLINE_NOTICE_LOST_AFTER_SECONDS',
    recovered: 'HOOKLINE_NOTICE_RECOVERED',
  } as const;
  for (const [field, value] of Object.entries(override)) env[names[field as keyof typeof names]] = String(value);
  return env;
}

/**
 * The recovery props as the handlers' environment, validated at synth time by the same domain
 * rules the handlers apply at cold start. Only what is set is written; the rest keeps the
 * topology default.
 */
export function recoveryEnvironment(props: RecoveryProps = {}): EnvironmentValues {
  const check = (name: string, run: () => unknown) => {
    try {
      run();
    } catch (error) {
      throw new InvalidPropError(`recovery.${name}`, `is invalid: ${(error as Error).message}`, { cause: error });
    }
  };
  const env: Record<string, string> = {};
  if (props.replayWindow) {
    const seconds = props.replayWindow.toSeconds();
    check('replayWindow', () => resolveReplayPolicy({ windowSeconds: seconds }));
    env.HOOKLINE_REPLAY_WINDOW_SECONDS = String(seconds);
  }
  if (props.customerReplaysPerMinute !== undefined) {
    // The prop counts per minute whatever the domain's default window is, so it sets both.
    const windowSeconds = Duration.minutes(1).toSeconds();
    check('customerReplaysPerMinute', () => resolveRateLimit({ limit: props.customerReplaysPerMinute, windowSeconds }));
    env.HOOKLINE_CUSTOMER_REPLAY_LIMIT = String(props.customerReplaysPerMinute);
    env.HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS = String(windowSeconds);
  }
  if (props.customerPausesPerHour !== undefined) {
    // Per hour whatever the domain's default window is, so it sets both.
    const windowSeconds = Duration.hours(1).toSeconds();
    check('customerPausesPerHour', () => resolvePauseLimit({ limit: props.customerPausesPerHour, windowSeconds }));
    env.HOOKLINE_CUSTOMER_PAUSE_LIMIT = String(props.customerPausesPerHour);
    env.HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS = String(windowSeconds);
  }
  if (props.autoPauseAfter) {
    const seconds = props.autoPauseAfter.toSeconds();
    check('autoPauseAfter', () => resolveAutoPausePolicy({ afterSeconds: seconds }));
    env.HOOKLINE_AUTO_PAUSE_SECONDS = String(seconds);
  }
  if (props.archiveBatchSize !== undefined) {
    check('archiveBatchSize', () => resolveArchivePolicy({ batchSize: props.archiveBatchSize }));
    env.HOOKLINE_ARCHIVE_BATCH_SIZE = String(props.archiveBatchSize);
  }
  if (props.restoreHold) {
    const days = props.restoreHold.toHours() / 24;
    check('restoreHold', () => resolveArchivePolicy({ restoreHoldDays: days }));
    env.HOOKLINE_RESTORE_HOLD_DAYS = String(days);
  }
  return env;
}
