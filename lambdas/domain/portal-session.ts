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

/**
 * What a portal link lets its customer do, chosen when it is minted. `view`: read the tenant's
 * subscriptions, their health, deliveries and signing secret; resend, retry now, pause, resume and send a
 * test event. `manage`: that, and the tenant's own endpoint self-service (create, change, delete,
 * rotate the secret), like Svix's app portal. Which routes each level opens is
 * handlers/api/portal-access.ts.
 */
export const PORTAL_ACCESS_LEVELS = ['view', 'manage'] as const;
export type PortalAccess = (typeof PORTAL_ACCESS_LEVELS)[number];

/**
 * The level of a link whose minting names none: `view`. A link travels by mail or chat and is a
 * bearer credential until it is opened, so the level that can lose nothing (no endpoint can be
 * pointed elsewhere, deleted or re-keyed through it) is the one a caller gets without asking;
 * `manage` is asked for on purpose. It is also what every link could do before levels existed,
 * so a backend that mints links the old way gets what it always got.
 */
export const DEFAULT_PORTAL_ACCESS: PortalAccess = 'view';

/** The least level: what a session reads as when its level is missing or unknown. */
const LEAST_PORTAL_ACCESS: PortalAccess = 'view';

/**
 * `value` when it is a level, else the least one, so a missing or unknown level never grants
 * more: a row written before levels existed (a link minted by an older deployment, alive at most
 * a day, which could only view) or an authorizer decision cached from then (`portal: 'true'`).
 */
export function portalAccessOf(value: unknown): PortalAccess {
  return (PORTAL_ACCESS_LEVELS as readonly unknown[]).includes(value) ? (value as PortalAccess) : LEAST_PORTAL_ACCESS;
}

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
