import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How an Idempotency-Key record keeps nothing usable: answers to POST /v1/subscriptions,
 * rotate-secret and POST /v1/tenants/{tenantId}/keys carry a signing secret or an API key,
 * which Hookline never stores in plain text. The record is found by a hash of the key, its
 * answer is sealed (AES-256-GCM) under a key derived from the Idempotency-Key with HKDF, and the
 * request is compared by an HMAC under another derived key: only a caller presenting the key can
 * read the answer back, and the table alone tells nothing about the request or the answer.
 */

export interface AnswerKeys {
  /** The record's id: where the answer is kept. */
  readonly id: string;
  readonly seal: Buffer;
  readonly fingerprint: Buffer;
}

/** The record id and the two derived keys of one (scope, route, Idempotency-Key). */
export function answerKeys(scope: string, route: string, key: string): AnswerKeys {
  const id = createHash('sha256').update(`${scope}\u0000${route}\u0000${key}`).digest('base64url');
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', key, id, `hookline idempotency ${info}`, 32));
  return { id, seal: derive('seal'), fingerprint: derive('fingerprint') };
}

/** What a retry must repeat: the method, the path as sent (its ids) and the body byte for byte. */
export function fingerprintOf(keys: AnswerKeys, method: string, path: string, body: string | null): string {
  return createHmac('sha256', keys.fingerprint)
    .update(`${method} ${path}\n`)
    .update(body ?? '')
    .digest('base64url');
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The answer's JSON text, deflated and sealed: base64url of iv, tag and ciphertext. `iv` is 12 fresh random bytes. */
export function sealAnswer(keys: AnswerKeys, json: string, iv: Uint8Array): string {
  const cipher = createCipheriv('aes-256-gcm', keys.seal, iv);
  cipher.setAAD(Buffer.from(keys.id));
  const data = Buffer.concat([cipher.update(deflateRawSync(Buffer.from(json, 'utf8'))), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
}

/** The JSON text sealAnswer sealed; throws when the blob was altered or sealed under another key. */
export function openAnswer(keys: AnswerKeys, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', keys.seal, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(keys.id));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return inflateRawSync(
    Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]),
  ).toString('utf8');
}
