import { DynamoDbAttemptStore } from '../dynamodb-attempt-store.ts';
import { DynamoDbDeliveryStore } from '../dynamodb-delivery-store.ts';
import { DynamoDbEventStore } from '../dynamodb-event-store.ts';
import { DynamoDbEventTypeStore } from '../dynamodb-event-type-store.ts';
import { DynamoDbIngestManifestStore } from '../dynamodb-ingest-manifest-store.ts';
import { DynamoDbRateLimiter } from '../dynamodb-rate-limiter.ts';
import { DynamoDbRecoveryStore } from '../dynamodb-recovery-store.ts';
import { DynamoDbSendRateCounters } from '../dynamodb-send-rate-counters.ts';
import { DynamoDbSubscriptionStore } from '../dynamodb-subscription-store.ts';
import { DynamoDbRouteStore } from '../dynamodb-route-store.ts';
import { POLICIES_FROM_ENV } from '../policy-env.ts';
import { EVENT_TYPE_CATALOG_CACHE_MS } from '#config/topology.ts';
import type { Factories } from './factory.ts';

/**
 * The DynamoDB stores of the delivery path (publish, send, sweep), over the build's one document
 * client: a group of its own so the sender's bundle carries none of the control-plane stores
 * (CONTROL_STORE_FACTORIES, dynamodb-factories.ts), nor the publish manifests, which it never
 * reads (MANIFEST_STORE_FACTORIES).
 */
export const ENGINE_STORE_FACTORIES: Factories<
  'subscriptions' | 'routes' | 'events' | 'deliveries' | 'attempts' | 'recovery' | 'rateLimiter' | 'sendRate'
> = {
  subscriptions: (v, s) =>
    new DynamoDbSubscriptionStore(s.db, v.SUBSCRIPTIONS_TABLE, s.options.subscriptionCacheMs ?? 5000, s.clock.now),
  // Fan-out's lookups share the subscriptions' cache period: a change reaches publish within it.
  routes: (v, s) => new DynamoDbRouteStore(s.db, v.ROUTES_TABLE, s.options.subscriptionCacheMs ?? 5000, s.clock.now),
  // A new event's TTL is publish's (eventTtlFor); the delivery rows' follows the retention, the documented default for a function without those variables.
  events: (v, s) => new DynamoDbEventStore(s.db, v.EVENTS_TABLE),
  deliveries: (v, s) =>
    new DynamoDbDeliveryStore(s.db, v.DELIVERIES_TABLE, { retention: POLICIES_FROM_ENV.retention(v) }),
  attempts: (v, s) => new DynamoDbAttemptStore(s.db, v.ATTEMPTS_TABLE),
  // The recovery store also reads attempts and events when the function has those tables (the archiver).
  recovery: (v, s) =>
    new DynamoDbRecoveryStore(s.db, {
      deliveries: v.DELIVERIES_TABLE,
      ...(v.ATTEMPTS_TABLE ? { attempts: v.ATTEMPTS_TABLE } : {}),
      ...(v.EVENTS_TABLE ? { events: v.EVENTS_TABLE } : {}),
    }),
  rateLimiter: (v, s) => new DynamoDbRateLimiter(s.db, v.RATE_LIMITS_TABLE),
  sendRate: (v, s) => new DynamoDbSendRateCounters(s.db, v.RATE_LIMITS_TABLE),
};

/** The publish manifests (the sweeper's check, the event log, the deliveries not yet written): publish, sweep and the read paths. */
export const MANIFEST_STORE_FACTORIES: Factories<'ingestManifests'> = {
  ingestManifests: (v, s) => new DynamoDbIngestManifestStore(s.db, v.INGEST_MANIFESTS_TABLE),
};

/** The event-type catalog: the api registers types in it, and publish (api, ingest) reads it whole, cached, under a `warn` or `refuse` check. */
export const CATALOG_STORE_FACTORIES: Factories<'eventTypes'> = {
  eventTypes: (v, s) =>
    new DynamoDbEventTypeStore(
      s.db,
      v.EVENT_TYPES_TABLE,
      s.options.eventTypeCacheMs ?? EVENT_TYPE_CATALOG_CACHE_MS,
      s.clock.now,
    ),
};
