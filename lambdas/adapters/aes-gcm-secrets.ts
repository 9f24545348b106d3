import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecrets } from '#domain/types.ts';
import { SealedSecretsError } from './errors.ts';

/**
 * The AES-256-GCM part of sealing, shared by the KMS envelope and the local key adapters: the
 * secrets (a JSON list) are encrypted under a 32-byte data key with a fresh 96-bit IV, and the
 * scheme and subscription id are the additional authenticated data, so a blob copied to
 * another row, or altered in any byte, fails to open instead of yielding a secret.
 */
const KEY_BYTES = 32;
const IV_BYTES = 12;

type Parts = Pick<SealedSecrets, 'iv' | 'tag' | 'data'>;

function aad(scheme: SealedSecrets['scheme'], subscriptionId: string): Buffer {
  return Buffer.from(`hookline:subscription-secrets:${scheme}:${subscriptionId}`, 'utf8');
}

function checkKey(key: Uint8Array): void {
  if (key.length !== KEY_BYTES) throw new SealedSecretsError(`a data key is ${KEY_BYTES} bytes, got ${key.length}`);
}

export function encryptSecrets(
  key: Uint8Array,
  scheme: SealedSecrets['scheme'],
  subscriptionId: string,
  secrets: readonly string[],
): Parts {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(scheme, subscriptionId));
  const data = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

export function decryptSecrets(key: Uint8Array, sealed: SealedSecrets, subscriptionId: string): readonly string[] {
  checkKey(key);
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(aad(sealed.scheme, subscriptionId));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch (cause) {
    // GCM says only "unable to authenticate": wrong key, wrong subscription or altered bytes.
    throw new SealedSecretsError(
      `the secrets of ${subscriptionId} do not open: sealed for another subscription or key, or altered`,
      { cause },
    );
  }
  const secrets: unknown = JSON.parse(plain);
  if (!Array.isArray(secrets) || !secrets.every((s) => typeof s === 'string'))
    throw new SealedSecretsError(`the secrets of ${subscriptionId} are not a list of strings`);
  return secrets;
}

/** Refuses a blob of another scheme than the adapter's (e.g. a local-sealed row read on AWS). */
export function expectScheme(
  sealed: SealedSecrets,
  schemes: SealedSecrets['scheme'] | readonly SealedSecrets['scheme'][],
  subscriptionId: string,
): void {
  const opened: readonly SealedSecrets['scheme'][] = typeof schemes === 'string' ? [schemes] : schemes;
  if (!opened.includes(sealed.scheme))
    throw new SealedSecretsError(
      `the secrets of ${subscriptionId} are sealed with ${sealed.scheme}, this function opens ${opened.join(' or ')}`,
    );
}
