import { createHash, timingSafeEqual } from 'node:crypto';
import { formatId } from '#domain/ids.ts';
import {
  DEFAULT_PORTAL_ACCESS,
  portalAccessOf,
  portalSessionStatus,
  resolvePortalLinkPolicy,
  type PortalAccess,
} from '#domain/portal-session.ts';
import { iso } from '#domain/time.ts';
import type { Clock } from '#ports/clock.ts';
import type { PortalSessionRecord, PortalSessionStore } from '#ports/portal-session-store.ts';
import type { Deps } from '#app/deps.ts';
import { consoleUrlOf } from '#config/topology.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from '#app/errors.ts';
import type { MintPortalSessionRequest } from '#app/portal/portal-request.ts';
import type { PortalSessionView } from '#app/schema/responses.ts';

/**
 * Customer portal links (docs/design.md, "The dashboard"). The admin mints a link for one
 * tenant, optionally one subscription; the link carries a one-time code in its fragment
 * (`…/dashboard#portal=<code>`), which browsers never send to a server. The page trades the code
 * for a session token (exchangePortalCode), kept by the page in sessionStorage and sent as
 * `Authorization: Bearer`; the authorizer turns the token into a tenant principal
 * (portalPrincipal). Code and token are stored as SHA-256 only and carry the session id, so each
 * check is one read by id and a constant-time comparison.
 */

/** Recognisable on sight (and by secret scanners): a link's one-time code, and the session token it is traded for. */
export const PORTAL_CODE_PREFIX = 'hk_pcode_';
export const PORTAL_TOKEN_PREFIX = 'hk_portal_';
/** Where the page reads the code: the link's fragment, never sent in a request. */
export const PORTAL_FRAGMENT_KEY = 'portal';

const SESSION_ID = /^psn_[A-Za-z0-9_-]{1,64}$/;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const secret = (clock: Clock) => Buffer.from(clock.randomBytes(32)).toString('base64url');

/** The session id a code or token names (`<prefix><psn_…>.<secret>`), or undefined when it is not one. */
function sessionIdOf(value: string, prefix: string): string | undefined {
  if (!value.startsWith(prefix)) return undefined;
  const id = value.slice(prefix.length, value.lastIndexOf('.'));
  return SESSION_ID.test(id) ? id : undefined;
}

/** A session as the admin sees it: never a code, a token or their hashes. Absent times are null. */
export function portalSessionView(r: PortalSessionRecord): PortalSessionView {
  return {
    id: r.id,
    tenantId: r.tenantId,
    subscriptionId: r.subscriptionId ?? null,
    access: portalAccessOf(r.access),
    createdAt: r.createdAt,
    expiresAt: r.endsAt,
    exchangedAt: r.exchangedAt ?? null,
    revokedAt: r.revokedAt ?? null,
  };
}

export interface MintedPortalLink extends PortalSessionView {
  /** The link to hand to the customer; it works once (shown here only, never stored). */
  readonly url: string;
}

type PortalDeps = { readonly portalSessions: PortalSessionStore; readonly clock: Clock };
type MintDeps = PortalDeps & Pick<Deps, 'subscriptions' | 'consoleSettings'>;

/**
 * Mints a portal link for `tenantId`, living `expiresInSeconds` (default an hour, at most a
 * day), limited to `subscriptionId` when given, which must be one of the tenant's (else a 400
 * naming it), at the `access` level asked for (else DEFAULT_PORTAL_ACCESS, stored with the
 * session, so a later change of the default never changes a link already handed out). The link opens the dashboard the deployment names (`consoleSettings`, a custom
 * domain), else the one of this API as `apiBaseUrl` says the request reached it.
 */
export async function mintPortalSession(
  deps: MintDeps,
  tenantId: string,
  request: MintPortalSessionRequest,
  apiBaseUrl: string,
): Promise<MintedPortalLink> {
  const { lifetimeSeconds } = resolvePortalLinkPolicy(
    request.expiresInSeconds === undefined ? {} : { lifetimeSeconds: request.expiresInSeconds },
  );
  if (request.subscriptionId !== undefined) {
    const subscription = await deps.subscriptions.get(request.subscriptionId);
    if (!subscription || subscription.tenantId !== tenantId)
      throw new ValidationError('subscriptionId', `is not a subscription of tenant ${tenantId}`);
  }
  const nowMs = deps.clock.now();
  const id = formatId('psn', deps.clock.randomBytes(12));
  const code = `${PORTAL_CODE_PREFIX}${id}.${secret(deps.clock)}`;
  const record: PortalSessionRecord = {
    id,
    tenantId,
    ...(request.subscriptionId !== undefined ? { subscriptionId: request.subscriptionId } : {}),
    access: request.access ?? DEFAULT_PORTAL_ACCESS,
    createdAt: iso(nowMs),
    endsAt: iso(nowMs + lifetimeSeconds * 1000),
    codeHash: sha256(code),
  };
  await deps.portalSessions.put(record);
  const dashboard = deps.consoleSettings.consoleUrl ?? consoleUrlOf(apiBaseUrl);
  return { ...portalSessionView(record), url: `${dashboard}#${PORTAL_FRAGMENT_KEY}=${code}` };
}

/** Revokes one of the tenant's sessions: its link and its session token are refused from then on. Revoking again keeps the first time. */
export async function revokePortalSession(
  deps: PortalDeps,
  tenantId: string,
  id: string,
): Promise<PortalSessionRecord> {
  const revoked = await deps.portalSessions.revoke(tenantId, id, iso(deps.clock.now()));
  if (!revoked) throw new NotFoundError('portal session', id);
  return revoked;
}

export interface PortalSessionToken {
  readonly token: string;
  readonly tokenType: 'Bearer';
  readonly sessionId: string;
  readonly tenantId: string;
  readonly subscriptionId: string | null;
  /** What the session may do: the page shows the controls of this level only (the API enforces it). */
  readonly access: PortalAccess;
  readonly expiresAt: string;
}

/** Why a link does not open, in words the customer can act on (the page shows them as they are). */
function refusal(record: PortalSessionRecord | undefined, nowIso: string): UnauthorizedError {
  if (!record) return new UnauthorizedError('this portal link is not valid: ask for a new one');
  const status = portalSessionStatus(record, nowIso);
  if (status === 'revoked')
    return new UnauthorizedError(`this portal link was revoked at ${record.revokedAt}: ask for a new one`);
  if (status === 'ended')
    return new UnauthorizedError(`this portal link expired at ${record.endsAt}: ask for a new one`);
  return new UnauthorizedError(
    `this portal link was already opened at ${record.exchangedAt} and works only once: go back to the tab where it is open, or ask for a new link`,
  );
}

/**
 * Trades a link's one-time code for a session token that ends when the link does. The code
 * works once (a conditional write); an unknown, used, revoked or expired one is an
 * UnauthorizedError saying which, so the page can tell the customer what to do.
 */
export async function exchangePortalCode(deps: PortalDeps, code: string): Promise<PortalSessionToken> {
  const id = sessionIdOf(code, PORTAL_CODE_PREFIX);
  const nowIso = iso(deps.clock.now());
  const record = id ? await deps.portalSessions.get(id) : undefined;
  if (!record || !sameHash(record.codeHash, sha256(code))) throw refusal(undefined, nowIso);
  const token = `${PORTAL_TOKEN_PREFIX}${record.id}.${secret(deps.clock)}`;
  const exchanged = await deps.portalSessions.exchange(record.id, record.codeHash, sha256(token), nowIso);
  // The write's condition failed: read again to say why (another tab won the race, or it was revoked meanwhile).
  if (!exchanged) throw refusal(await deps.portalSessions.get(record.id), nowIso);
  return {
    token,
    tokenType: 'Bearer',
    sessionId: exchanged.id,
    tenantId: exchanged.tenantId,
    subscriptionId: exchanged.subscriptionId ?? null,
    access: portalAccessOf(exchanged.access),
    expiresAt: exchanged.endsAt,
  };
}

/** The session a presented session token opens, or undefined for anything that is not a live one (unknown, revoked, ended). */
export async function portalSession(
  store: PortalSessionStore,
  token: string,
  nowMs: number,
): Promise<PortalSessionRecord | undefined> {
  const id = sessionIdOf(token, PORTAL_TOKEN_PREFIX);
  if (!id) return undefined;
  const record = await store.get(id);
  if (!record?.tokenHash || !sameHash(record.tokenHash, sha256(token))) return undefined;
  return portalSessionStatus(record, iso(nowMs)) === 'live' ? record : undefined;
}
