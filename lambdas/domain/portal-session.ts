import { numericPolicy } from './policy.ts';

/**
 * Customer portal links: how long a link (and the session it opens) may live. A link is handed
 * to a person, often by mail or chat, so it is short-lived by default and never lives past a
 * day; under a minute it could expire before anyone opened it.
 */
export const PORTAL_LINK_LIFETIME = { default: 3600, min: 60, max: 86_400, integer: true } as const;

const PORTAL_LINK_POLICY = numericPolicy('portalLink', {
  /** Seconds a link, and the session opened with it, stays valid from its minting. */
  lifetimeSeconds: PORTAL_LINK_LIFETIME,
});

export type PortalLinkPolicy = typeof DEFAULT_PORTAL_LINK_POLICY;
export const DEFAULT_PORTAL_LINK_POLICY = PORTAL_LINK_POLICY.defaults;
/** A link's lifetime as asked for (`{lifetimeSeconds}`), checked against the bounds; InvalidPolicyError otherwise. */
export const resolvePortalLinkPolicy = PORTAL_LINK_POLICY.resolve;

/** Days a portal session's row outlives its end before DynamoDB TTL removes it: long enough to answer "was this link used, and when". */
export const PORTAL_SESSION_KEEP_DAYS = 7;

/** What a presented link or session token is, judged against its stored session at `nowIso`. */
export type PortalSessionStatus = 'live' | 'ended' | 'revoked';

/** The session's standing: revoked beats ended (an operator's act is the better explanation). */
export function portalSessionStatus(
  session: { readonly endsAt: string; readonly revokedAt?: string },
  nowIso: string,
): PortalSessionStatus {
  if (session.revokedAt) return 'revoked';
  return session.endsAt <= nowIso ? 'ended' : 'live';
}

/** The TTL (epoch seconds) of a session row that ends at `endsAtMs`. */
export function portalSessionTtlSeconds(endsAtMs: number): number {
  return Math.ceil(endsAtMs / 1000) + PORTAL_SESSION_KEEP_DAYS * 86_400;
}
