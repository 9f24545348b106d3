import { ADMIN, type Principal, requireAdmin, tenantScope, visibleDelivery, visibleSubscription } from '#app/access.ts';
import { getDeliveryDetail } from '#app/deliveries/deliveries.ts';
import { attemptView, deliveryView } from '#app/deliveries/delivery-view.ts';
import type { OperatorDeps } from '#app/deps.ts';
import { MethodNotAllowedError, NotFoundError, ValidationError } from '#app/errors.ts';
import { parseId, parseLimit, parseState, parseTenantId } from '#app/parse.ts';
import { parsePublishRequest } from '#app/publish/publish-request.ts';
import { publish } from '#app/publish/publish.ts';
import { getReplay, listReplays, startBulkReplay } from '#app/replay/bulk-replay.ts';
import { replayAs } from '#app/replay/replay-delivery.ts';
import { parseBulkReplayBody } from '#app/replay/replay-request.ts';
import { replayView } from '#app/replay/replay-view.ts';
import { parseCreateSubscription, parsePauseBody } from '#app/subscriptions/subscription-request.ts';
import { subscriptionView } from '#app/subscriptions/subscription-view.ts';
import { createSubscription, pauseSubscription, resumeSubscription } from '#app/subscriptions/subscriptions.ts';
import { mintTenantKey } from '#app/tenants/tenants.ts';

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body: string | null;
  /** Who the authorizer let in; admin when absent. */
  readonly principal?: Principal;
  /** When a long request (a bulk replay) must checkpoint and answer (epoch ms); the rest continues on the replay schedule. */
  readonly deadlineMs?: number;
}
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

type Route = {
  readonly method: string;
  readonly pattern: RegExp;
  /** `admin`: the deployment's key only; `tenant`: tenant keys too, scoped to their own resources. */
  readonly access: 'public' | 'admin' | 'tenant';
  readonly run: (deps: OperatorDeps, req: ApiRequest & { readonly principal: Principal }, params: string[]) => Promise<ApiResponse>;
};

const ok = (body: unknown, status = 200): ApiResponse => ({ status, body });
const SUB = '(sub_[A-Za-z0-9_-]+)';
const DLV = '(dlv_[A-Za-z0-9_-]+)';
const RPL = '(rpl_[A-Za-z0-9_-]+)';
const TENANT = '([^/]+)';
/** A bulk replay answers within this even when API Gateway would allow more; the rest continues on the replay schedule. */
const API_REPLAY_BUDGET_MS = 20_000;

/** DESIGN.md's HTTP API, one line per route: parse, call the service, map the view. */
const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/health$/, access: 'public', run: async () => ok({ status: 'ok' }) },
  {
    method: 'POST', pattern: /^\/v1\/subscriptions$/, access: 'admin',
    run: async (deps, req) => ok(subscriptionView(await createSubscription(deps, parseCreateSubscription(req.body, deps.defaultRetryPolicy)), { withSecret: true }), 201),
  },
  {
    method: 'GET', pattern: /^\/v1\/subscriptions$/, access: 'tenant',
    run: async (deps, req) => {
      const tenantId = tenantScope(req.principal) ?? req.query.tenantId;
      const page = await deps.subscriptions.list({ limit: parseLimit(req.query.limit), ...cursorOf(req), ...(tenantId ? { tenantId } : {}) });
      return ok({ items: page.items.map((s) => subscriptionView(s)), nextCursor: page.nextCursor ?? null });
    },
  },
  { method: 'GET', pattern: new RegExp(`^/v1/subscriptions/${SUB}$`), access: 'tenant', run: async (deps, req, [id]) => ok(subscriptionView(await visibleSubscription(deps, req.principal, id!))) },
  {
    method: 'POST', pattern: new RegExp(`^/v1/subscriptions/${SUB}/pause$`), access: 'tenant',
    run: async (deps, req, [id]) => {
      const { reason } = parsePauseBody(req.body);
      await visibleSubscription(deps, req.principal, id!);
      return ok(subscriptionView(await pauseSubscription(deps, id!, reason)));
    },
  },
  {
    method: 'POST', pattern: new RegExp(`^/v1/subscriptions/${SUB}/resume$`), access: 'tenant',
    run: async (deps, req, [id]) => {
      await visibleSubscription(deps, req.principal, id!);
      const { subscription, drained } = await resumeSubscription(deps, id!);
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
    method: 'GET', pattern: /^\/v1\/deliveries$/, access: 'tenant',
    run: async (deps, req) => {
      if (!req.query.subscriptionId) throw new ValidationError('subscriptionId', 'is required (deliveries are listed per subscription; use /v1/dead-letters across all)');
      const state = parseState(req.query.state);
      const subscriptionId = parseId(req.query.subscriptionId, 'sub', 'subscriptionId');
      if (req.principal.role === 'tenant') await visibleSubscription(deps, req.principal, subscriptionId);
      const page = await deps.deliveries.listBySubscription({
        subscriptionId,
        limit: parseLimit(req.query.limit),
        ...cursorOf(req),
        ...(state ? { state } : {}),
      });
      return ok({ items: page.items.map(deliveryView), nextCursor: page.nextCursor ?? null });
    },
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/deliveries/${DLV}$`), access: 'tenant',
    run: async (deps, req, [id]) => {
      await visibleDelivery(deps, req.principal, id!);
      const { delivery, event, attempts } = await getDeliveryDetail(deps, id!);
      return ok({
        ...deliveryView(delivery),
        body: event?.body ?? null,
        headers: { ...delivery.headers, 'webhook-id': delivery.eventId },
        attemptLog: attempts.map(attemptView),
      });
    },
  },
  {
    method: 'POST', pattern: new RegExp(`^/v1/deliveries/${DLV}/replay$`), access: 'tenant',
    run: async (deps, req, [id]) => ok(deliveryView(await replayAs(deps, req.principal, id!)), 202),
  },
  {
    method: 'GET', pattern: /^\/v1\/dead-letters$/, access: 'tenant',
    run: async (deps, req) => {
      const subscriptionId = req.query.subscriptionId ? parseId(req.query.subscriptionId, 'sub', 'subscriptionId') : undefined;
      if (req.principal.role === 'tenant') {
        if (!subscriptionId) throw new ValidationError('subscriptionId', 'is required with a tenant key (dead letters are listed per subscription)');
        await visibleSubscription(deps, req.principal, subscriptionId);
      }
      const page = await deps.deliveries.listDeadLetters({ limit: parseLimit(req.query.limit), ...cursorOf(req), ...(subscriptionId ? { subscriptionId } : {}) });
      return ok({ items: page.items.map(deliveryView), nextCursor: page.nextCursor ?? null });
    },
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
    run: async (deps, req) => {
      const page = await listReplays(deps, { limit: parseLimit(req.query.limit), ...cursorOf(req) });
      return ok({ items: page.items.map(replayView), nextCursor: page.nextCursor ?? null });
    },
  },
  { method: 'GET', pattern: new RegExp(`^/v1/replays/${RPL}$`), access: 'admin', run: async (deps, _r, [id]) => ok(replayView(await getReplay(deps, id!))) },
  {
    method: 'POST', pattern: new RegExp(`^/v1/tenants/${TENANT}/keys$`), access: 'admin',
    run: async (deps, _r, [tenantId]) => ok(await mintTenantKey(deps, parseTenantId(decodeURIComponent(tenantId!))), 201),
  },
];

function cursorOf(req: ApiRequest): { cursor?: string } {
  return req.query.cursor ? { cursor: req.query.cursor } : {};
}

export async function route(deps: OperatorDeps, req: ApiRequest): Promise<ApiResponse> {
  const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
  const principal = req.principal ?? ADMIN;
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    allowed.push(r.method);
    if (r.method !== req.method) continue;
    if (r.access === 'admin') requireAdmin(principal, `${req.method} ${path.replace(/\/(sub|dlv|rpl)_[^/]+/g, '/{id}')}`);
    return r.run(deps, { ...req, principal }, m.slice(1));
  }
  if (allowed.length > 0) throw new MethodNotAllowedError(req.method, path, allowed);
  const id = /\/(sub|dlv|rpl)_[^/]*/.exec(path);
  if (id) throw new NotFoundError(id[1] === 'sub' ? 'subscription' : id[1] === 'dlv' ? 'delivery' : 'replay', id[0].slice(1));
  throw new NotFoundError('route', `${req.method} ${path}`);
}
