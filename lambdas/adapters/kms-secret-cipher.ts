import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SealedSecrets } from '#domain/types.ts';
import type { SecretOpener, SecretSealer } from '#ports/secret-sealer.ts';
import { decryptSecrets, encryptSecrets, expectScheme } from './aes-gcm-secrets.ts';
import { SealedSecretsError } from './errors.ts';
import { setBounded } from '#domain/bounded-map.ts';
import { DEFAULT_SECRETS_CACHE_SECONDS } from '#config/topology.ts';

/**
 * The KMS encryption context of a subscription's data key. KMS binds it to the encrypted data
 * key, so a blob moved to another row does not decrypt, and the key's grants can require it
 * (lib/constructs/secrets-key.ts).
 */
export function secretsContext(subscriptionId: string): Record<string, string> {
  return { purpose: SECRETS_PURPOSE, subscriptionId };
}
export const SECRETS_PURPOSE = 'hookline-signing-secrets';

/** Envelope sealing: one fresh data key per subscription from GenerateDataKey, its encrypted form stored beside the ciphertext. */
export class KmsSecretSealer implements SecretSealer {
  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(subscriptionId: string, secrets: readonly string[]): Promise<SealedSecrets> {
    const out = await this.kms.send(
      new GenerateDataKeyCommand({
        KeyId: this.keyId,
        KeySpec: 'AES_256',
        EncryptionContext: secretsContext(subscriptionId),
      }),
    );
    if (!out.Plaintext || !out.CiphertextBlob) throw new SealedSecretsError('KMS GenerateDataKey returned no data key');
    const dataKey = Buffer.from(out.Plaintext);
    try {
      return {
        scheme: 'kms-v1',
        key: Buffer.from(out.CiphertextBlob).toString('base64'),
        ...encryptSecrets(dataKey, 'kms-v1', subscriptionId, secrets),
      };
    } finally {
      // The plaintext data key is needed for this one encryption only.
      dataKey.fill(0);
      out.Plaintext.fill(0);
    }
  }
}

/**
 * How long a decrypted data key is reused (HOOKLINE_SECRETS_CACHE_SECONDS), and how many a
 * container holds: room for every subscription a busy sender serves (a key is 32 bytes), so a
 * container past 1,000 subscriptions does not decrypt again on every eviction. The cost bench
 * prices both.
 */
export const DATA_KEY_CACHE_DEFAULTS = { ttlMs: DEFAULT_SECRETS_CACHE_SECONDS * 1000, maxKeys: 10_000 } as const;

export interface DataKeyCacheOptions {
  /** How long a decrypted data key is reused. @default DATA_KEY_CACHE_DEFAULTS.ttlMs (an hour) */
  readonly ttlMs?: number;
  /** Most data keys held at once (one per subscription); the oldest goes first. @default DATA_KEY_CACHE_DEFAULTS */
  readonly maxKeys?: number;
}

/**
 * Opens envelope-sealed secrets: KMS Decrypt of the data key (with the key id and the
 * subscription's encryption context), then AES-256-GCM. The plaintext data key is cached in
 * memory for `ttlMs`, so a warm sender calls KMS about once per subscription per TTL, not per
 * attempt; concurrent opens of the same key share one Decrypt.
 */
export class KmsSecretOpener implements SecretOpener {
  private readonly cache = new Map<string, { readonly at: number; readonly key: Promise<Uint8Array> }>();
  private readonly ttlMs: number;
  private readonly maxKeys: number;

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
    options: DataKeyCacheOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = options.ttlMs ?? DATA_KEY_CACHE_DEFAULTS.ttlMs;
    this.maxKeys = options.maxKeys ?? DATA_KEY_CACHE_DEFAULTS.maxKeys;
  }

  async open(subscriptionId: string, sealed: SealedSecrets): Promise<readonly string[]> {
    expectScheme(sealed, 'kms-v1', subscriptionId);
    if (!sealed.key) throw new SealedSecretsError(`the secrets of ${subscriptionId} carry no encrypted data key`);
    return decryptSecrets(await this.dataKey(subscriptionId, sealed.key), sealed, subscriptionId);
  }

  private dataKey(subscriptionId: string, encryptedKey: string): Promise<Uint8Array> {
    // Keyed by the subscription too: a cached key is only ever used for the context KMS checked.
    const cacheKey = `${subscriptionId}\n${encryptedKey}`;
    const hit = this.cache.get(cacheKey);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.key;
    const key = this.decrypt(subscriptionId, encryptedKey);
    setBounded(this.cache, cacheKey, { at: this.now(), key }, this.maxKeys);
    // A failed Decrypt (throttled, denied) is not remembered: the next attempt asks again.
    key.catch(() => {
      if (this.cache.get(cacheKey)?.key === key) this.cache.delete(cacheKey);
    });
    return key;
  }

  private async decrypt(subscriptionId: string, encryptedKey: string): Promise<Uint8Array> {
    const out = await this.kms.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(encryptedKey, 'base64'),
        EncryptionContext: secretsContext(subscriptionId),
      }),
    );
    if (!out.Plaintext) throw new SealedSecretsError('KMS Decrypt returned no data key');
    return out.Plaintext;
  }
}
