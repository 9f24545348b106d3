import { z } from 'zod';
import { parseOptionalBody } from '#app/parse.ts';
import { fields, rule } from '#app/schema/common.ts';

/** The most a minted key may live: ten years. Longer is "never", which is what omitting it says. */
export const MAX_KEY_LIFETIME_SECONDS = 10 * 365 * 86_400;
/** The least: shorter than the authorizer cache (30 s on AWS) would not be an expiry anyone could rely on. */
export const MIN_KEY_LIFETIME_SECONDS = 60;

/** What `POST /v1/tenants/{tenantId}/keys` may ask for; an empty body mints a key that never expires. */
export interface MintKeyRequest {
  readonly expiresInSeconds?: number;
}

const LIFETIME_RULE = `must be a whole number of seconds from ${MIN_KEY_LIFETIME_SECONDS} to ${MAX_KEY_LIFETIME_SECONDS} (ten years); omit it for a key that never expires`;

/** The `POST /v1/tenants/{tenantId}/keys` body (optional). */
export const mintKeyBody = fields({
  expiresInSeconds: z
    .number(rule(LIFETIME_RULE))
    .int(rule(LIFETIME_RULE))
    .min(MIN_KEY_LIFETIME_SECONDS, rule(LIFETIME_RULE))
    .max(MAX_KEY_LIFETIME_SECONDS, rule(LIFETIME_RULE))
    .optional(),
});

export function parseMintKeyBody(raw: string | null | undefined): MintKeyRequest {
  return parseOptionalBody(raw, mintKeyBody, 1024);
}
