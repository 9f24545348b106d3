import type { Principal } from '#app/access.ts';
import { ForbiddenError } from '#app/errors.ts';

/**
 * The tenant routes a customer portal session may call: what the portal shows and does (read
 * subscriptions, their health, deliveries and dead letters, the signing secret; resend, pause,
 * resume, send a test event). A browser session is the most exposed credential a tenant has, so
 * it gets no more: changing a subscription's URL or headers, deleting it or rotating its secret
 * needs a tenant key (POST /v1/tenants/{tenantId}/keys). Keyed like ROUTES (`METHOD /template`).
 */
export const PORTAL_SESSION_ROUTES: ReadonlySet<string> = new Set([
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
  'GET /v1/dead-letters',
]);

/** ForbiddenError when a portal session calls a route outside PORTAL_SESSION_ROUTES; `route` is its `METHOD /template`. */
export function requirePortalRoute(principal: Principal, route: string): void {
  if (principal.role === 'tenant' && principal.portal && !PORTAL_SESSION_ROUTES.has(route)) {
    throw new ForbiddenError(
      `${route} is not open to a portal session; use a tenant key (POST /v1/tenants/{tenantId}/keys) for it`,
    );
  }
}
