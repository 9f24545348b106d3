import { DynamoDbApiKeyStore } from '../dynamodb-api-key-store.ts';
import { DynamoDbArchiveManifestStore } from '../dynamodb-archive-manifest-store.ts';
import { DynamoDbIdempotencyStore } from '../dynamodb-idempotency-store.ts';
import { DynamoDbNoticeStore } from '../dynamodb-notice-store.ts';
import { DynamoDbPortalSessionStore } from '../dynamodb-portal-session-store.ts';
import { DynamoDbReplayStore } from '../dynamodb-replay-store.ts';
import { CATALOG_STORE_FACTORIES, ENGINE_STORE_FACTORIES, MANIFEST_STORE_FACTORIES } from './engine-store-factories.ts';
import type { Factories } from './factory.ts';

/** The control plane's DynamoDB stores: replays, keys, archive batches, idempotency, notices, portal sessions. */
export const CONTROL_STORE_FACTORIES: Factories<
  'replays' | 'apiKeys' | 'manifests' | 'idempotency' | 'notices' | 'portalSessions'
> = {
  replays: (v, s) => new DynamoDbReplayStore(s.db, v.REPLAYS_TABLE),
  apiKeys: (v, s) => new DynamoDbApiKeyStore(s.db, v.API_KEYS_TABLE),
  manifests: (v, s) => new DynamoDbArchiveManifestStore(s.db, v.ARCHIVE_BATCHES_TABLE),
  idempotency: (v, s) => new DynamoDbIdempotencyStore(s.db, v.IDEMPOTENCY_KEYS_TABLE),
  notices: (v, s) => new DynamoDbNoticeStore(s.db, v.NOTICES_TABLE),
  portalSessions: (v, s) => new DynamoDbPortalSessionStore(s.db, v.PORTAL_SESSIONS_TABLE),
};

/** Every DynamoDB-backed store, over the build's one document client. */
export const DYNAMODB_FACTORIES = {
  ...ENGINE_STORE_FACTORIES,
  ...MANIFEST_STORE_FACTORIES,
  ...CATALOG_STORE_FACTORIES,
  ...CONTROL_STORE_FACTORIES,
};
