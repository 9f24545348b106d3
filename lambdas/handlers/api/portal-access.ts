import { PORTAL_ACCESS_LEVELS, type PortalAccess } from '#domain/portal-session.ts';
import { requireAdmin, type Principal } from '#app/access.ts';
import { ForbiddenError } from '#app/errors.ts';

/**
 * What a `view` portal session may call: what the portal shows and does without changing an
 * endpoint (read subscriptions, their health, deliveries and dead letters, the signing secret;
 * resend, retry now, pause, resume, send a test event; read the event-type catalog). Keyed like
 * ROUTES (`METHOD /template`).
 */
const VIEW_ROUTES = [
  'GET /v1/subscriptions',
  'GET /v1/subscriptions/{subscriptionId}',
  'GET /v1/subscriptions/{subscriptionId}/stats',
  'GET /v1/subscriptions/{subscriptionId}/secret',
  'GET /v1/subscriptions/{subscriptionId}/events',
  'POST /v1/subscriptions/{subscriptionId}/pause',
  'POST /v1/subscriptions/{subscriptionId}/resume',
  'POST /v1/subscriptions/{subscriptionId}/test',
  'GET /v1/events/{eventId}',
  'GET /v1/deliveries',
  'GET /v1/deliveries/{deliveryId}',
  'GET /v1/deliveries/{deliveryId}/attempts',
  'POST /v1/deliveries/{deliveryId}/replay',
  'POST /v1/deliveries/{deliveryId}/retry',
  'GET /v1/dead-letters',
  // The catalog the portal's forms pick event types from; no level changes it.
  'GET /v1/event-types',
  'GET /v1/event-types/{name}',
  // The figures "How delivery works" states.
  'GET /v1/delivery-policy',
] as const;

/**
 * What a `manage` session may call: the view routes and the tenant's own endpoint self-service.
 * Every service scopes a session to its tenant (another tenant's ids answer 404, as absent), and
 * creating is for the session's own tenant only (createSubscription). `POST /v1/subscriptions`
 * is the one admin route here: a producer mints a manage link to let its customer set up where
 * its own webhooks go, while tenant keys keep their narrower rights and still do not create
 * subscriptions (docs/api.md, "Authentication").
 */
const MANAGE_ROUTES = [
  ...VIEW_ROUTES,
  'POST /v1/subscriptions',
  'PATCH /v1/subscriptions/{subscriptionId}',
  'DELETE /v1/subscriptions/{subscriptionId}',
  'POST /v1/subscriptions/{subscriptionId}/rotate-secret',
] as const;

/** The routes each portal access level may call: the one place the levels are given their meaning. */
export const PORTAL_SESSION_ROUTES: Readonly<Record<PortalAccess, ReadonlySet<string>>> = {
  view: new Set(VIEW_ROUTES),
  manage: new Set(MANAGE_ROUTES),
};

/**
 * Routes a session limited to one subscription may not call, whatever its level: a link for one
 * endpoint manages that endpoint, and a new one would be an endpoint beyond it.
 */
export const NOT_FOR_ONE_SUBSCRIPTION: ReadonlySet<string> = new Set(['POST /v1/subscriptions']);

/** The levels that may call `route`, least first (empty: no portal session may); the OpenAPI document's `x-hookline-portal`. */
export function portalLevelsFor(route: string): PortalAccess[] {
  return PORTAL_ACCESS_LEVELS.filter((level) => PORTAL_SESSION_ROUTES[level].has(route));
}

/** A customer portal session, as the authorizer marks one (a tenant principal with its level). */
export function isPortalSession(principal: Principal): principal is Extract<Principal, { role: 'tenant' }> & {
  readonly portal: PortalAccess;
} {
  return principal.role === 'tenant' && principal.portal !== undefined;
}

/**
 * The router's check of a portal session, in place of the key checks: ForbiddenError naming the
 * route unless the session's level opens it (and, for a session limited to one subscription,
 * unless it is one such a session may call). A route another level opens says which; an admin
 * route no level opens is refused as for any tenant; any other route asks for a tenant key.
 */
export function requirePortalRoute(
  principal: Extract<Principal, { role: 'tenant' }> & { readonly portal: PortalAccess },
  route: string,
  access: 'admin' | 'tenant',
): void {
  if (PORTAL_SESSION_ROUTES[principal.portal].has(route)) {
    if (principal.subscriptionId !== undefined && NOT_FOR_ONE_SUBSCRIPTION.has(route))
      throw new ForbiddenError(
        `${route} is not open to a portal session limited to one subscription (${principal.subscriptionId}): it manages that one alone`,
      );
    return;
  }
  const opening = portalLevelsFor(route);
  if (opening.length > 0)
    throw new ForbiddenError(
      `${route} is not open to a "${principal.portal}" portal session; a link minted with access "${opening[0]}" may call it`,
    );
  if (access === 'admin') requireAdmin(principal, route);
  throw new ForbiddenError(
    `${route} is not open to a portal session; use a tenant key (POST /v1/tenants/{tenantId}/keys) for it`,
  );
}
