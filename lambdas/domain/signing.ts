import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidSecretError } from './errors.ts';

const PREFIX = 'whsec_';
const MIN_SECRET_BYTES = 24;

/** Encodes raw key bytes (from a CSPRNG the caller owns) as a Standard Webhooks secret. */
export function formatSecret(bytes: Uint8Array): string {
  if (bytes.length < MIN_SECRET_BYTES) throw new InvalidSecretError(`a secret needs at least ${MIN_SECRET_BYTES} bytes`);
  return PREFIX + Buffer.from(bytes).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new InvalidSecretError('a secret starts with whsec_');
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw new InvalidSecretError('a secret is whsec_ followed by standard base64');
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_SECRET_BYTES) throw new InvalidSecretError(`a secret holds at least ${MIN_SECRET_BYTES} bytes`);
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for one secret. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * The three Standard Webhooks headers. With several secrets (a rotation in progress) every
 * signature is sent, space-separated, so receivers on the old or the new secret both verify.
 */
export function signatureHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): SignedHeaders {
  if (secrets.length === 0) throw new InvalidSecretError('at least one secret is needed to sign');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' '),
  };
}

/** True when any `v1` signature in `header` matches one of `secrets` (used by the test receiver and docs). */
export function verifySignature(secrets: readonly string[], id: string, timestampSeconds: number, body: string, header: string): boolean {
  const offered = header.split(' ').filter((s) => s.startsWith('v1,'));
  return secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, id, timestampSeconds, body));
    return offered.some((o) => {
      const got = Buffer.from(o);
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
  });
}
