import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign as signWithKey,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { InvalidSecretError } from './errors.ts';
import { setBounded } from './bounded-map.ts';

const PREFIX = 'whsec_';
const MIN_SECRET_BYTES = 24;
/** Standard Webhooks' asymmetric scheme: `whsk_` signing key (kept), `whpk_` public key (the receiver's). */
const SIGNING_KEY_PREFIX = 'whsk_';
const PUBLIC_KEY_PREFIX = 'whpk_';
const ED25519_SEED_BYTES = 32;
/** The PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** How a subscription's deliveries are signed: `v1` HMAC-SHA256 (shared secret) or `v1a` Ed25519 (key pair). */
export type SigningScheme = 'v1' | 'v1a';

/** Encodes raw key bytes (from a CSPRNG the caller owns) as a Standard Webhooks secret. */
export function formatSecret(bytes: Uint8Array): string {
  if (bytes.length < MIN_SECRET_BYTES)
    throw new InvalidSecretError(`a secret needs at least ${MIN_SECRET_BYTES} bytes`);
  return PREFIX + Buffer.from(bytes).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new InvalidSecretError('a secret starts with whsec_');
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded))
    throw new InvalidSecretError('a secret is whsec_ followed by standard base64');
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_SECRET_BYTES) throw new InvalidSecretError(`a secret holds at least ${MIN_SECRET_BYTES} bytes`);
  return key;
}

/** Encodes a 32-byte Ed25519 seed (from a CSPRNG the caller owns) as a `whsk_` signing key. */
export function formatSigningKey(seed: Uint8Array): string {
  if (seed.length !== ED25519_SEED_BYTES)
    throw new InvalidSecretError(`an Ed25519 signing key is ${ED25519_SEED_BYTES} bytes`);
  return SIGNING_KEY_PREFIX + Buffer.from(seed).toString('base64');
}

/**
 * The private key of a `whsk_` key: base64 of the 32-byte seed, or of the 64 bytes (seed then
 * public key) some libraries write, of which the seed is the first half.
 */
function ed25519Key(signingKey: string): KeyObject {
  const encoded = signingKey.slice(SIGNING_KEY_PREFIX.length);
  const raw = /^[A-Za-z0-9+/]*={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (raw.length !== ED25519_SEED_BYTES && raw.length !== 2 * ED25519_SEED_BYTES)
    throw new InvalidSecretError('a signing key is whsk_ followed by the base64 of a 32-byte Ed25519 seed');
  return createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, raw.subarray(0, ED25519_SEED_BYTES)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/** The `whpk_` public key a receiver verifies `v1a` signatures with. */
export function publicKeyOf(signingKey: string): string {
  const jwk = createPublicKey(ed25519Key(signingKey)).export({ format: 'jwk' });
  return PUBLIC_KEY_PREFIX + Buffer.from(jwk.x!, 'base64url').toString('base64');
}

/** Which scheme a stored secret signs with, by its prefix. */
export function schemeOf(secret: string): SigningScheme {
  return secret.startsWith(SIGNING_KEY_PREFIX) ? 'v1a' : 'v1';
}

/** Checks a secret a caller brings (its prefix must fit the scheme) and returns it; InvalidSecretError says what is wrong. */
export function checkSecret(secret: string, scheme: SigningScheme): string {
  if (scheme === 'v1a') {
    if (!secret.startsWith(SIGNING_KEY_PREFIX))
      throw new InvalidSecretError('an Ed25519 subscription signs with a whsk_ key');
    ed25519Key(secret);
  } else {
    secretKey(secret);
  }
  return secret;
}

/**
 * Decoded keys by secret. Every attempt signs with one of a few secrets, and decoding one (a
 * regex and base64, for v1a a PKCS#8 import) costs about as much as the HMAC itself; the
 * signature does not change. Bounded, the oldest dropped first; a secret that does not decode
 * is not kept. Never exposed.
 */
const KEYS_KEPT = 1000;
const keys = new Map<string, Buffer | KeyObject>();

function keyOf(secret: string): Buffer | KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    key = schemeOf(secret) === 'v1a' ? ed25519Key(secret) : secretKey(secret);
    setBounded(keys, secret, key, KEYS_KEPT);
  }
  return key;
}

/** The signed content is `id.timestamp.body`, fed to the MAC in parts: the body is not copied into one more string. */
function signParts(secret: string, prefix: string, body: string): string {
  const key = keyOf(secret);
  if (schemeOf(secret) === 'v1a')
    return `v1a,${signWithKey(null, Buffer.from(prefix + body), key as KeyObject).toString('base64')}`;
  return `v1,${createHmac('sha256', key as Buffer)
    .update(prefix)
    .update(body)
    .digest('base64')}`;
}

/**
 * One signature of `id.timestamp.body`: `v1,<base64 HMAC-SHA256>` for a `whsec_` secret,
 * `v1a,<base64 Ed25519>` for a `whsk_` signing key.
 */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return signParts(secret, `${id}.${timestampSeconds}.`, body);
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
export function signatureHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  if (secrets.length === 0) throw new InvalidSecretError('at least one secret is needed to sign');
  const prefix = `${id}.${timestampSeconds}.`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signParts(s, prefix, body)).join(' '),
  };
}

/** True when any `v1` signature in `header` matches one of `secrets` (used by the test receiver and docs). */
export function verifySignature(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
  header: string,
): boolean {
  const offered = header.split(' ').filter((s) => s.startsWith('v1,'));
  return secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, id, timestampSeconds, body));
    return offered.some((o) => {
      const got = Buffer.from(o);
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
  });
}
