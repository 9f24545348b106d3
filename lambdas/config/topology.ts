/**
 * The one description of Hookline's moving parts. The CDK constructs build AWS resources from
 * it and the local runtime builds its emulated resources from it, and test/cdk/parity.test.ts
 * checks the synthesized template against it, so local and cloud cannot drift apart.
 */

import { DEFAULT_ARCHIVE_POLICY } from '../domain/archive.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '../domain/auto-pause.ts';
import { DEFAULT_NOTICE_POLICY } from '../domain/notices.ts';
import { DEFAULT_EVENT_TYPE_CHECK } from '../domain/event-type-catalog.ts';
import { DEFAULT_CUSTOMER_PAUSE_LIMIT, DEFAULT_CUSTOMER_REPLAY_LIMIT } from '../domain/rate-limit.ts';
import { DEFAULT_REPLAY_POLICY } from '../domain/replay.ts';
import { SLOW_LANE } from '../domain/slow-lane.ts';
import type { CompletionAction } from '../domain/states.ts';
import { DEFAULT_RETENTION } from '../domain/retention.ts';
import { DEFAULT_ALLOWED_PORTS } from '../domain/target-ports.ts';
import { LISTED_SUBSCRIPTION_FIELDS } from '../domain/types.ts';

export type AttributeType = 'S' | 'N';
export interface KeyDef {
  readonly name: string;
  readonly type: AttributeType;
}
export interface IndexDef {
  readonly indexName: string;
  readonly partitionKey: KeyDef;
  readonly sortKey?: KeyDef;
  readonly projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** With INCLUDE: the attributes beyond the keys the index holds. */
  readonly nonKeyAttributes?: readonly string[];
}
export interface TableDef {
  /** Environment variable that carries the table name to the handlers. */
  readonly envVar: EnvName;
  /** Table name in the local runtime (CloudFormation names the cloud one); read it through localResourceName. */
  readonly localName: string;
  readonly partitionKey: KeyDef;
  readonly sortKey?: KeyDef;
  readonly indexes: readonly IndexDef[];
  /** Epoch-seconds attribute DynamoDB TTL deletes by: a safety net behind the archiver. */
  readonly ttlAttribute?: string;
  /**
   * Rows that come and go with the traffic (per event, delivery or attempt), kept at most their
   * retention: nearly all of the storage, and what `pointInTimeRecovery: 'configuration'` leaves
   * without point-in-time recovery. The other tables hold the configuration and its audit.
   */
  readonly traffic?: true;
  /**
   * The table's DynamoDB stream, as the view it carries (the events table's: the hand-off to the
   * fan-out, STREAM_SOURCES). AWS only: the local runtime records the same inserts in its change
   * feed (local/change-feed.ts).
   */
  readonly stream?: 'NEW_IMAGE';
}

/**
 * Which tables keep DynamoDB point-in-time recovery (35 days restorable, $0.20 per GB-month on
 * top of the $0.25 of storage): `all`; `configuration`, every table but the traffic ones
 * (TableDef.traffic), whose dead letters the archiver keeps in S3 after their retention; `none`.
 */
export const POINT_IN_TIME_RECOVERY = ['all', 'configuration', 'none'] as const;
export type PointInTimeRecovery = (typeof POINT_IN_TIME_RECOVERY)[number];
export const DEFAULT_POINT_IN_TIME_RECOVERY: PointInTimeRecovery = 'all';

/**
 * Local resource names may carry a prefix (HOOKLINE_RESOURCE_PREFIX) so several runs can share
 * one DynamoDB, SQS or S3 endpoint: `<prefix>-hookline-…`. It must suit every kind at once, and
 * S3 is the strictest (lowercase letters, digits and hyphens; bucket names at most 63 characters).
 */
export const RESOURCE_PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** The prefix, checked: '' (none) or a valid one; anything else is refused with what is allowed. */
export function validResourcePrefix(prefix: string | undefined): string {
  if (!prefix) return '';
  // S3 reserves bucket names starting with `xn--` and `sthree-`.
  if (!RESOURCE_PREFIX_PATTERN.test(prefix) || /^(xn--|sthree-)/.test(prefix)) {
    throw new Error(
      `HOOKLINE_RESOURCE_PREFIX ${JSON.stringify(prefix)} is not valid: use 1 to 32 lowercase letters, digits and hyphens, ` +
        'starting and ending with a letter or digit (it becomes part of table, queue and bucket names)',
    );
  }
  return prefix;
}

/** The local name of a table, queue (or its redrive queue) or bucket under a prefix; '' gives the topology's own name. */
export function localResourceName(def: { readonly localName: string }, prefix = ''): string {
  const p = validResourcePrefix(prefix);
  return p ? `${p}-${def.localName}` : def.localName;
}

/** Index names, addressable by the adapters that query them (the TABLES below declare them). */
export const INDEXES = {
  deliveries: {
    deadLetters: 'deadLetterShard',
    deadLettersBySubscription: 'deadLettersBySubscriptionShard',
    active: 'active',
  },
  replays: { byStartedAt: 'byStartedAt', running: 'running' },
  apiKeys: { byTenant: 'byTenant' },
  subscriptions: { byTenant: 'byTenant' },
  routes: { bySegment: 'bySegment' },
} as const;

/**
 * An index on two string attributes, the only kind Hookline has: its partition key and the
 * sort key it lists in (ISO 8601 timestamps sort as strings).
 */
function stringIndex(
  indexName: string,
  partitionKey: string,
  sortKey: string,
  projection: IndexDef['projection'],
  nonKeyAttributes?: readonly string[],
): IndexDef & { readonly sortKey: KeyDef } {
  return {
    indexName,
    partitionKey: { name: partitionKey, type: 'S' },
    sortKey: { name: sortKey, type: 'S' },
    projection,
    ...(nonKeyAttributes ? { nonKeyAttributes } : {}),
  };
}

/**
 * A table keyed on one string attribute, which every table here is (attempts adds a numeric
 * sort key); `more` adds the sort key, indexes and TTL attribute where a table has them.
 */
function table(
  envVar: EnvName,
  localName: string,
  partitionKey: string,
  more: Partial<Pick<TableDef, 'sortKey' | 'indexes' | 'ttlAttribute' | 'traffic' | 'stream'>> = {},
): TableDef {
  return { envVar, localName, partitionKey: { name: partitionKey, type: 'S' }, indexes: [], ...more };
}

export const TABLES = {
  subscriptions: table('SUBSCRIPTIONS_TABLE', 'hookline-subscriptions', 'id', {
    // A tenant's subscriptions, newest first: its listing is a query of one key, not a filtered scan. Sparse: a
    // subscription without a tenant (the producer's own) has no `tenantId`. Only what a listing shows (no secrets).
    indexes: [
      stringIndex(
        INDEXES.subscriptions.byTenant,
        'tenantId',
        'createdAt',
        'INCLUDE',
        LISTED_SUBSCRIPTION_FIELDS.filter((f) => f !== 'id' && f !== 'tenantId' && f !== 'createdAt'),
      ),
    ],
  }),
  // The routing index (lambdas/adapters/dynamodb-route-store.ts): one entry per (subscription, event-type pattern), keyed
  // on (audience, the pattern's first segment), so an event's subscriptions are two key lookups, never a scan; also the
  // intents of routing changes under way and the index's build status. TTL drops tombstones.
  routes: table('ROUTES_TABLE', 'hookline-routes', 'route', {
    sortKey: { name: 'entry', type: 'S' },
    // Every audience's entries of one segment: a publish to every tenant (admin only) reads it instead of one audience's.
    indexes: [stringIndex(INDEXES.routes.bySegment, 'segment', 'entry', 'ALL')],
    ttlAttribute: 'expiresAt',
  }),
  events: table('EVENTS_TABLE', 'hookline-events', 'id', {
    ttlAttribute: 'expiresAt',
    traffic: true,
    stream: 'NEW_IMAGE',
  }),
  // Keyed on its listing: a subscription's deliveries, SUBSCRIPTION_SHARDS partitions (`sub_…#k`) each sorted by
  // `listKey` (`<createdAt>#<id>`), so the per-subscription listing is a query of the table and writes no index. The
  // delivery id carries both halves of the key (domain/ids.ts, adapters/delivery-keys.ts).
  deliveries: table('DELIVERIES_TABLE', 'hookline-deliveries', 'subscriptionShard', {
    sortKey: { name: 'listKey', type: 'S' },
    indexes: [
      // Sparse: `dlShard` (`dl#k`) is set only while failed/expired, so the overall dead-letter
      // list never reads a live delivery; DEAD_LETTER_SHARDS partitions share the writes of an outage.
      stringIndex(INDEXES.deliveries.deadLetters, 'dlShard', 'updatedAt', 'ALL'),
      // Sparse: `dlSubscriptionShard` (`sub_…#k`, the delivery's listing shard) is set only while failed/expired.
      stringIndex(INDEXES.deliveries.deadLettersBySubscription, 'dlSubscriptionShard', 'updatedAt', 'ALL'),
      // Sparse: `activeShard` is set only while pending/in_flight; the sweeper reads what is due.
      stringIndex(INDEXES.deliveries.active, 'activeShard', 'nextAttemptAt', 'KEYS_ONLY'),
    ],
    ttlAttribute: 'expiresAt',
    traffic: true,
  }),
  attempts: table('ATTEMPTS_TABLE', 'hookline-attempts', 'deliveryId', {
    sortKey: { name: 'seq', type: 'N' },
    ttlAttribute: 'expiresAt',
    traffic: true,
  }),
  // The bulk-replay audit trail; each record is also its replay's resumable checkpoint.
  replays: table('REPLAYS_TABLE', 'hookline-replays', 'id', {
    indexes: [
      // Newest first. One constant partition (`listKey`): replays are operator actions, a handful a day.
      stringIndex(INDEXES.replays.byStartedAt, 'listKey', 'startedAt', 'ALL'),
      // Sparse: `runKey` is set only while a replay runs; the resume schedule finds stalled ones by lease expiry.
      stringIndex(INDEXES.replays.running, 'runKey', 'leaseUntil', 'KEYS_ONLY'),
    ],
  }),
  // Tenant API keys by the SHA-256 of the key.
  apiKeys: table('API_KEYS_TABLE', 'hookline-api-keys', 'keyHash', {
    // A tenant's keys, to list and revoke them by keyId (the table itself is keyed by the hash).
    indexes: [stringIndex(INDEXES.apiKeys.byTenant, 'tenantId', 'keyId', 'ALL')],
  }),
  // Fixed-window counters (customer replay limit) and the sender's send-rate counters (`send#…`); TTL drops finished windows.
  rateLimits: table('RATE_LIMITS_TABLE', 'hookline-rate-limits', 'key', { ttlAttribute: 'expiresAt', traffic: true }),
  // Publish batches' manifests: each batch's write-ahead record, which the sweeper checks once its grace has passed (a
  // per-shard watermark says how far it got), and then the time-ordered event log GET /v1/events reads; TTL drops them
  // with their events.
  ingestManifests: table('INGEST_MANIFESTS_TABLE', 'hookline-ingest-manifests', 'shard', {
    sortKey: { name: 'key', type: 'S' },
    ttlAttribute: 'expiresAt',
    traffic: true,
  }),
  // Idempotency-Key records (lambdas/app/idempotency/): a first request's response, sealed under the key, for 24 h; TTL drops them.
  idempotencyKeys: table('IDEMPOTENCY_KEYS_TABLE', 'hookline-idempotency-keys', 'id', {
    ttlAttribute: 'expiresAt',
    traffic: true,
  }),
  // Customer portal links and the sessions they open (lambdas/app/portal/), by session id: the one-time code and the
  // session token only as SHA-256 hashes, each carrying the id so every lookup is one GetItem; TTL drops them days after they end.
  portalSessions: table('PORTAL_SESSIONS_TABLE', 'hookline-portal-sessions', 'id', { ttlAttribute: 'expiresAt' }),
  // Failure notices (lambdas/app/notices/): open streaks (subject `streaks`, key = subscription id) and each notice under
  // its subscription or replay (key `<anchor>#<kind>`), the conditional put that makes it go once; TTL drops old notices.
  notices: table('NOTICES_TABLE', 'hookline-notices', 'subject', {
    sortKey: { name: 'key', type: 'S' },
    ttlAttribute: 'expiresAt',
  }),
  // The archiver's write-ahead manifests of unfinished batches (empty after a clean run) and its run lock.
  archiveBatches: table('ARCHIVE_BATCHES_TABLE', 'hookline-archive-batches', 'objectKey'),
  // The event-type catalog (lambdas/app/event-types/): one small item per registered type, its schema and example as
  // JSON text. Read whole (it is bounded: EVENT_TYPE_LIMITS), by the listing and by publish when it checks events.
  eventTypes: table('EVENT_TYPES_TABLE', 'hookline-event-types', 'name'),
  // The signing-secrets keyring (lambdas/adapters/kms-secret-cipher.ts): each month's shared data key, KMS-encrypted,
  // so every container seals with the same one. Only sealing reads it; a sealed blob carries its own encrypted key.
  keyring: table('KEYRING_TABLE', 'hookline-keyring', 'ring'),
} as const satisfies Record<string, TableDef>;
export type TableKey = keyof typeof TABLES;

export interface BucketDef {
  /** Environment variable that carries the bucket name to the handlers. */
  readonly envVar: EnvName;
  /** Bucket name in the local runtime (read it through localResourceName). */
  readonly localName: string;
}

export const BUCKETS = {
  // Terminal deliveries past their retention, as gzip NDJSON under deliveries/dt=…/subscription=…/.
  archive: { envVar: 'ARCHIVE_BUCKET', localName: 'hookline-archive' },
} as const satisfies Record<string, BucketDef>;
export type BucketKey = keyof typeof BUCKETS;

/** Where the API serves the web dashboard's page (operator console, customer portal). */
export const DASHBOARD_PATH = '/dashboard';

/** The web dashboard of an API reached at `apiBaseUrl` (with or without its trailing slash). */
export function consoleUrlOf(apiBaseUrl: string): string {
  return `${apiBaseUrl.replace(/\/+$/, '')}${DASHBOARD_PATH}`;
}

/**
 * The API routes that answer without a key: the liveness probe and the API's own description.
 * API Gateway gets an open route for each (every other path is `/v1/{proxy+}` behind the
 * authorizer); the router's `public` routes must be exactly these (test/unit/handlers/public-routes.test.ts).
 */
export const PUBLIC_API_ROUTES = [
  { method: 'GET', path: '/health', why: 'the unauthenticated liveness probe; it returns no data' },
  {
    method: 'GET',
    path: '/openapi.json',
    why: 'the API description (routes and schemas), the same for every caller; it returns no data',
  },
  // The web dashboard (lambdas/handlers/api/routes/dashboard.ts): static files, the same for every caller; every
  // call it makes for data carries a bearer key or a portal session token and goes through the authorizer.
  {
    method: 'GET',
    path: '/dashboard',
    why: 'the web dashboard page, a static file the same for every caller; it returns no data',
  },
  {
    method: 'GET',
    path: '/dashboard/app.js',
    why: 'the web dashboard script, a static file the same for every caller; it returns no data',
  },
  {
    method: 'GET',
    path: '/dashboard/app.css',
    why: 'the web dashboard style sheet, a static file the same for every caller; it returns no data',
  },
  // The credential is the one-time code in the body, checked by the route (a hash compare and a conditional write).
  {
    method: 'POST',
    path: '/v1/portal-sessions/exchange',
    why: 'it trades a one-time portal code (the credential, in the body) for a session token; without a valid unused code it refuses',
  },
] as const;

/**
 * Shards of the deliveries table's partitions and its indexes' (lambdas/adapters/delivery-keys.ts): a
 * partition takes 1,000 writes a second, so each load that can pass that is spread by a hash of
 * the delivery id. Changing a count moves rows between partitions: it is a layout change.
 */
/** The `active` index (live deliveries, the sweeper's due list). */
export const ACTIVE_SHARDS = 8;
/**
 * The `active` index keeps a live delivery's due time to the start of its minute, not the
 * instant (the row keeps that in `dueAt`, outside the index): a retry due within the same
 * minute as the one before leaves the index entry as it was, where a moved key costs two index
 * write units (a delete and a put) on every retry. Half the sweeper's default grace: a row is
 * listed only once its minute has started before the sweeper's cut-off, so at most 60 s early
 * (the sweeper reads it and leaves it until it is due), never late.
 */
export const ACTIVE_DUE_BUCKET_SECONDS = 60;
/**
 * The deliveries table's partitions of one subscription: a first-try delivery writes its row once,
 * with its outcome (1 WCU up to 1 KB), one that waits or retries once or twice more; 16 take 5,000
 * deliveries a second to one subscription at 313–625 WCU a partition.
 */
export const SUBSCRIPTION_SHARDS = 16;
/** One subscription's dead letters (whole rows, up to 2 WCU): 16 partitions take 5,000 a second (its endpoint refusing everything). */
export const SUBSCRIPTION_DEAD_LETTER_SHARDS = 16;
/** Every dead letter (whole rows, up to 2 WCU): 32 partitions take 10,000 a second (a change every receiver refuses). */
export const DEAD_LETTER_SHARDS = 32;
/** Shards of the ingest manifests table: every publish batch writes one item there, kept as the event log. */
export const INGEST_MANIFEST_SHARDS = 16;
/**
 * Partitions of the routes table's intents (lambdas/adapters/dynamodb-route-store.ts): a
 * subscription change writes its intent and deletes it, two writes on one partition key, so one
 * partition took about 500 changes a second; 16 take 8,000 (a bulk import).
 */
export const ROUTE_INTENT_SHARDS = 16;
/**
 * The manifests a read of deliveries not yet written takes from each shard at most, from its
 * watermark on (app/deliveries/unwritten.ts): with the default grace of 2 minutes and batches of
 * 100, 1,000 a shard is 1.6 million deliveries published within the grace. Past it the newest
 * are not read.
 */
export const UNCHECKED_MANIFESTS_PER_SHARD = 1000;

/**
 * Deliveries due at the same second share one delivery-queue message (a pack), at most this
 * many: each message is sent, received and deleted once, and is one Lambda record, so a
 * publish batch of 100 costs 10 messages instead of 100. Ten bounds what one lost or slow
 * message holds up.
 */
export const DELIVERIES_PER_MESSAGE = 10;
/** A pack's body at most: SQS bills each 64 KB of payload as one request, so a pack stays one. */
export const MAX_PACK_BYTES = 64 * 1024;

export interface QueueDef {
  readonly envVar: EnvName;
  readonly localName: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
  /** Receives before a message is moved to the redrive queue (poison messages only). */
  readonly maxReceiveCount: number;
  readonly redrive: { readonly localName: string; readonly retentionSeconds: number };
}

export interface FunctionDef {
  readonly entry: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  readonly environment: readonly EnvName[];
  readonly description: string;
}

export const FUNCTIONS = {
  api: {
    entry: 'lambdas/functions/api.ts',
    timeoutSeconds: 29,
    memorySize: 512,
    description: 'Hookline HTTP API: subscriptions, events, deliveries, dead letters, replay',
    environment: [
      'SUBSCRIPTIONS_TABLE',
      // Subscription changes write their routing entries; publish reads them (fan-out).
      'ROUTES_TABLE',
      'EVENTS_TABLE',
      'DELIVERIES_TABLE',
      'ATTEMPTS_TABLE',
      'DELIVERY_QUEUE_URL',
      'HOOKLINE_ALLOW_PRIVATE_TARGETS',
      'HOOKLINE_ALLOWED_PORTS',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'REPLAYS_TABLE',
      'API_KEYS_TABLE',
      'RATE_LIMITS_TABLE',
      'HOOKLINE_REPLAY_WINDOW_SECONDS',
      'HOOKLINE_CUSTOMER_REPLAY_LIMIT',
      'HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS',
      'HOOKLINE_CUSTOMER_PAUSE_LIMIT',
      'HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS',
      // A bulk replay's range is capped at the retention window.
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
      'HOOKLINE_SECRETS_SEAL_KEY_ID',
      // The month's shared data key that seals with it.
      'KEYRING_TABLE',
      // A rotation re-seals the old secret beside the new one, and GET .../secret shows them.
      'HOOKLINE_SECRETS_OPEN_KEY_ID',
      'HOOKLINE_SECRETS_CACHE_SECONDS',
      'INGEST_MANIFESTS_TABLE',
      // Responses of POST requests sent with an Idempotency-Key, for 24 h.
      'IDEMPOTENCY_KEYS_TABLE',
      // Portal links: minted and revoked by the admin, their one-time codes exchanged for session tokens.
      'PORTAL_SESSIONS_TABLE',
      // The console's archive runs and restores invoke the archiver (lambda:InvokeFunction on it alone), which alone touches the archive bucket.
      'ARCHIVER_FUNCTION_NAME',
      // Where portal links point when the dashboard is served elsewhere (a custom domain); `none`: this API's own.
      'HOOKLINE_CONSOLE_URL',
      // The event-type catalog: registered here, and what publish checks events against (unless the check is `allow`).
      'EVENT_TYPES_TABLE',
      'HOOKLINE_EVENT_TYPE_CHECK',
      // Behind a Function URL (the default API entry) the api checks bearer keys itself, against this admin key.
      'HOOKLINE_API_ADMIN_KEY_SECRET_ID',
      'HOOKLINE_AUTH_CACHE_SECONDS',
    ],
  },
  authorizer: {
    entry: 'lambdas/functions/authorizer.ts',
    timeoutSeconds: 10,
    memorySize: 256,
    description: 'Hookline API bearer-key authorizer',
    // Portal session tokens are looked up by their session id, like tenant keys by their hash.
    environment: ['HOOKLINE_ADMIN_KEY_SECRET_ID', 'API_KEYS_TABLE', 'PORTAL_SESSIONS_TABLE'],
  },
  ingest: {
    entry: 'lambdas/functions/ingest.ts',
    timeoutSeconds: 30,
    memorySize: 512,
    description:
      "Hookline ingest: stores events from the ingest queue once; fans every stored event out from the events table's stream",
    // No deliveries table: publish writes no delivery row (a delivery's first attempt does).
    environment: [
      'SUBSCRIPTIONS_TABLE',
      // Fan-out: the routing index's two keys per event, never a scan of the subscriptions.
      'ROUTES_TABLE',
      'EVENTS_TABLE',
      'DELIVERY_QUEUE_URL',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'INGEST_MANIFESTS_TABLE',
      // An event's TTL is the delivered retention (and its margin) from publication.
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
      // Read only, and only when the check is `warn` or `refuse`: the catalog its events are checked against.
      'EVENT_TYPES_TABLE',
      'HOOKLINE_EVENT_TYPE_CHECK',
    ],
  },
  sender: {
    entry: 'lambdas/functions/sender.ts',
    timeoutSeconds: 60,
    memorySize: 512,
    description: 'Hookline sender: signs, POSTs, records each attempt in one write and schedules retries',
    environment: [
      'SUBSCRIPTIONS_TABLE',
      // A 410 Gone disables the subscription, which takes it out of the routing index.
      'ROUTES_TABLE',
      'EVENTS_TABLE',
      'DELIVERIES_TABLE',
      'ATTEMPTS_TABLE',
      'DELIVERY_QUEUE_URL',
      'HOOKLINE_ALLOW_PRIVATE_TARGETS',
      'HOOKLINE_ALLOWED_PORTS',
      'HOOKLINE_SENDER_TIMEOUT_MS',
      'HOOKLINE_IN_FLIGHT_WAIT_SECONDS',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_AUTO_PAUSE_SECONDS',
      'HOOKLINE_SECRETS_OPEN_KEY_ID',
      'HOOKLINE_SECRETS_CACHE_SECONDS',
      // A message due longer than the sweeper's grace reads its row first: the sweeper may have sent the delivery again.
      'HOOKLINE_SWEEP_GRACE_SECONDS',
      // A dead letter extends its event's TTL to its own retention.
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
      // Subscriptions' rateLimitPerSecond: the rate gate's sub-window counts and turns (keys `send#…`).
      'RATE_LIMITS_TABLE',
      // The slow lane: where deliveries of a subscription marked slow go, and what it consumes beside the delivery queue.
      'SLOW_DELIVERY_QUEUE_URL',
      'HOOKLINE_SLOW_LANE_AFTER_MS',
    ],
  },
  sweeper: {
    entry: 'lambdas/functions/sweeper.ts',
    timeoutSeconds: 300,
    memorySize: 512,
    description:
      'Hookline sweeper: expires past-deadline deliveries, re-enqueues lost messages, finishes stopped publishes',
    // Subscriptions and the auto-pause period: an expiry counts toward the dead-letter streak.
    // Events and the ingest manifests: it finishes the fan-out of a publish that stopped half-way.
    // Routes: it finishes routing changes whose writer stopped half-way, and builds the index of a deployment from before it.
    environment: [
      'SUBSCRIPTIONS_TABLE',
      'ROUTES_TABLE',
      'EVENTS_TABLE',
      'DELIVERIES_TABLE',
      'INGEST_MANIFESTS_TABLE',
      'DELIVERY_QUEUE_URL',
      'HOOKLINE_SENDER_TIMEOUT_MS',
      'HOOKLINE_SWEEP_GRACE_SECONDS',
      'HOOKLINE_AUTO_PAUSE_SECONDS',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
    ],
  },
  replay: {
    entry: 'lambdas/functions/replay.ts',
    // Lambda's maximum: a bulk replay works until 30 s before it, checkpoints, and the schedule resumes it.
    timeoutSeconds: 900,
    memorySize: 512,
    description: 'Hookline replay: single and bulk replay for operators (audited, paged, resumable)',
    environment: [
      'SUBSCRIPTIONS_TABLE',
      // A replay extends its event's TTL and its attempts' so the body and the log outlive the replayed delivery.
      'EVENTS_TABLE',
      'ATTEMPTS_TABLE',
      'DELIVERIES_TABLE',
      'DELIVERY_QUEUE_URL',
      'REPLAYS_TABLE',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_REPLAY_WINDOW_SECONDS',
      // A bulk replay's range is capped at the retention window.
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
    ],
  },
  archiver: {
    entry: 'lambdas/functions/archiver.ts',
    timeoutSeconds: 900,
    memorySize: 1024,
    description: 'Hookline archiver: moves terminal deliveries past retention to S3 (gzip NDJSON) and restores ranges',
    environment: [
      'SUBSCRIPTIONS_TABLE',
      'EVENTS_TABLE',
      'DELIVERIES_TABLE',
      'ATTEMPTS_TABLE',
      'ARCHIVE_BATCHES_TABLE',
      'ARCHIVE_BUCKET',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
      'HOOKLINE_ARCHIVE_BATCH_SIZE',
      'HOOKLINE_RESTORE_HOLD_DAYS',
      'HOOKLINE_ARCHIVE_LOCK_SECONDS',
    ],
  },
  notifier: {
    entry: 'lambdas/functions/notifier.ts',
    timeoutSeconds: 300,
    memorySize: 512,
    description: 'Hookline notifier: failure notices to subscription owners and support, and operational webhooks',
    environment: [
      // What it reads to tell a failing subscription (at read time, like the stats) and what a notice lists.
      'SUBSCRIPTIONS_TABLE',
      // Operational webhooks are routed like any event.
      'ROUTES_TABLE',
      'DELIVERIES_TABLE',
      'ATTEMPTS_TABLE',
      // Event types of the listed events; operational webhooks are published like any event (stored, fanned out, enqueued).
      'EVENTS_TABLE',
      'DELIVERY_QUEUE_URL',
      'INGEST_MANIFESTS_TABLE',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_ARCHIVE_DELIVERED',
      // Completed bulk replays (replay.completed).
      'REPLAYS_TABLE',
      'NOTICES_TABLE',
      'HOOKLINE_NOTICE_FIRST_SECONDS',
      'HOOKLINE_NOTICE_SECOND_SECONDS',
      'HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS',
      'HOOKLINE_NOTICE_LOST_AFTER_SECONDS',
      'HOOKLINE_NOTICE_RECOVERED',
      'HOOKLINE_NOTICE_LEASE_SECONDS',
      'HOOKLINE_NOTICE_SUPPORT_EMAIL',
      'HOOKLINE_CONSOLE_URL',
      'HOOKLINE_MAIL_TRANSPORT',
      'HOOKLINE_MAIL_FROM',
    ],
  },
} as const satisfies Record<string, FunctionDef>;
export type FunctionKey = keyof typeof FUNCTIONS;

const DAY = 86_400;

export const QUEUES = {
  ingest: {
    envVar: 'INGEST_QUEUE_URL',
    localName: 'hookline-ingest',
    visibilityTimeoutSeconds: 6 * FUNCTIONS.ingest.timeoutSeconds,
    retentionSeconds: 4 * DAY,
    maxReceiveCount: 5,
    redrive: { localName: 'hookline-ingest-redrive', retentionSeconds: 14 * DAY },
  },
  delivery: {
    envVar: 'DELIVERY_QUEUE_URL',
    localName: 'hookline-delivery',
    visibilityTimeoutSeconds: 6 * FUNCTIONS.sender.timeoutSeconds,
    // Longer than the default 72 h retry deadline, so a message outlives its retries.
    retentionSeconds: 14 * DAY,
    // Every retry is a receive; 1000 (the SQS maximum) is far above the ~80 receives the
    // default 72 h schedule needs, so business retries never reach the redrive queue.
    maxReceiveCount: 1000,
    redrive: { localName: 'hookline-delivery-redrive', retentionSeconds: 14 * DAY },
  },
  // The slow lane (domain/slow-lane.ts): deliveries of subscriptions whose endpoint was just
  // slow, consumed by the same sender with a concurrency of its own, so they cannot hold the
  // main lane's batches. Settings as the delivery queue's: the same messages, the same retries.
  slowDelivery: {
    envVar: 'SLOW_DELIVERY_QUEUE_URL',
    localName: 'hookline-delivery-slow',
    visibilityTimeoutSeconds: 6 * FUNCTIONS.sender.timeoutSeconds,
    retentionSeconds: 14 * DAY,
    maxReceiveCount: 1000,
    redrive: { localName: 'hookline-delivery-slow-redrive', retentionSeconds: 14 * DAY },
  },
} as const satisfies Record<string, QueueDef>;
export type QueueKey = keyof typeof QUEUES;

export interface EventSourceDef {
  readonly queue: QueueKey;
  readonly function: FunctionKey;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly reportBatchItemFailures: true;
  /** Upper bound on concurrent batches (Lambda's ScalingConfig.MaximumConcurrency). */
  readonly maxConcurrency: number;
}

export const EVENT_SOURCES = [
  {
    queue: 'ingest',
    function: 'ingest',
    batchSize: 100,
    maxBatchingWindowSeconds: 1,
    reportBatchItemFailures: true,
    maxConcurrency: 5,
  },
  {
    queue: 'delivery',
    function: 'sender',
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    reportBatchItemFailures: true,
    maxConcurrency: 20,
  },
  {
    queue: 'slowDelivery',
    function: 'sender',
    // Every delivery here is expected to wait out most of its timeout, so a batch holds its slot for
    // about as long whether it is 10 or 100: 100 (one delivery a message) carries ten times the
    // attempts a slot, and the second it may wait to fill is nothing beside 15 s.
    batchSize: 100,
    maxBatchingWindowSeconds: 1,
    reportBatchItemFailures: true,
    // The least cap (slowLaneMaxConcurrencyFor scales it with the main lane's).
    maxConcurrency: 10,
  },
] as const satisfies readonly EventSourceDef[];

/** A Lambda event source on a table's DynamoDB stream: the hand-off from a stored event to its first messages. */
export interface StreamSourceDef {
  readonly table: TableKey;
  readonly function: FunctionKey;
  /** Only records of this kind are handed over (a filter of the mapping: the others are not even invoked for). */
  readonly eventName: 'INSERT';
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  /** A failing batch is halved for its next try, so the one record that fails ends up alone (BisectBatchOnFunctionError). */
  readonly bisectBatchOnError: boolean;
  /** Tries of a failing batch before its records are given up. */
  readonly retryAttempts: number;
}

export const STREAM_SOURCES = [
  {
    table: 'events',
    function: 'ingest',
    eventName: 'INSERT',
    // Lambda reads each shard 4 times a second, so the events of a quarter second's publishes
    // travel together (their first messages share SQS requests and packs) with no window: a
    // window of 1 s put the model's p50 at 717 ms instead of 358 (500 deliveries a second).
    batchSize: 100,
    maxBatchingWindowSeconds: 0,
    // A record given up is not lost: the sweeper's check of its publish's manifest sends its
    // deliveries after the grace. Bisecting isolates the one event that fails, so the others of
    // its batch go on; retrying until the record expires (24 h) would hold its whole shard.
    bisectBatchOnError: true,
    retryAttempts: 10,
  },
] as const satisfies readonly StreamSourceDef[];

/** The slow lane's share of the sender: a default cap of one slot for every SLOW_LANE_SHARE of the main lane's. */
export const SLOW_LANE_SHARE = 4;

/**
 * The slow lane's cap when none is set, from the main lane's (MaximumConcurrency, `senderMaxConcurrency`):
 * a quarter of it, and at least the EVENT_SOURCES entry's 10. A deployment raised for more traffic
 * has more slow endpoints to carry too: at the 15 s timeout a slot attempts 100 ÷ 15 ≈ 6.7 a
 * second, so the 100 of a main cap of 400 (10,000 deliveries a second) carry about 670 hanging
 * attempts a second, while slow endpoints hold at most a fifth of the sender's concurrency.
 */
export function slowLaneMaxConcurrencyFor(mainMaxConcurrency: number): number {
  const least = EVENT_SOURCES.find((s) => s.queue === 'slowDelivery')!.maxConcurrency;
  return Math.max(least, Math.ceil(mainMaxConcurrency / SLOW_LANE_SHARE));
}

/**
 * Reserved concurrency (Lambda ReservedConcurrentExecutions) per function where the CDK's
 * `reservedConcurrency` prop sets none: none, on purpose. A reservation is a floor and a cap at
 * once, and Lambda refuses one that leaves fewer than 100 of the account's concurrent executions
 * unreserved, so any default here would fail the first deploy on an account still at a low quota
 * (new accounts may start well below 1,000) and take concurrency from the account's other
 * workloads. Without one the sender and ingest stay bounded by their event sources'
 * MaximumConcurrency (EVENT_SOURCES) and the scheduled functions by their schedules; the api
 * scales with its stage throttle times its duration, so it is the one to cap
 * (`reservedConcurrency.api`), and a sender reservation of at least its maxConcurrency
 * guarantees it its batches (docs/aws.md, "Reserved concurrency").
 */
export const RESERVED_CONCURRENCY_DEFAULTS: Readonly<Partial<Record<FunctionKey, number>>> = {};

export interface ScheduleDef {
  readonly function: FunctionKey;
  readonly rateMinutes: number;
}

export const SCHEDULES = [
  { function: 'sweeper', rateMinutes: 1 },
  // Resumes bulk replays whose worker stopped (budget spent or crashed); a no-op query otherwise.
  { function: 'replay', rateMinutes: 1 },
  { function: 'archiver', rateMinutes: 1440 },
  // Failure notices are hour-scale (1 h, 24 h, 6 h before expiry): a few minutes' lag is nothing, and each run reads every
  // active subscription's newest deliveries, so a longer period costs less (docs/operations.md).
  { function: 'notifier', rateMinutes: 5 },
] as const satisfies readonly ScheduleDef[];

/**
 * Per-attempt HTTP timeout of the sender. Not a domain policy (the domain never waits on the
 * network), so its one definition is here; the CDK's `senderTimeout` prop defaults to it.
 */
export const DEFAULT_SENDER_TIMEOUT_MS = 15_000;
/** Publishes (manifests) and due deliveries the sweeper reads per pass: one page of each store's reads. */
export const SWEEP_PASS_LIMIT = 1000;
/**
 * How long one sweeper run goes on starting passes while they come back full: under its one-minute
 * schedule (SCHEDULES), so runs never overlap, and well inside its 300 s timeout for the last pass.
 */
export const SWEEP_RUN_BUDGET_MS = 45_000;
/**
 * Delivery rows a sweeper run reads a second at most (app/read-pace.ts), over all its shards:
 * 16,000 eventually consistent reads of rows under 4 KB are 8,000 read units, two thirds of a
 * new on-demand table's warm 12,000, the rest left to the senders and the API. At 45 s of every
 * minute it keeps up with 12,000 published deliveries a second; raise the table's warm
 * throughput before raising this.
 */
export const SWEEP_READ_ROWS_PER_SECOND = 16_000;
/** Rows the publish check reads between two checkpoints of a shard's progress: a throttle costs at most this much done again. */
export const SWEEP_READ_SLICE_ROWS = 1_000;
/** The sweeper's grace for a pending delivery past due (see HOOKLINE_SWEEP_GRACE_SECONDS); no CDK prop sets it. */
export const DEFAULT_SWEEP_GRACE_SECONDS = 120;
/**
 * The longest one delivery's handling takes (two attempt timeouts and a margin): the local
 * runtime receives delivery messages for as long, so a message whose worker died comes back
 * soon, and a message that goes on without reading its row must be this far inside the
 * sweeper's grace, so its outcome is written before the sweeper could send it again.
 */
export function longestHandlingMs(attemptTimeoutMs: number): number {
  return 2 * attemptTimeoutMs + 5000;
}
/** How long a paused subscription's delivery waits before it is looked at again (resume re-enqueues at once). */
export const PAUSED_RECHECK_SECONDS = 3600;
/**
 * The longest wait a delivery spends in flight, its message's visibility set to the wait
 * (HOOKLINE_IN_FLIGHT_WAIT_SECONDS); a planned retry never does (it leaves as a message carrying
 * the row as its attempt wrote it, app/redelivery/settle.ts). SQS holds about 120,000 messages in flight per queue, and a
 * dead endpoint's backoff would fill that; a longer wait travels as a delayed message instead,
 * which SQS holds without limit (docs/aws.md, "Retries in flight").
 */
export const DEFAULT_IN_FLIGHT_WAIT_SECONDS = 60;
/**
 * How long a container reuses a subscription's decrypted data key. It bounds how long signing
 * goes on after the key's grant is revoked (a rotated secret is a new data key, used within the
 * 5 s subscription cache). An hour, not minutes: at 10 million deliveries a month over 1,000
 * subscriptions, 5 minutes costs about $2.30 a million deliveries in Decrypts, an hour $0.45.
 */
export const DEFAULT_SECRETS_CACHE_SECONDS = 3600;
/**
 * How long a publishing container (api, ingest) reuses the event-type catalog it read, under a
 * `warn` or `refuse` check: one Scan of the (small) catalog per container per this, and how long
 * a registration, change or deletion takes to reach publish (the api's own writes: at once).
 */
export const EVENT_TYPE_CATALOG_CACHE_MS = 30_000;
/** SQS's longest message delay. */
export const MAX_MESSAGE_DELAY_SECONDS = 900;
/**
 * The longest delay Hookline sends a delivery message with; a longer wait travels as a chain of
 * such messages. Under SQS's 900 s and under the DeliveryQueueStuck alarm's 15 minutes of
 * message age (with a minute to spare), so a delivery waiting out its backoff never looks like
 * a queue nobody consumes.
 */
export const MAX_WAIT_LINK_SECONDS = 840;

/**
 * How long the sender gathers its planned retries' messages before sending them as one request
 * (app/redelivery/gathered-sends.ts), and how many at most: a SendMessageBatch's 10 messages, each a
 * pack of DELIVERIES_PER_MESSAGE. A retry waits at least a second; 100 ms more is within its lateness.
 */
export const RETRY_GATHER_MS = 100;
export const RETRIES_PER_GATHERED_SEND = 10 * DELIVERIES_PER_MESSAGE;
/** The value of an optional setting (HOOKLINE_NOTICE_SUPPORT_EMAIL, HOOKLINE_CONSOLE_URL) that means "none". */
export const NO_SETTING = 'none';
/** The From address of notice emails when the deployment names none (the CDK sets it from the SES identity). */
export const DEFAULT_MAIL_FROM = 'notices@hookline.invalid';

/**
 * How long after its creation time a publish batch's manifest may still be being written: the
 * longest a publishing function (api, ingest) runs, plus a margin for a write sent just before
 * its timeout. The sweeper's watermark never passes a key younger than this, so a manifest that
 * lands late is still checked (app/sweep/finish-publish.ts), and publish stops before storing
 * anything when its own manifest landed later than half of it.
 */
export const MANIFEST_SETTLE_SECONDS = Math.max(FUNCTIONS.api.timeoutSeconds, FUNCTIONS.ingest.timeoutSeconds) + 30;

/**
 * Every environment variable a handler may read, with its default where one exists. Each
 * default is derived from its one definition (a domain DEFAULT_* or a constant above), never
 * restated: the handlers, the local runtime and the CDK all fall back to these strings.
 */
/**
 * How long a granted bearer credential is trusted without a new lookup: API Gateway's authorizer
 * cache (the `authorizerCacheTtl` prop), or the api's own when it checks keys itself. A revoked or
 * expired tenant key, or an ended portal session, stops working within it.
 */
export const DEFAULT_AUTH_CACHE_SECONDS = 30;

export const ENV_DEFAULTS = {
  SUBSCRIPTIONS_TABLE: undefined,
  ROUTES_TABLE: undefined,
  EVENTS_TABLE: undefined,
  DELIVERIES_TABLE: undefined,
  ATTEMPTS_TABLE: undefined,
  DELIVERY_QUEUE_URL: undefined,
  INGEST_QUEUE_URL: undefined,
  SLOW_DELIVERY_QUEUE_URL: undefined,
  HOOKLINE_ADMIN_KEY_SECRET_ID: undefined,
  /**
   * The admin key the api checks bearer credentials against itself, when its entry is a Function
   * URL with bearer auth (handlers/api/in-process-auth.ts); `none`: API Gateway's authorizer (or
   * IAM) has checked the caller before the api runs.
   */
  HOOKLINE_API_ADMIN_KEY_SECRET_ID: 'none',
  /** How long the api keeps a granted credential when it checks them itself: API Gateway's authorizer cache, in its place. */
  HOOKLINE_AUTH_CACHE_SECONDS: String(DEFAULT_AUTH_CACHE_SECONDS),
  /** The KMS key (id or ARN) that seals new subscriptions' signing secrets (api: GenerateDataKey); `local` in the local runtime. */
  HOOKLINE_SECRETS_SEAL_KEY_ID: undefined,
  /** The same key, for opening them to sign (sender: Decrypt); `local` in the local runtime. */
  HOOKLINE_SECRETS_OPEN_KEY_ID: undefined,
  /** How long a container reuses a decrypted data key (one KMS Decrypt per ring, or per subscription sealed before the keyring, per this). */
  HOOKLINE_SECRETS_CACHE_SECONDS: String(DEFAULT_SECRETS_CACHE_SECONDS),
  /** '1' lets deliveries reach loopback/private addresses: local development only. */
  HOOKLINE_ALLOW_PRIVATE_TARGETS: '0',
  /** Destination ports subscriptions may use, checked at creation and at every send (lambdas/domain/target-ports.ts). */
  HOOKLINE_ALLOWED_PORTS: DEFAULT_ALLOWED_PORTS,
  HOOKLINE_SENDER_TIMEOUT_MS: String(DEFAULT_SENDER_TIMEOUT_MS),
  /** How long past due a pending delivery may sit before the sweeper decides its message was lost. */
  HOOKLINE_SWEEP_GRACE_SECONDS: String(DEFAULT_SWEEP_GRACE_SECONDS),
  /** The longest wait a delivery's message spends in flight (visibility); a longer one is sent again as a delayed message. */
  HOOKLINE_IN_FLIGHT_WAIT_SECONDS: String(DEFAULT_IN_FLIGHT_WAIT_SECONDS),
  HOOKLINE_SLOW_LANE_AFTER_MS: String(SLOW_LANE.slowAfterMs),
  /** JSON partial RetryPolicy merged over the built-in default (DEFAULT_RETRY_POLICY); empty: that default as it is. */
  HOOKLINE_DEFAULT_RETRY_POLICY: '{}',
  REPLAYS_TABLE: undefined,
  API_KEYS_TABLE: undefined,
  RATE_LIMITS_TABLE: undefined,
  ARCHIVE_BATCHES_TABLE: undefined,
  INGEST_MANIFESTS_TABLE: undefined,
  IDEMPOTENCY_KEYS_TABLE: undefined,
  PORTAL_SESSIONS_TABLE: undefined,
  EVENT_TYPES_TABLE: undefined,
  KEYRING_TABLE: undefined,
  /** What publish does with an unregistered type or a payload its schema refuses: `allow`, `warn` or `refuse` (domain/event-type-catalog.ts). */
  HOOKLINE_EVENT_TYPE_CHECK: DEFAULT_EVENT_TYPE_CHECK,
  ARCHIVE_BUCKET: undefined,
  /** The archiver function's name: the api invokes it for the console's archive runs and restores. */
  ARCHIVER_FUNCTION_NAME: undefined,
  /** Seconds over which a bulk replay spreads its re-attempts at random (0: all due at once). */
  HOOKLINE_REPLAY_WINDOW_SECONDS: String(DEFAULT_REPLAY_POLICY.windowSeconds),
  /** Single replays a tenant key may make per subscription per window (429 with Retry-After beyond). */
  HOOKLINE_CUSTOMER_REPLAY_LIMIT: String(DEFAULT_CUSTOMER_REPLAY_LIMIT.limit),
  HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS: String(DEFAULT_CUSTOMER_REPLAY_LIMIT.windowSeconds),
  /** Pauses and resumes (together) a tenant key may make per subscription per window (429 with Retry-After beyond). */
  HOOKLINE_CUSTOMER_PAUSE_LIMIT: String(DEFAULT_CUSTOMER_PAUSE_LIMIT.limit),
  HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS: String(DEFAULT_CUSTOMER_PAUSE_LIMIT.windowSeconds),
  /** A subscription whose deliveries dead-letter without a success for this long is paused. */
  HOOKLINE_AUTO_PAUSE_SECONDS: String(DEFAULT_AUTO_PAUSE_POLICY.afterSeconds),
  /** Days a delivered delivery stays in DynamoDB before the archiver moves it to S3 (fractions allowed). */
  HOOKLINE_RETENTION_DELIVERED_DAYS: String(DEFAULT_RETENTION.deliveredDays),
  /** Days a dead letter stays visible and replayable before it is archived. */
  HOOKLINE_RETENTION_DEAD_LETTER_DAYS: String(DEFAULT_RETENTION.deadLetterDays),
  /** '1': the archiver moves delivered deliveries to S3 after their retention; '0': TTL deletes them then, for free. */
  HOOKLINE_ARCHIVE_DELIVERED: String(DEFAULT_RETENTION.archiveDelivered),
  /** Most deliveries per archive object. */
  HOOKLINE_ARCHIVE_BATCH_SIZE: String(DEFAULT_ARCHIVE_POLICY.batchSize),
  /** Days restored deliveries stay in DynamoDB before the archiver drops them again. */
  HOOKLINE_RESTORE_HOLD_DAYS: String(DEFAULT_ARCHIVE_POLICY.restoreHoldDays),
  /** Seconds the archiver's run lock lives without renewal (renewed at every batch): how long a run that died blocks the next. */
  HOOKLINE_ARCHIVE_LOCK_SECONDS: String(DEFAULT_ARCHIVE_POLICY.lockSeconds),
  NOTICES_TABLE: undefined,
  /** Failure notices (domain/notices.ts): how long a subscription has failed at the first and the second notice. */
  HOOKLINE_NOTICE_FIRST_SECONDS: String(DEFAULT_NOTICE_POLICY.firstAfterSeconds),
  HOOKLINE_NOTICE_SECOND_SECONDS: String(DEFAULT_NOTICE_POLICY.secondAfterSeconds),
  /** How long before the oldest pending delivery's deadline the "expiring" notice goes. */
  HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS: String(DEFAULT_NOTICE_POLICY.beforeExpirySeconds),
  /** The lost summary's latest time after the oldest pending deadline (it goes sooner once nothing is still tried). */
  HOOKLINE_NOTICE_LOST_AFTER_SECONDS: String(DEFAULT_NOTICE_POLICY.lostAfterSeconds),
  /** 1: a "recovered" notice when a 2xx ends a streak someone was told about; 0: none. */
  HOOKLINE_NOTICE_RECOVERED: String(DEFAULT_NOTICE_POLICY.recovered),
  /** How long a decided notice is its worker's to send before another takes it over. */
  HOOKLINE_NOTICE_LEASE_SECONDS: String(DEFAULT_NOTICE_POLICY.leaseSeconds),
  /** The producer's support address: every notice goes to it too ('none': no such address). */
  HOOKLINE_NOTICE_SUPPORT_EMAIL: NO_SETTING,
  /** The dashboard's base URL, for links to a subscription's dead letters ('none': the API path instead). */
  HOOKLINE_CONSOLE_URL: NO_SETTING,
  /** How notice emails go: `ses` (Amazon SES v2, on AWS), `local` (the local runtime's SMTP or mail catcher), `off` (no email). */
  HOOKLINE_MAIL_TRANSPORT: 'off',
  /** The From address of notice emails (on AWS, an address of the SES identity). */
  HOOKLINE_MAIL_FROM: DEFAULT_MAIL_FROM,
} as const;
export type EnvName = keyof typeof ENV_DEFAULTS;

/** Powertools' levels; Lambda's application log level takes the same names. */
export type LogLevelName = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
/** Lambda's system (platform) log levels. */
export type PlatformLogLevelName = 'DEBUG' | 'INFO' | 'WARN';

/**
 * What a deployed stack records by default, each a construct prop; docs/aws.md, "What
 * observability costs", prices each, and `npm run bench` prices the defaults. The defaults are a
 * cost-minded operator's: what pages on-call (the metrics and alarms) stays, what only helps
 * browsing is opt-in.
 */
export const OBSERVABILITY_DEFAULTS = {
  /**
   * Powertools' level on every function. WARN logs what went wrong only; INFO adds the sender's
   * record per attempt (the per-subscription view in Logs Insights and the DeliveryAttempts
   * metric), about 0.85 KB an attempt on a deployed function.
   */
  logLevel: 'WARN' as LogLevelName,
  /** Lambda's own records: WARN drops the START, END and REPORT lines of every invocation (0.25 KB); INFO keeps them. */
  platformLogLevel: 'WARN' as PlatformLogLevelName,
  /**
   * X-Ray active tracing on the functions (and the REST stage): Lambda records 1 invocation a
   * second and 5 % of the rest, at $5 per million traces.
   */
  tracing: false,
  /** The API access log record (API_ACCESS_LOG_FORMATS). */
  apiAccessLog: 'lean' as ApiAccessLogFormat,
  /** Days every Hookline log group keeps its records (a CloudWatch Logs retention value). */
  logRetentionDays: 30,
} as const;

/** Set on every function: Powertools reads these, and the alarms match the metrics they name. */
export const COMMON_ENVIRONMENT = {
  POWERTOOLS_SERVICE_NAME: 'hookline',
  POWERTOOLS_METRICS_NAMESPACE: 'Hookline',
  NODE_OPTIONS: '--enable-source-maps',
} as const;

/** The archive bucket's lifecycle when props leave it unset; WebhookDelivery's `retention` defaults and the bench read it. */
export const ARCHIVE_LIFECYCLE_DEFAULTS = Object.freeze({
  coldAfterDays: 30,
  expireAfterDays: 365,
  accessLogRetentionDays: 90,
});

/**
 * The HTTP API's access log record, in HTTP API variables. HTTP API has no execution log, so
 * both carry the authorizer and integration errors REST logs at ERROR level. `standard` is the
 * REST stage's standard JSON fields (about 320 B a request); `lean` keeps what ties a request to
 * its function's records and says how it ended (about 170 B).
 */
/**
 * What serves the HTTP API (the CDK's `apiType`; docs/aws.md, "API type"): the api function's
 * own Lambda Function URL (`url`, no per-request charge; the api checks bearer keys itself), an
 * API Gateway HTTP API (`http`, $1.00 a million, with a stage throttle and access logs) or a REST
 * API (`rest`, $3.50 a million, for WAF).
 */
export const API_TYPES = ['url', 'http', 'rest'] as const;
export type ApiType = (typeof API_TYPES)[number];
/** The entry a deployment gets unless it names one: the one with no per-request charge. */
export const DEFAULT_API_TYPE: ApiType = 'url';
/** What serves the API for each `apiType`, as messages and figures name it. */
export const API_ENTRY_NAMES: Readonly<Record<ApiType, string>> = {
  url: 'a Function URL',
  http: 'an API Gateway HTTP API',
  rest: 'an API Gateway REST API',
};

export const API_ACCESS_LOG_FORMATS = {
  standard: {
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    caller: '$context.identity.caller',
    user: '$context.identity.user',
    requestTime: '$context.requestTime',
    httpMethod: '$context.httpMethod',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    integrationLatency: '$context.integrationLatency',
    authorizerError: '$context.authorizer.error',
    integrationError: '$context.integrationErrorMessage',
  },
  lean: {
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    routeKey: '$context.routeKey',
    status: '$context.status',
    integrationLatency: '$context.integrationLatency',
    authorizerError: '$context.authorizer.error',
    integrationError: '$context.integrationErrorMessage',
  },
} as const;
export type ApiAccessLogFormat = keyof typeof API_ACCESS_LOG_FORMATS;

/** EMF metric names the handlers emit (namespace and `service` dimension from COMMON_ENVIRONMENT). */
export const METRICS = {
  eventsPublished: 'EventsPublished',
  succeeded: 'DeliveriesSucceeded',
  /** Every attempt, counted from the per-attempt log record (an EMF document that also carries subscriptionId, eventType and outcome as properties). */
  attempts: 'DeliveryAttempts',
  /** An attempt that failed in a way worth retrying, rescheduled: the dashboard's retry rate. */
  retried: 'DeliveriesRetried',
  failed: 'DeliveriesFailed',
  expired: 'DeliveriesExpired',
  deadLettered: 'DeadLettered',
  attemptLatency: 'AttemptLatency',
  /** A failure notice sent (email and operational webhook). */
  noticesSent: 'NoticesSent',
  /** A notice send that failed (mail refused, publish failed); it is tried again, and the NoticesNotSent alarm watches this. */
  noticeSendFailures: 'NoticeSendFailures',
} as const;
/** A counted metric (every name but the latency distribution). */
export type CountMetric = Exclude<(typeof METRICS)[keyof typeof METRICS], typeof METRICS.attemptLatency>;
/** What each recorded outcome adds to the delivery metrics (a retry is not an outcome yet), the sender's or the sweeper's. */
export const OUTCOME_METRICS: Readonly<Record<CompletionAction, readonly CountMetric[]>> = {
  succeed: [METRICS.succeeded],
  retry: [METRICS.retried],
  fail_permanently: [METRICS.failed, METRICS.deadLettered],
  give_up: [METRICS.expired, METRICS.deadLettered],
};
