import { ValidationError } from '#app/errors.ts';
import { parseObject } from '#app/parse.ts';

/** The most a minted key may live: ten years. Longer is "never", which is what omitting it says. */
export const MAX_KEY_LIFETIME_SECONDS = 10 * 365 * 86_400;
/** The least: shorter than the authorizer cache (30 s on AWS) would not be an expiry anyone could rely on. */
export const MIN_KEY_LIFETIME_SECONDS = 60;

/** What `POST /v1/tenants/{tenantId}/keys` may ask for; an empty body mints a key that never expires. */
export interface MintKeyRequest {
  readonly expiresInSeconds?: number;
}

const FIELDS = ['expiresInSeconds'] as const;

export function parseMintKeyBody(raw: string | null | undefined): MintKeyRequest {
  if (raw === null || raw === undefined || raw.trim() === '') return {};
  const body = parseObject(raw, FIELDS, 1024);
  const seconds = body.expiresInSeconds;
  if (seconds === undefined) return {};
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < MIN_KEY_LIFETIME_SECONDS || seconds > MAX_KEY_LIFETIME_SECONDS) {
    throw new ValidationError('expiresInSeconds', `must be a whole number of seconds from ${MIN_KEY_LIFETIME_SECONDS} to ${MAX_KEY_LIFETIME_SECONDS} (ten years); omit it for a key that never expires`);
  }
  return { expiresInSeconds: seconds };
}
