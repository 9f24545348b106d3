import { createHash } from 'node:crypto';
import { formatId } from '#domain/ids.ts';
import type { ApiKeyRecord, ApiKeyStore } from '#ports/api-key-store.ts';
import type { Clock } from '#ports/clock.ts';
import { iso } from '#domain/time.ts';

/** Tenant keys are recognisable on sight (and by secret scanners), unlike opaque random strings. */
export const TENANT_KEY_PREFIX = 'hk_tenant_';

/** Keys are stored and looked up by SHA-256: high-entropy keys need no slow hash, and the table never holds a usable key. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface MintedKey {
  /** Shown once, never stored. */
  readonly key: string;
  readonly keyId: string;
  readonly tenantId: string;
  readonly createdAt: string;
}

export async function mintTenantKey(deps: { apiKeys: ApiKeyStore; clock: Clock }, tenantId: string): Promise<MintedKey> {
  const key = `${TENANT_KEY_PREFIX}${Buffer.from(deps.clock.randomBytes(32)).toString('base64url')}`;
  const record: ApiKeyRecord = {
    keyHash: hashKey(key),
    keyId: formatId('key', deps.clock.randomBytes(9)),
    tenantId,
    createdAt: iso(deps.clock.now()),
  };
  await deps.apiKeys.put(record);
  return { key, keyId: record.keyId, tenantId, createdAt: record.createdAt };
}

/** The tenant a presented key belongs to, or undefined for anything that is not a live tenant key. */
export async function tenantKey(store: ApiKeyStore, key: string): Promise<ApiKeyRecord | undefined> {
  if (!key.startsWith(TENANT_KEY_PREFIX)) return undefined;
  return store.find(hashKey(key));
}
