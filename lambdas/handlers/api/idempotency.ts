import type { FunctionDeps } from '#app/deps.ts';
import { IDEMPOTENCY_KEY_HEADER, keyScope, parseIdempotencyKey, runIdempotent } from '#app/idempotency/idempotency.ts';
import type { ApiResponse, AuthenticatedRequest, Route } from './route.ts';

/**
 * Every route that takes an `Idempotency-Key` header, as `METHOD /path/template`: the POSTs that
 * create something. The one list: the router applies it (withIdempotencyKey) and the OpenAPI
 * document reads it to document the header.
 */
export const IDEMPOTENCY_KEY_ROUTES: ReadonlySet<string> = new Set([
  'POST /v1/events',
  'POST /v1/events/batch',
  'POST /v1/subscriptions',
  'POST /v1/subscriptions/{subscriptionId}/rotate-secret',
  'POST /v1/subscriptions/{subscriptionId}/test',
  'POST /v1/replays',
  'POST /v1/deliveries/{deliveryId}/replay',
  'POST /v1/deliveries/{deliveryId}/retry',
  'POST /v1/tenants/{tenantId}/keys',
]);

/**
 * Where the key is the event id, not a kept answer: publishing is idempotent on the event id
 * already (for the event's whole retention), so POST /v1/events reads the header as the id
 * (routes/events.ts) and keeps nothing else.
 */
export const KEY_IS_EVENT_ID: ReadonlySet<string> = new Set(['POST /v1/events']);

export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * Runs an authenticated route, through the Idempotency-Key rule when the route takes the header
 * and the request carries one (app/idempotency/idempotency.ts); a bad key is refused before
 * anything runs.
 */
export function withIdempotencyKey(
  deps: FunctionDeps<'api'>,
  route: Route,
  req: AuthenticatedRequest,
  run: () => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const name = routeKey(route);
  if (!IDEMPOTENCY_KEY_ROUTES.has(name) || KEY_IS_EVENT_ID.has(name)) return run();
  const key = parseIdempotencyKey(req.headers?.[IDEMPOTENCY_KEY_HEADER]);
  if (key === undefined) return run();
  // The path as the router matched it (without a trailing slash): a retry spelt either way is the same request.
  return runIdempotent(
    deps,
    {
      scope: keyScope(req.principal),
      route: name,
      key,
      method: req.method,
      path: req.path.replace(/(.)\/+$/, '$1'),
      body: req.body,
    },
    run,
  );
}
