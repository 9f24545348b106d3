import { createHash } from 'node:crypto';
import { formatId } from '#domain/ids.ts';
import type { ApiKeyRecord, ApiKeyStore } from '#ports/api-key-store.ts';
import type { Clock } from '#ports/clock.ts';
import { iso } from '#domain/time.ts';
import { NotFoundError } from '#app/errors.ts';
import type { MintKeyRequest } from '#app/tenants/tenant-request.ts';

/** Tenant keys are recognisable on sight (and by secret scanners), unlike opaque random strings. */
export const TENANT_KEY_PREFIX = 'hk_tenant_';

/** Keys are stored and looked up by SHA-256: high-entropy keys need no slow hash, and the table never holds a usable key. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A key as the API shows it: never the key, never its hash. Absent times are null. */
export interface TenantKeyView {
  readonly keyId: string;
  readonly tenantId: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
}

export function tenantKeyView(record: ApiKeyRecord): TenantKeyView {
  return {
    keyId: record.keyId,
    tenantId: record.tenantId,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt ?? null,
    revokedAt: record.revokedAt ?? null,
  };
}

export interface MintedKey extends TenantKeyView {
  /** Shown once, never stored. */
  readonly key: string;
}

type KeyDeps = { apiKeys: ApiKeyStore; clock: Clock };

export async function mintTenantKey(deps: KeyDeps, tenantId: string, request: MintKeyRequest = {}): Promise<MintedKey> {
  const key = `${TENANT_KEY_PREFIX}${Buffer.from(deps.clock.randomBytes(32)).toString('base64url')}`;
  const nowMs = deps.clock.now();
  const record: ApiKeyRecord = {
    keyHash: hashKey(key),
    keyId: formatId('key', deps.clock.randomBytes(9)),
    tenantId,
    createdAt: iso(nowMs),
    ...(request.expiresInSeconds !== undefined ? { expiresAt: iso(nowMs + request.expiresInSeconds * 1000) } : {}),
  };
  await deps.apiKeys.put(record);
  return { key, ...tenantKeyView(record) };
}

/** A tenant's keys, oldest first, revoked and expired ones included (so an operator sees what was cut off and when). */
export async function listTenantKeys(
  deps: Pick<KeyDeps, 'apiKeys'>,
  tenantId: string,
): Promise<readonly ApiKeyRecord[]> {
  const keys = await deps.apiKeys.listByTenant(tenantId);
  return [...keys].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
}

/**
 * Revokes one of a tenant's keys; the authorizer refuses it from then on (on AWS, once API
 * Gateway's 30 s cache of its last decision runs out). Revoking it again keeps the first time.
 */
export async function revokeTenantKey(deps: KeyDeps, tenantId: string, keyId: string): Promise<ApiKeyRecord> {
  const revoked = await deps.apiKeys.revoke(tenantId, keyId, iso(deps.clock.now()));
  if (!revoked) throw new NotFoundError('key', keyId);
  return revoked;
}

/** The tenant a presented key belongs to, or undefined for anything that is not a live tenant key (unknown, revoked or expired). */
export async function tenantKey(store: ApiKeyStore, key: string, nowMs: number): Promise<ApiKeyRecord | undefined> {
  if (!key.startsWith(TENANT_KEY_PREFIX)) return undefined;
  const record = await store.find(hashKey(key));
  if (!record || record.revokedAt) return undefined;
  if (record.expiresAt && record.expiresAt <= iso(nowMs)) return undefined;
  return record;
}
