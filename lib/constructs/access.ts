import type { FunctionKey } from '../../lambdas/config/topology.ts';
import type { TableGrants } from './storage.ts';

/**
 * Which tables each function may touch, and how: the least-privilege map behind every
 * DynamoDB grant, read off what the application services call (lambdas/app/*.ts). A
 * function gets access to exactly the tables its environment names (test/cdk/parity.test.ts
 * checks that), narrowed where its handler only reads or only appends.
 */
export const TABLE_GRANTS = {
  // Subscriptions CRUD and pause/resume; inline publish (POST /v1/events); replay; attempt log reads;
  // bulk replay and its audit trail; minting, listing (byTenant index) and revoking tenant keys;
  // the customer replay and pause counters.
  api: {
    // Listing a tenant's subscriptions queries its byTenant index.
    subscriptions: 'readWrite',
    // A subscription change writes its routing entries (and an intent first); publish looks them up.
    routes: 'readWrite',
    events: 'readWrite',
    deliveries: 'readWrite',
    // The attempt log is read; a replay or a Retry now moves its TTL out (a keys-only Query, an UpdateItem per attempt).
    attempts: 'readWrite',
    replays: 'readWrite',
    apiKeys: 'readWrite',
    rateLimits: 'write',
    // Publish writes each batch's manifest; GET /v1/events reads them as the event log.
    ingestManifests: 'readWrite',
    // Idempotency-Key records: taken, read back on a retry, completed or released.
    idempotencyKeys: 'readWrite',
    // Portal links: minted, exchanged (one conditional write) and revoked.
    portalSessions: 'readWrite',
    // The event-type catalog: registered, replaced and deleted here; read whole by publish under a warn or refuse check.
    eventTypes: 'readWrite',
    // Sealing reads the month's shared data key, or stores it (one conditional put a month).
    keyring: 'readWrite',
  },
  // Looks tenant keys up by hash and portal session tokens by session id; never writes.
  authorizer: { apiKeys: 'read', portalSessions: 'read' },
  // Fan-out looks subscriptions up in the routing index (never a scan) and reads those a publish names;
  // stores the event once and the batch's manifest (no delivery row: a delivery's first attempt writes it).
  // Reads the event-type catalog (never writes it) when the deployment checks events against it.
  ingest: { subscriptions: 'read', routes: 'read', events: 'readWrite', ingestManifests: 'write', eventTypes: 'read' },
  // Reads the subscription (and disables it on 410 Gone) and the stored body; writes each
  // attempt's outcome in one conditional write of its delivery; puts the attempt it replaces
  // to attempts (conditional PutItem, never reads them back).
  // A dead letter extends its event's TTL (UpdateItem). Counts rate-limited subscriptions'
  // attempts and their turns (UpdateItem only, never a read).
  // A 410 Gone takes the subscription out of the routing index (its intent, then its entries).
  sender: {
    subscriptions: 'readWrite',
    routes: 'readWrite',
    events: 'readWrite',
    deliveries: 'readWrite',
    attempts: 'write',
    rateLimits: 'write',
  },
  // Expires and re-enqueues deliveries (and releases rows an earlier version left claimed); an expiry extends the subscription's
  // dead-letter streak and may auto-pause it (conditional updates of the subscription).
  // Checks publish batches' manifests (then moves its per-shard watermark past them), writing a missing delivery from its stored event.
  // Finishes routing changes whose writer stopped, and builds the index of a deployment from before it.
  sweeper: {
    subscriptions: 'readWrite',
    routes: 'readWrite',
    events: 'readWrite',
    deliveries: 'readWrite',
    ingestManifests: 'readWrite',
  },
  // Reads retry policies; replays deliveries; writes and resumes the audit records.
  // A replay extends its event's TTL (UpdateItem, never a read) and its attempts' (a keys-only Query, an UpdateItem each).
  replay: {
    subscriptions: 'read',
    events: 'write',
    attempts: 'readWrite',
    deliveries: 'readWrite',
    replays: 'readWrite',
  },
  // Reads what it archives (attempts too), deletes archived rows (their attempts go by TTL), puts restored rows back
  // (events too, when TTL has taken them); keeps its manifests and run lock.
  archiver: {
    subscriptions: 'read',
    events: 'readWrite',
    deliveries: 'readWrite',
    attempts: 'readWrite',
    archiveBatches: 'readWrite',
  },
  // Reads subscriptions, deliveries, attempts and completed replays to decide notices (never writes them); keeps its
  // streaks and notices; publishes operational webhooks like any publish (manifest, event once, one delivery per subscription).
  notifier: {
    subscriptions: 'read',
    routes: 'read',
    events: 'readWrite',
    deliveries: 'readWrite',
    attempts: 'read',
    ingestManifests: 'write',
    replays: 'read',
    notices: 'readWrite',
  },
} as const satisfies Record<FunctionKey, TableGrants>;
