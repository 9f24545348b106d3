/** A tenant API key as stored: only its SHA-256, never the key. */
export interface ApiKeyRecord {
  readonly keyHash: string;
  /** Public handle of the key (shown in lists and logs instead of the key). */
  readonly keyId: string;
  readonly tenantId: string;
  readonly createdAt: string;
}

export interface ApiKeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  find(keyHash: string): Promise<ApiKeyRecord | undefined>;
}
