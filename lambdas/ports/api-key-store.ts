/** A tenant API key as stored: only its SHA-256, never the key. */
export interface ApiKeyRecord {
  readonly keyHash: string;
  /** Public handle of the key (shown in lists and logs instead of the key). */
  readonly keyId: string;
  readonly tenantId: string;
  readonly createdAt: string;
  /** From then on the key is refused; absent: it never expires. */
  readonly expiresAt?: string;
  /** When an operator revoked it; a revoked key is refused. */
  readonly revokedAt?: string;
}

export interface ApiKeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  find(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Every key of a tenant, in no particular order (a handful: keys are minted by operators). */
  listByTenant(tenantId: string): Promise<readonly ApiKeyRecord[]>;
  /**
   * Marks the tenant's key `keyId` revoked at `nowIso`; revoking it again keeps the first time.
   * Returns the record as stored, or undefined when the tenant has no such key.
   */
  revoke(tenantId: string, keyId: string, nowIso: string): Promise<ApiKeyRecord | undefined>;
}
