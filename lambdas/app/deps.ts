import type { ArchivePolicy } from '#domain/archive.ts';
import type { AutoPausePolicy } from '#domain/auto-pause.ts';
import type { EventTypeCheck } from '#domain/event-type-catalog.ts';
import type { NoticePolicy } from '#domain/notices.ts';
import type { RateLimit } from '#domain/rate-limit.ts';
import type { ReplayPolicy } from '#domain/replay.ts';
import type { RetentionPolicy } from '#domain/retention.ts';
import type { RetryPolicy } from '#domain/retry-policy.ts';
import type { PortRanges } from '#domain/target-ports.ts';
import type { EnvName, FunctionKey, FUNCTIONS } from '#config/topology.ts';
import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { Archive, ArchiveManifestStore } from '#ports/archive.ts';
import type { ArchiverInvoker } from '#ports/archiver-invoker.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryQueue } from '#ports/delivery-queue.ts';
import type { DeliveryStore } from '#ports/delivery-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { EventTypeStore } from '#ports/event-type-store.ts';
import type { IngestManifestStore } from '#ports/ingest-manifest-store.ts';
import type { HostResolver } from '#ports/host-resolver.ts';
import type { IdempotencyStore } from '#ports/idempotency-store.ts';
import type { PortalSessionStore } from '#ports/portal-session-store.ts';
import type { HttpSender } from '#ports/http-sender.ts';
import type { Mailer } from '#ports/mailer.ts';
import type { NoticeStore } from '#ports/notice-store.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';
import type { RateLimiter } from '#ports/rate-limiter.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import type { ReplayStore } from '#ports/replay-store.ts';
import type { SchemaValidator } from '#ports/schema-validator.ts';
import type { SecretOpener, SecretSealer } from '#ports/secret-sealer.ts';
import type { SendRateCounters } from '#ports/send-rate-counters.ts';
import type { SubscriptionStore } from '#ports/subscription-store.ts';
import type { RouteStore } from '#ports/route-store.ts';

/**
 * Every dependency a service may ask for. Each service declares the few it uses
 * (`Pick<Deps, …>`), and each function is handed `FunctionDeps<F>`: only what its environment
 * provides, so a service that needs a store its function cannot reach does not type-check.
 */
export interface Deps {
  readonly subscriptions: SubscriptionStore;
  /** The routing index: which subscriptions an event reaches, by (audience, event type), without a scan. */
  readonly routes: RouteStore;
  readonly events: EventStore;
  readonly deliveries: DeliveryStore;
  readonly attempts: AttemptStore;
  readonly queue: DeliveryQueue;
  /** The slow lane's queue (domain/slow-lane.ts): the sender's only, which alone moves deliveries there. */
  readonly slowLane: DeliveryQueue;
  readonly replays: ReplayStore;
  readonly recovery: RecoveryStore;
  readonly rateLimiter: RateLimiter;
  /** The counters behind subscriptions' rateLimitPerSecond (the sender's rate gate). */
  readonly sendRate: SendRateCounters;
  readonly apiKeys: ApiKeyStore;
  readonly archive: Archive;
  readonly manifests: ArchiveManifestStore;
  readonly ingestManifests: IngestManifestStore;
  /** The archiver function, for the console's archive runs and restores (the api: only the archiver touches the bucket). */
  readonly archiver: ArchiverInvoker;
  /** Responses of requests sent with an Idempotency-Key (the api only). */
  readonly idempotency: IdempotencyStore;
  /** Customer portal links and the sessions they open (the api only). */
  readonly portalSessions: PortalSessionStore;
  /** The event-type catalog: registered through the api, read by publish (api, ingest) under a `warn` or `refuse` check. */
  readonly eventTypes: EventTypeStore;
  /** JSON Schema checks of the catalog's schemas, examples and the payloads published under them. */
  readonly schemaValidator: SchemaValidator;
  /** What publish does with an unregistered type or a payload its schema refuses (HOOKLINE_EVENT_TYPE_CHECK). */
  readonly eventTypeCheck: EventTypeCheck;
  readonly http: HttpSender;
  readonly attemptTimeoutMs: number;
  /** How long past due (or past its publish) a delivery may wait before the sweeper steps in (HOOKLINE_SWEEP_GRACE_SECONDS). */
  readonly sweepGraceSeconds: number;
  /** The longest wait a delivery's message spends in flight; a longer one travels as a delayed message (HOOKLINE_IN_FLIGHT_WAIT_SECONDS). */
  readonly inFlightWaitSeconds: number;
  /** An attempt unanswered this long marks its subscription slow (HOOKLINE_SLOW_LANE_AFTER_MS; 0: never). */
  readonly slowAfterMs: number;
  readonly defaultRetryPolicy: RetryPolicy;
  /** Lets subscriptions and sends reach loopback and private addresses (local development only). */
  readonly allowPrivateTargets: boolean;
  /** Destination ports subscription URLs may use (HOOKLINE_ALLOWED_PORTS). */
  readonly allowedPorts: PortRanges;
  /** When a subscription that keeps dead-lettering is paused. */
  readonly autoPause: AutoPausePolicy;
  readonly replayPolicy: ReplayPolicy;
  /** Single replays a tenant key may make per subscription and window. */
  readonly customerReplayLimit: RateLimit;
  /** Pauses and resumes a tenant key may make per subscription and window. */
  readonly customerPauseLimit: RateLimit;
  readonly retention: RetentionPolicy;
  readonly archivePolicy: ArchivePolicy;
  readonly clock: Clock;
  readonly metrics: DeliveryMetrics;
  readonly resolver: HostResolver;
  /** Seals new subscriptions' signing secrets (the api: it creates them). */
  readonly secretSealer: SecretSealer;
  /** Opens them for signing (the sender only; no other function can). */
  readonly secretOpener: SecretOpener;
  /** Failure streaks and the notices decided in them (the notifier). */
  readonly notices: NoticeStore;
  /** Notice emails: SES on AWS, SMTP or the mail catcher locally, or off. */
  readonly mailer: Mailer;
  /** When each failure notice goes (domain/notices.ts). */
  readonly noticePolicy: NoticePolicy;
  /** Deployment-wide notice settings: who is always told. */
  readonly noticeSettings: NoticeSettings;
  /** Where the web dashboard is served, when the deployment names it (a custom domain): notices and portal links point there. */
  readonly consoleSettings: ConsoleSettings;
}

export interface NoticeSettings {
  /** The producer's support address, told of every notice. */
  readonly supportEmail?: string;
}

export interface ConsoleSettings {
  /**
   * The dashboard page's URL. Without one, notices link to the API path of the dead letters,
   * and portal links to the dashboard of the API as the request reached it.
   */
  readonly consoleUrl?: string;
}

/**
 * The environment variables each dependency is built from; a function has the dependency
 * exactly when its topology entry declares all of them. Dependencies not listed (clock,
 * metrics, resolver) every function has.
 */
export const PROVIDED_BY = {
  subscriptions: ['SUBSCRIPTIONS_TABLE'],
  routes: ['ROUTES_TABLE'],
  events: ['EVENTS_TABLE'],
  deliveries: ['DELIVERIES_TABLE'],
  attempts: ['ATTEMPTS_TABLE'],
  queue: ['DELIVERY_QUEUE_URL'],
  slowLane: ['SLOW_DELIVERY_QUEUE_URL'],
  replays: ['REPLAYS_TABLE'],
  recovery: ['DELIVERIES_TABLE'],
  rateLimiter: ['RATE_LIMITS_TABLE'],
  sendRate: ['RATE_LIMITS_TABLE'],
  apiKeys: ['API_KEYS_TABLE'],
  archive: ['ARCHIVE_BUCKET'],
  manifests: ['ARCHIVE_BATCHES_TABLE'],
  ingestManifests: ['INGEST_MANIFESTS_TABLE'],
  archiver: ['ARCHIVER_FUNCTION_NAME'],
  idempotency: ['IDEMPOTENCY_KEYS_TABLE'],
  portalSessions: ['PORTAL_SESSIONS_TABLE'],
  eventTypes: ['EVENT_TYPES_TABLE'],
  // Only the functions that hold the catalog check schemas: ajv is in their bundles alone.
  schemaValidator: ['EVENT_TYPES_TABLE'],
  eventTypeCheck: ['HOOKLINE_EVENT_TYPE_CHECK'],
  http: ['HOOKLINE_SENDER_TIMEOUT_MS', 'HOOKLINE_ALLOW_PRIVATE_TARGETS', 'HOOKLINE_ALLOWED_PORTS'],
  attemptTimeoutMs: ['HOOKLINE_SENDER_TIMEOUT_MS'],
  sweepGraceSeconds: ['HOOKLINE_SWEEP_GRACE_SECONDS'],
  inFlightWaitSeconds: ['HOOKLINE_IN_FLIGHT_WAIT_SECONDS'],
  slowAfterMs: ['HOOKLINE_SLOW_LANE_AFTER_MS'],
  defaultRetryPolicy: ['HOOKLINE_DEFAULT_RETRY_POLICY'],
  allowPrivateTargets: ['HOOKLINE_ALLOW_PRIVATE_TARGETS'],
  allowedPorts: ['HOOKLINE_ALLOWED_PORTS'],
  autoPause: ['HOOKLINE_AUTO_PAUSE_SECONDS'],
  replayPolicy: ['HOOKLINE_REPLAY_WINDOW_SECONDS'],
  customerReplayLimit: ['HOOKLINE_CUSTOMER_REPLAY_LIMIT', 'HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS'],
  customerPauseLimit: ['HOOKLINE_CUSTOMER_PAUSE_LIMIT', 'HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS'],
  retention: ['HOOKLINE_RETENTION_DELIVERED_DAYS', 'HOOKLINE_RETENTION_DEAD_LETTER_DAYS', 'HOOKLINE_ARCHIVE_DELIVERED'],
  archivePolicy: ['HOOKLINE_ARCHIVE_BATCH_SIZE', 'HOOKLINE_RESTORE_HOLD_DAYS', 'HOOKLINE_ARCHIVE_LOCK_SECONDS'],
  // Two names for the one key, so sealing and opening are separate dependencies a function's
  // environment grants one at a time, as its IAM policy does.
  secretSealer: ['HOOKLINE_SECRETS_SEAL_KEY_ID', 'KEYRING_TABLE'],
  secretOpener: ['HOOKLINE_SECRETS_OPEN_KEY_ID'],
  notices: ['NOTICES_TABLE'],
  mailer: ['HOOKLINE_MAIL_TRANSPORT', 'HOOKLINE_MAIL_FROM'],
  noticePolicy: [
    'HOOKLINE_NOTICE_FIRST_SECONDS',
    'HOOKLINE_NOTICE_SECOND_SECONDS',
    'HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS',
    'HOOKLINE_NOTICE_LOST_AFTER_SECONDS',
    'HOOKLINE_NOTICE_RECOVERED',
    'HOOKLINE_NOTICE_LEASE_SECONDS',
  ],
  noticeSettings: ['HOOKLINE_NOTICE_SUPPORT_EMAIL'],
  consoleSettings: ['HOOKLINE_CONSOLE_URL'],
} as const satisfies Partial<Record<keyof Deps, readonly EnvName[]>>;
export type ProvidedDep = keyof typeof PROVIDED_BY;

type Declared<F extends FunctionKey> = (typeof FUNCTIONS)[F]['environment'][number];
/** The dependencies function F's declared environment provides. */
export type ProvidedTo<F extends FunctionKey> = {
  [K in ProvidedDep]: [(typeof PROVIDED_BY)[K][number]] extends [Declared<F>] ? K : never;
}[ProvidedDep];

/** What function F is handed: the always-present dependencies plus those its environment provides. */
export type FunctionDeps<F extends FunctionKey> = Pick<Deps, Exclude<keyof Deps, ProvidedDep> | ProvidedTo<F>>;
