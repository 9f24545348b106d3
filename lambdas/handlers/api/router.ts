import { requireAdmin } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { MethodNotAllowedError, RouteNotFoundError, UnauthorizedError } from '#app/errors.ts';
import { withIdempotencyKey } from './idempotency.ts';
import { openApiDocument } from './openapi.ts';
import { isPortalSession, requirePortalRoute } from './portal-access.ts';
import { ok, parameterNames, patternOf, type ApiRequest, type ApiResponse, type Params, type Route } from './route.ts';
import { DASHBOARD_ROUTES } from './routes/dashboard.ts';
import { DELIVERY_ROUTES } from './routes/deliveries.ts';
import { EVENT_ROUTES } from './routes/events.ts';
import { EVENT_TYPE_ROUTES } from './routes/event-types.ts';
import { OPERATOR_ROUTES } from './routes/operator.ts';
import { PORTAL_ROUTES } from './routes/portal.ts';
import { REPLAY_ROUTES } from './routes/replays.ts';
import { SUBSCRIPTION_ROUTES } from './routes/subscriptions.ts';
import { TENANT_ROUTES } from './routes/tenants.ts';

export type { ApiRequest, ApiResponse } from './route.ts';

/** The HTTP API of docs/design.md, one entry per route: parse, call the service (which applies the principal's scope), map the view. */
export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/health', access: 'public', run: async () => ok({ status: 'ok' }) },
  // The API's own description (openapi.ts), built from this table: ROUTES is read when it is asked for, after this module has loaded.
  { method: 'GET', path: '/openapi.json', access: 'public', run: async () => ok(openApiDocument(ROUTES)) },
  ...SUBSCRIPTION_ROUTES,
  ...EVENT_ROUTES,
  ...EVENT_TYPE_ROUTES,
  ...DELIVERY_ROUTES,
  ...REPLAY_ROUTES,
  ...OPERATOR_ROUTES,
  ...TENANT_ROUTES,
  ...PORTAL_ROUTES,
  ...DASHBOARD_ROUTES,
];

const MATCHERS = ROUTES.map((r) => ({ route: r, pattern: patternOf(r.path), names: parameterNames(r.path) }));

/**
 * Finds the route for a request and runs it. Without a principal only public routes answer:
 * anything else, known path or not, is UnauthorizedError, so an unauthenticated caller learns
 * nothing about which paths exist. A known path with another method is MethodNotAllowedError;
 * a path no route has is RouteNotFoundError (`route_not_found`), never a missing resource's 404.
 */
export async function route(deps: FunctionDeps<'api'>, req: ApiRequest): Promise<ApiResponse> {
  const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
  const { principal } = req;
  const allowed: string[] = [];
  for (const { route: r, pattern, names } of MATCHERS) {
    const m = pattern.exec(path);
    if (!m) continue;
    allowed.push(r.method);
    if (r.method !== req.method) continue;
    const params: Params = Object.fromEntries(names.map((name, i) => [name, m[i + 1]!]));
    if (r.access === 'public') return r.run(deps, req, params);
    if (!principal) throw new UnauthorizedError();
    // A portal session is held to its level's routes instead (portal-access.ts), which open one admin route: a manage session's create.
    if (isPortalSession(principal)) requirePortalRoute(principal, `${r.method} ${r.path}`, r.access);
    else if (r.access === 'admin') requireAdmin(principal, `${req.method} ${r.path}`);
    const authenticated = { ...req, principal };
    return withIdempotencyKey(deps, r, authenticated, () => r.run(deps, authenticated, params));
  }
  if (!principal) throw new UnauthorizedError();
  if (allowed.length > 0) throw new MethodNotAllowedError(req.method, path, allowed);
  throw new RouteNotFoundError(req.method, path);
}
