import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SealedSecrets } from '#domain/types.ts';
import type { SecretOpener, SecretSealer } from '#ports/secret-sealer.ts';
import { decryptSecrets, encryptSecrets, expectScheme } from './aes-gcm-secrets.ts';
import { SealedSecretsError } from './errors.ts';
import { setBounded } from '#domain/bounded-map.ts';
import { DEFAULT_SECRETS_CACHE_SECONDS } from '#config/topology.ts';
import type { KeyringStore, RingKey } from '#ports/keyring-store.ts';

/**
 * The KMS encryption context of a data key. KMS binds it to the encrypted key, so a key does not
 * decrypt under another context, and the key's grants require its `purpose`
 * (lib/constructs/secrets-key.ts). `kms-v2` keys belong to a ring (a month); a `kms-v1` key,
 * from before the keyring, to one subscription.
 */
export function secretsContext(scope: { readonly ring: string } | { readonly subscriptionId: string }) {
  return { purpose: SECRETS_PURPOSE, ...scope };
}
export const SECRETS_PURPOSE = 'hookline-signing-secrets';

/**
 * The ring a seal at `nowMs` uses: its UTC month. One data key a month for the whole deployment
 * means a sender decrypts about one key per month of subscriptions it serves, not one per
 * subscription (at 1,000 subscriptions, 0.15 Decrypts per delivery became about 0.002; the
 * cost bench prices both). AES-GCM's additional data still binds each blob to its subscription.
 */
export function ringOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

/**
 * Envelope sealing with a shared data key: the month's key from the keyring (decrypted once a
 * container per cache period) or, for the first seal of a month, a new one from
 * GenerateDataKey, stored so every other container seals with it too. The encrypted key and
 * the ring travel with the blob, so opening never reads the keyring.
 */
export class KmsSecretSealer implements SecretSealer {
  private readonly keys: DataKeyCache<RingDataKey>;

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
    private readonly keyring: KeyringStore,
    options: DataKeyCacheOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.keys = new DataKeyCache(options, now);
  }

  async seal(subscriptionId: string, secrets: readonly string[]): Promise<SealedSecrets> {
    const ring = ringOf(this.now());
    const { plaintext, encryptedKey } = await this.keys.get(ring, () => this.ringKey(ring));
    return {
      scheme: 'kms-v2',
      ring,
      key: encryptedKey,
      ...encryptSecrets(plaintext, 'kms-v2', subscriptionId, secrets),
    };
  }

  private async ringKey(ring: string): Promise<RingDataKey> {
    const stored = await this.keyring.get(ring);
    if (stored) return this.decryptStored(stored);
    const out = await this.kms.send(
      new GenerateDataKeyCommand({
        KeyId: this.keyId,
        KeySpec: 'AES_256',
        EncryptionContext: secretsContext({ ring }),
      }),
    );
    if (!out.Plaintext || !out.CiphertextBlob) throw new SealedSecretsError('KMS GenerateDataKey returned no data key');
    const encryptedKey = Buffer.from(out.CiphertextBlob).toString('base64');
    if (await this.keyring.create({ ring, encryptedKey, createdAt: new Date(this.now()).toISOString() }))
      return { plaintext: out.Plaintext, encryptedKey };
    // Another container stored the month's key first: seal with that one, so the month has one key.
    out.Plaintext.fill(0);
    const theirs = await this.keyring.get(ring);
    if (!theirs) throw new SealedSecretsError(`the keyring refused ring ${ring} but holds no key for it`);
    return this.decryptStored(theirs);
  }

  private async decryptStored(stored: RingKey): Promise<RingDataKey> {
    const plaintext = await decryptDataKey(
      this.kms,
      this.keyId,
      stored.encryptedKey,
      secretsContext({ ring: stored.ring }),
    );
    return { plaintext, encryptedKey: stored.encryptedKey };
  }
}

interface RingDataKey {
  readonly plaintext: Uint8Array;
  readonly encryptedKey: string;
}

/**
 * How long a decrypted data key is reused (HOOKLINE_SECRETS_CACHE_SECONDS), and how many a
 * container holds: one per ring, and room for every subscription a busy sender serves whose
 * secrets were sealed before the keyring (`kms-v1`, a key each; a key is 32 bytes). The cost
 * bench prices both.
 */
export const DATA_KEY_CACHE_DEFAULTS = { ttlMs: DEFAULT_SECRETS_CACHE_SECONDS * 1000, maxKeys: 10_000 } as const;

export interface DataKeyCacheOptions {
  /** How long a decrypted data key is reused. @default DATA_KEY_CACHE_DEFAULTS.ttlMs (an hour) */
  readonly ttlMs?: number;
  /** Most data keys held at once (one per ring, or per `kms-v1` subscription); the oldest goes first. @default DATA_KEY_CACHE_DEFAULTS */
  readonly maxKeys?: number;
}

/**
 * Opens envelope-sealed secrets: KMS Decrypt of the data key (with the key id and its encryption
 * context), then AES-256-GCM. The plaintext data key is cached in memory for `ttlMs`, so a warm
 * sender calls KMS about once per ring (`kms-v2`) or per subscription (`kms-v1`) per TTL, not
 * per attempt; concurrent opens of the same key share one Decrypt.
 */
export class KmsSecretOpener implements SecretOpener {
  private readonly keys: DataKeyCache<Uint8Array>;

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
    options: DataKeyCacheOptions = {},
    now: () => number = Date.now,
  ) {
    this.keys = new DataKeyCache(options, now);
  }

  async open(subscriptionId: string, sealed: SealedSecrets): Promise<readonly string[]> {
    expectScheme(sealed, ['kms-v2', 'kms-v1'], subscriptionId);
    const encryptedKey = sealed.key;
    if (!encryptedKey) throw new SealedSecretsError(`the secrets of ${subscriptionId} carry no encrypted data key`);
    if (sealed.scheme === 'kms-v2' && !sealed.ring)
      throw new SealedSecretsError(`the secrets of ${subscriptionId} name no ring for their data key`);
    // The context is part of the cache key: a cached key is only ever used for the context KMS checked.
    const context =
      sealed.scheme === 'kms-v2' ? secretsContext({ ring: sealed.ring! }) : secretsContext({ subscriptionId });
    const key = await this.keys.get(`${JSON.stringify(context)}\n${encryptedKey}`, () =>
      decryptDataKey(this.kms, this.keyId, encryptedKey, context),
    );
    return decryptSecrets(key, sealed, subscriptionId);
  }
}

async function decryptDataKey(
  kms: KMSClient,
  keyId: string,
  encryptedKey: string,
  context: Record<string, string>,
): Promise<Uint8Array> {
  const out = await kms.send(
    new DecryptCommand({
      KeyId: keyId,
      CiphertextBlob: Buffer.from(encryptedKey, 'base64'),
      EncryptionContext: context,
    }),
  );
  if (!out.Plaintext) throw new SealedSecretsError('KMS Decrypt returned no data key');
  return out.Plaintext;
}

/**
 * Decrypted data keys by cache key for `ttlMs`, at most `maxKeys` (the oldest goes first). A
 * load in progress is shared; a failed one (throttled, denied) is not remembered, so the next
 * use asks again.
 */
class DataKeyCache<T> {
  private readonly entries = new Map<string, { readonly at: number; readonly value: Promise<T> }>();
  private readonly ttlMs: number;
  private readonly maxKeys: number;

  constructor(
    options: DataKeyCacheOptions,
    private readonly now: () => number,
  ) {
    this.ttlMs = options.ttlMs ?? DATA_KEY_CACHE_DEFAULTS.ttlMs;
    this.maxKeys = options.maxKeys ?? DATA_KEY_CACHE_DEFAULTS.maxKeys;
  }

  get(cacheKey: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(cacheKey);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = load();
    setBounded(this.entries, cacheKey, { at: this.now(), value }, this.maxKeys);
    value.catch(() => {
      if (this.entries.get(cacheKey)?.value === value) this.entries.delete(cacheKey);
    });
    return value;
  }
}
