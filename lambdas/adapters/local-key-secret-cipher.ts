import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SealedSecrets } from '#domain/types.ts';
import type { SecretOpener, SecretSealer } from '#ports/secret-sealer.ts';
import { decryptSecrets, encryptSecrets, expectScheme } from './aes-gcm-secrets.ts';
import { SealedSecretsError } from './errors.ts';

/** The file under the local data folder that holds the local runtime's 32-byte secrets key. */
export const LOCAL_SECRETS_KEY_FILE = 'secrets-key';
const KEY_BYTES = 32;

/**
 * The local runtime's secrets key: created once (32 random bytes, mode 0600, `wx` so two
 * starts never overwrite each other's key) and reused on every start on the same data folder.
 * Losing it makes every sealed secret unreadable, like losing the KMS key on AWS.
 */
export function loadLocalSecretsKey(dataDir: string): Buffer {
  const file = join(dataDir, LOCAL_SECRETS_KEY_FILE);
  try {
    writeFileSync(file, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A key file from a copy or an older start may have been left wider; it is the owner's only.
  chmodSync(file, 0o600);
  const key = readFileSync(file);
  if (key.length !== KEY_BYTES)
    throw new SealedSecretsError(`${file} holds ${key.length} bytes, not a ${KEY_BYTES}-byte key`);
  return key;
}

/**
 * Seals and opens signing secrets with the local key directly (AES-256-GCM, aes-gcm-secrets.ts):
 * the local stand-in for the KMS envelope, where every function shares one process anyway.
 */
export class LocalKeySecretCipher implements SecretSealer, SecretOpener {
  constructor(private readonly key: Uint8Array) {}

  async seal(subscriptionId: string, secrets: readonly string[]): Promise<SealedSecrets> {
    return { scheme: 'local-v1', ...encryptSecrets(this.key, 'local-v1', subscriptionId, secrets) };
  }

  async open(subscriptionId: string, sealed: SealedSecrets): Promise<readonly string[]> {
    expectScheme(sealed, 'local-v1', subscriptionId);
    return decryptSecrets(this.key, sealed, subscriptionId);
  }
}
