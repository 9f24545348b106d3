import { z } from 'zod';
import {
  DEFAULT_PORTAL_ACCESS,
  PORTAL_ACCESS_LEVELS,
  PORTAL_LINK_LIFETIME,
  type PortalAccess,
} from '#domain/portal-session.ts';
import { parseBody, parseOptionalBody } from '#app/parse.ts';
import { fields, rule, subscriptionId } from '#app/schema/common.ts';

/** What `POST /v1/tenants/{tenantId}/portal-sessions` may ask for; an empty body gives a view-only link to every subscription of the tenant, for an hour. */
export interface MintPortalSessionRequest {
  readonly expiresInSeconds?: number;
  readonly subscriptionId?: string;
  /** Absent: DEFAULT_PORTAL_ACCESS. */
  readonly access?: PortalAccess;
}

const ACCESS_RULE = `must be one of ${PORTAL_ACCESS_LEVELS.map((l) => `"${l}"`).join(', ')}; default "${DEFAULT_PORTAL_ACCESS}"`;

// The bounds are the domain's (PORTAL_LINK_LIFETIME), not restated here.
const LIFETIME_RULE = `must be a whole number of seconds from ${PORTAL_LINK_LIFETIME.min} to ${PORTAL_LINK_LIFETIME.max} (a day); default ${PORTAL_LINK_LIFETIME.default}`;

/** The `POST /v1/tenants/{tenantId}/portal-sessions` body (optional). */
export const mintPortalSessionBody = fields({
  expiresInSeconds: z
    .number(rule(LIFETIME_RULE))
    .int(rule(LIFETIME_RULE))
    .min(PORTAL_LINK_LIFETIME.min, rule(LIFETIME_RULE))
    .max(PORTAL_LINK_LIFETIME.max, rule(LIFETIME_RULE))
    .optional()
    .describe('how long the link, and the session opened with it, work: seconds from now'),
  subscriptionId: subscriptionId.optional().describe("limit the session to this one subscription of the tenant's"),
  access: z
    .enum(PORTAL_ACCESS_LEVELS, rule(ACCESS_RULE))
    .optional()
    .describe(
      `what the customer may do: "view" reads, resends, retries now, pauses, resumes and sends test events; "manage" also creates, changes, deletes and rotates the secret of the tenant's own endpoints (with subscriptionId: that one only, no creating). Default "${DEFAULT_PORTAL_ACCESS}"`,
    ),
});

export function parseMintPortalSessionBody(raw: string | null | undefined): MintPortalSessionRequest {
  return parseOptionalBody(raw, mintPortalSessionBody, 1024);
}

/** A one-time code as links carry it: the prefix, the session id, a dot, 43 base64url characters; anything else is refused on sight. */
export const PORTAL_CODE_PATTERN = /^hk_pcode_psn_[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{43}$/;

/** The `POST /v1/portal-sessions/exchange` body. */
export const exchangePortalCodeBody = fields({
  code: z
    .string(rule('is required: the one-time code after #portal= in the link'))
    .regex(PORTAL_CODE_PATTERN, rule('is not a portal code (hk_pcode_…); copy the whole link again'))
    .describe('the one-time code the link carries after #portal='),
});

export function parseExchangeBody(raw: string | null | undefined): { readonly code: string } {
  return parseBody(raw, exchangePortalCodeBody, 1024);
}
