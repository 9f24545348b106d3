import { type Principal, requireAdmin } from '#app/access.ts';
import { deliveryDetailView } from '#app/deliveries/delivery-detail-view.ts';
import { parseDeadLetterQuery, parseDeliveryListQuery } from '#app/deliveries/delivery-request.ts';
import { attemptView, deliveryView } from '#app/deliveries/delivery-view.ts';
import { getDeliveryDetail, listAttempts, listDeadLetters, listDeliveries } from '#app/deliveries/deliveries.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { MethodNotAllowedError, NotFoundError, UnauthorizedError } from '#app/errors.ts';
import { decodePathSegment, parsePageRequest, parseTenantId, type Query } from '#app/parse.ts';
import { parsePublishBatch, parsePublishRequest } from '#app/publish/publish-request.ts';
import { publish, publishBatch } from '#app/publish/publish.ts';
import { getReplay, listReplays, startBulkReplay } from '#app/replay/bulk-replay.ts';
import { replayAs } from '#app/replay/replay-delivery.ts';
import { parseBulkReplayBody } from '#app/replay/replay-request.ts';
import { replayView } from '#app/replay/replay-view.ts';
import { parseCreateSubscription, parsePauseBody, parseSubscriptionListQuery } from '#app/subscriptions/subscription-request.ts';
import { getSubscriptionStats } from '#app/subscriptions/subscription-stats.ts';
import { parseSubscriptionStatsQuery } from '#app/subscriptions/subscription-stats-request.ts';
import { subscriptionStatsView } from '#app/subscriptions/subscription-stats-view.ts';
import { subscriptionView } from '#app/subscriptions/subscription-view.ts';
import { createSubscription, getSubscription, listSubscriptions, pauseSubscription, resumeSubscription } from '#app/subscriptions/subscriptions.ts';
import { parseMintKeyBody } from '#app/tenants/tenant-request.ts';
import { listTenantKeys, mintTenantKey, revokeTenantKey, tenantKeyView } from '#app/tenants/tenants.ts';
import type { Page } from '#ports/page.ts';

/** One API request as the handler hands it over, whatever transport it came by. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Query;
  readonly body: string | null;
  /**
   * Who the authorizer let in, or undefined when nobody was established: then only public
   * routes answer and everything else is UnauthorizedError (there is no default principal).
   */
  readonly principal: Principal | undefined;
  /** When a long request (a bulk replay) must checkpoint and answer (epoch ms); the rest continues on the replay schedule. */
  readonly deadlineMs?: number;
}

/** A route's answer before it becomes JSON. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

type AuthenticatedRequest = ApiRequest & { readonly principal: Principal };
type Params = readonly string[];

type Route = { readonly method: string; readonly pattern: RegExp } & (
  | { readonly access: 'public'; readonly run: (deps: FunctionDeps<'api'>, req: ApiRequest, params: Params) => Promise<ApiResponse> }
  /** `admin`: the deployment's key only; `tenant`: tenant keys too, which every service scopes to their own resources. */
  | { readonly access: 'admin' | 'tenant'; readonly run: (deps: FunctionDeps<'api'>, req: AuthenticatedRequest, params: Params) => Promise<ApiResponse> }
);

const ok = (body: unknown, status = 200): ApiResponse => ({ status, body });
const listed = <T>(page: Page<T>, view: (item: T) => unknown): ApiResponse => ok({ items: page.items.map(view), nextCursor: page.nextCursor ?? null });
// Bounded like parseId (64 after the prefix), so an id DynamoDB would refuse as a key (over 2048 bytes) never reaches the store.
const SUB = '(sub_[A-Za-z0-9_-]{1,64})';
const DLV = '(dlv_[A-Za-z0-9_-]{1,64})';
const RPL = '(rpl_[A-Za-z0-9_-]{1,64})';
/** A tenant id is at most 128 characters; percent-encoded, each can take 3. */
const TENANT = '([^/]{1,384})';
const KEY = '(key_[A-Za-z0-9_-]{1,64})';
/** A bulk replay answers within this even when API Gateway would allow more; the rest continues on the replay schedule. */
const API_REPLAY_BUDGET_MS = 20_000;

/** The HTTP API of docs/design.md, one entry per route: parse, call the service (which applies the principal's scope), map the view. */
const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/health$/, access: 'public', run: async () => ok({ status: 'ok' }) },
  {
    method: 'POST', pattern: /^\/v1\/subscriptions$/, access: 'admin',
    run: async (deps, req) => ok(subscriptionView(await createSubscription(deps, parseCreateSubscription(req.body, deps.defaultRetryPolicy)), { withSecret: true }), 201),
  },
  {
    method: 'GET', pattern: /^\/v1\/subscriptions$/, access: 'tenant',
    run: async (deps, req) => listed(await listSubscriptions(deps, req.principal, parseSubscriptionListQuery(req.query)), (s) => subscriptionView(s)),
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/subscriptions/${SUB}$`), access: 'tenant',
    run: async (deps, req, [id]) => ok(subscriptionView(await getSubscription(deps, req.principal, id!))),
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/subscriptions/${SUB}/stats$`), access: 'tenant',
    run: async (deps, req, [id]) => ok(subscriptionStatsView(await getSubscriptionStats(deps, req.principal, id!, parseSubscriptionStatsQuery(req.query)))),
  },
  {
    method: 'POST', pattern: new RegExp(`^/v1/subscriptions/${SUB}/pause$`), access: 'tenant',
    run: async (deps, req, [id]) => ok(subscriptionView(await pauseSubscription(deps, req.principal, id!, parsePauseBody(req.body).reason))),
  },
  {
    method: 'POST', pattern: new RegExp(`^/v1/subscriptions/${SUB}/resume$`), access: 'tenant',
    run: async (deps, req, [id]) => {
      const { subscription, drained } = await resumeSubscription(deps, req.principal, id!);
      return ok({ ...subscriptionView(subscription), drained });
    },
  },
  {
    method: 'POST', pattern: /^\/v1\/events$/, access: 'admin',
    run: async (deps, req) => {
      const result = await publish(deps, parsePublishRequest(req.body));
      return ok({ eventId: result.eventId, deliveryIds: result.deliveryIds }, result.kind === 'accepted' ? 202 : 200);
    },
  },
  {
    // One result per event, in request order; 200 whatever each was (accepted or a duplicate).
    method: 'POST', pattern: /^\/v1\/events\/batch$/, access: 'admin',
    run: async (deps, req) => {
      const results = await publishBatch(deps, parsePublishBatch(req.body));
      return ok({ items: results.map((r) => ({ eventId: r.eventId, kind: r.kind, deliveryIds: r.deliveryIds })) });
    },
  },
  {
    method: 'GET', pattern: /^\/v1\/deliveries$/, access: 'tenant',
    run: async (deps, req) => listed(await listDeliveries(deps, req.principal, parseDeliveryListQuery(req.query)), deliveryView),
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/deliveries/${DLV}$`), access: 'tenant',
    run: async (deps, req, [id]) => ok(deliveryDetailView(await getDeliveryDetail(deps, req.principal, id!))),
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/deliveries/${DLV}/attempts$`), access: 'tenant',
    run: async (deps, req, [id]) => listed(await listAttempts(deps, req.principal, id!, parsePageRequest(req.query)), attemptView),
  },
  {
    method: 'POST', pattern: new RegExp(`^/v1/deliveries/${DLV}/replay$`), access: 'tenant',
    run: async (deps, req, [id]) => ok(deliveryView(await replayAs(deps, req.principal, id!)), 202),
  },
  {
    method: 'GET', pattern: /^\/v1\/dead-letters$/, access: 'tenant',
    run: async (deps, req) => listed(await listDeadLetters(deps, req.principal, parseDeadLetterQuery(req.query)), deliveryView),
  },
  {
    method: 'POST', pattern: /^\/v1\/replays$/, access: 'admin',
    run: async (deps, req) => {
      const request = parseBulkReplayBody(req.body, 'admin');
      const deadlineMs = Math.min(req.deadlineMs ?? Infinity, deps.clock.now() + API_REPLAY_BUDGET_MS);
      const record = await startBulkReplay(deps, request, { deadlineMs });
      // 200 with the final counts when it finished within the request; 202 while it continues on the schedule.
      return ok(replayView(record), record.status === 'completed' ? 200 : 202);
    },
  },
  {
    method: 'GET', pattern: /^\/v1\/replays$/, access: 'admin',
    run: async (deps, req) => listed(await listReplays(deps, parsePageRequest(req.query)), replayView),
  },
  { method: 'GET', pattern: new RegExp(`^/v1/replays/${RPL}$`), access: 'admin', run: async (deps, _r, [id]) => ok(replayView(await getReplay(deps, id!))) },
  {
    method: 'POST', pattern: new RegExp(`^/v1/tenants/${TENANT}/keys$`), access: 'admin',
    run: async (deps, req, [tenantId]) => ok(await mintTenantKey(deps, parseTenantId(decodePathSegment(tenantId!, 'tenantId')), parseMintKeyBody(req.body)), 201),
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/tenants/${TENANT}/keys$`), access: 'admin',
    run: async (deps, _r, [tenantId]) => listed({ items: await listTenantKeys(deps, parseTenantId(decodePathSegment(tenantId!, 'tenantId'))) }, tenantKeyView),
  },
  {
    method: 'DELETE', pattern: new RegExp(`^/v1/tenants/${TENANT}/keys/${KEY}$`), access: 'admin',
    run: async (deps, _r, [tenantId, keyId]) => ok(tenantKeyView(await revokeTenantKey(deps, parseTenantId(decodePathSegment(tenantId!, 'tenantId')), keyId!))),
  },
];

/**
 * Finds the route for a request and runs it. Without a principal only public routes answer:
 * anything else, known path or not, is UnauthorizedError, so an unauthenticated caller learns
 * nothing about which paths exist. A known path with another method is MethodNotAllowedError.
 */
export async function route(deps: FunctionDeps<'api'>, req: ApiRequest): Promise<ApiResponse> {
  const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
  const { principal } = req;
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    allowed.push(r.method);
    if (r.method !== req.method) continue;
    if (r.access === 'public') return r.run(deps, req, m.slice(1));
    if (!principal) throw new UnauthorizedError();
    if (r.access === 'admin') requireAdmin(principal, `${req.method} ${path.replace(/\/(sub|dlv|rpl|key)_[^/]+/g, '/{id}')}`);
    return r.run(deps, { ...req, principal }, m.slice(1));
  }
  if (!principal) throw new UnauthorizedError();
  if (allowed.length > 0) throw new MethodNotAllowedError(req.method, path, allowed);
  const id = /\/(sub|dlv|rpl)_[^/]*/.exec(path);
  if (id) throw new NotFoundError(id[1] === 'sub' ? 'subscription' : id[1] === 'dlv' ? 'delivery' : 'replay', id[0].slice(1));
  throw new NotFoundError('route', `${req.method} ${path}`);
}
