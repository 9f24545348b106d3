import { decodePathSegment, parseTenantId } from '#app/parse.ts';
import { parseExchangeBody, parseMintPortalSessionBody } from '#app/portal/portal-request.ts';
import {
  exchangePortalCode,
  mintPortalSession,
  portalSessionView,
  revokePortalSession,
} from '#app/portal/portal-sessions.ts';
import { ok, type Params, type Route } from '../route.ts';

const tenantOf = (p: Params) => parseTenantId(decodePathSegment(p.tenantId!, 'tenantId'));

/** Customer portal links: minted and revoked by the admin; the dashboard trades a link's one-time code for a session. */
export const PORTAL_ROUTES: readonly Route[] = [
  {
    // The link points at the configured dashboard, else at this API's own as the request reached it (no base URL: a path the admin prefixes).
    method: 'POST',
    path: '/v1/tenants/{tenantId}/portal-sessions',
    access: 'admin',
    run: async (deps, req, p) =>
      ok(await mintPortalSession(deps, tenantOf(p), parseMintPortalSessionBody(req.body), req.baseUrl ?? ''), 201),
  },
  {
    method: 'DELETE',
    path: '/v1/tenants/{tenantId}/portal-sessions/{sessionId}',
    access: 'admin',
    run: async (deps, _r, p) => ok(portalSessionView(await revokePortalSession(deps, tenantOf(p), p.sessionId!))),
  },
  {
    // Public: the one-time code in the body is the credential (topology.ts PUBLIC_API_ROUTES).
    method: 'POST',
    path: '/v1/portal-sessions/exchange',
    access: 'public',
    run: async (deps, req) => ok(await exchangePortalCode(deps, parseExchangeBody(req.body).code)),
  },
];
