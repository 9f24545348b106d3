import { DynamoDbApiKeyStore } from '../dynamodb-api-key-store.ts';
import { DynamoDbArchiveManifestStore } from '../dynamodb-archive-manifest-store.ts';
import { DynamoDbAttemptStore } from '../dynamodb-attempt-store.ts';
import { DynamoDbDeliveryStore } from '../dynamodb-delivery-store.ts';
import { DynamoDbEventStore } from '../dynamodb-event-store.ts';
import { DynamoDbIdempotencyStore } from '../dynamodb-idempotency-store.ts';
import { DynamoDbIngestManifestStore } from '../dynamodb-ingest-manifest-store.ts';
import { DynamoDbNoticeStore } from '../dynamodb-notice-store.ts';
import { DynamoDbPortalSessionStore } from '../dynamodb-portal-session-store.ts';
import { DynamoDbRateLimiter } from '../dynamodb-rate-limiter.ts';
import { DynamoDbRecoveryStore } from '../dynamodb-recovery-store.ts';
import { DynamoDbReplayStore } from '../dynamodb-replay-store.ts';
import { DynamoDbSendRateCounters } from '../dynamodb-send-rate-counters.ts';
import { DynamoDbSubscriptionStore } from '../dynamodb-subscription-store.ts';
import { POLICIES_FROM_ENV } from '../policy-env.ts';
import type { Factories } from './factory.ts';

/** Every DynamoDB-backed store, over the build's one document client. */
export const DYNAMODB_FACTORIES: Factories<'subscriptions' | 'events' | 'deliveries' | 'attempts' | 'replays' | 'recovery' | 'rateLimiter' | 'sendRate' | 'apiKeys' | 'manifests' | 'ingestManifests' | 'idempotency' | 'portalSessions' | 'notices'> = {
  subscriptions: (v, s) => new DynamoDbSubscriptionStore(s.db, v.SUBSCRIPTIONS_TABLE, s.options.subscriptionCacheMs ?? 5000, s.clock.now),
  // The TTL of new events follows the delivered retention; a function without those variables gets the documented default.
  events: (v, s) => new DynamoDbEventStore(s.db, v.EVENTS_TABLE, { retention: POLICIES_FROM_ENV.retention(v) }),
  deliveries: (v, s) => new DynamoDbDeliveryStore(s.db, v.DELIVERIES_TABLE),
  attempts: (v, s) => new DynamoDbAttemptStore(s.db, v.ATTEMPTS_TABLE),
  replays: (v, s) => new DynamoDbReplayStore(s.db, v.REPLAYS_TABLE),
  // The recovery store also reads attempts and events when the function has those tables (the archiver).
  recovery: (v, s) =>
    new DynamoDbRecoveryStore(s.db, { deliveries: v.DELIVERIES_TABLE, ...(v.ATTEMPTS_TABLE ? { attempts: v.ATTEMPTS_TABLE } : {}), ...(v.EVENTS_TABLE ? { events: v.EVENTS_TABLE } : {}) }),
  rateLimiter: (v, s) => new DynamoDbRateLimiter(s.db, v.RATE_LIMITS_TABLE),
  sendRate: (v, s) => new DynamoDbSendRateCounters(s.db, v.RATE_LIMITS_TABLE),
  apiKeys: (v, s) => new DynamoDbApiKeyStore(s.db, v.API_KEYS_TABLE),
  manifests: (v, s) => new DynamoDbArchiveManifestStore(s.db, v.ARCHIVE_BATCHES_TABLE),
  ingestManifests: (v, s) => new DynamoDbIngestManifestStore(s.db, v.INGEST_MANIFESTS_TABLE),
  idempotency: (v, s) => new DynamoDbIdempotencyStore(s.db, v.IDEMPOTENCY_KEYS_TABLE),
  notices: (v, s) => new DynamoDbNoticeStore(s.db, v.NOTICES_TABLE),
  portalSessions: (v, s) => new DynamoDbPortalSessionStore(s.db, v.PORTAL_SESSIONS_TABLE),
};
