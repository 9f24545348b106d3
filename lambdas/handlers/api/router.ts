import type { ServiceDeps } from '#app/deps.ts';
import { getDeliveryDetail, replayDelivery } from '#app/deliveries.ts';
import { NotFoundError, ValidationError } from '#app/errors.ts';
import { publish } from '#app/publish.ts';
import { createSubscription, getSubscription, pauseSubscription, resumeSubscription } from '#app/subscriptions.ts';
import { parseCreateSubscription, parseId, parseLimit, parsePublishRequest, parseState } from '#app/validation.ts';
import { attemptView, deliveryView, subscriptionView } from '#app/views.ts';

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body: string | null;
}
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

type Route = {
  readonly method: string;
  readonly pattern: RegExp;
  readonly run: (deps: ServiceDeps, req: ApiRequest, params: string[]) => Promise<ApiResponse>;
};

const ok = (body: unknown, status = 200): ApiResponse => ({ status, body });
const SUB = '(sub_[A-Za-z0-9_-]+)';
const DLV = '(dlv_[A-Za-z0-9_-]+)';

/** DESIGN.md's HTTP API, one line per route: parse, call the service, map the view. */
const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/health$/, run: async () => ok({ status: 'ok' }) },
  {
    method: 'POST', pattern: /^\/v1\/subscriptions$/,
    run: async (deps, req) => ok(subscriptionView(await createSubscription(deps, parseCreateSubscription(req.body, deps.defaultRetryPolicy)), { withSecret: true }), 201),
  },
  {
    method: 'GET', pattern: /^\/v1\/subscriptions$/,
    run: async (deps, req) => {
      const page = await deps.subscriptions.list({ limit: parseLimit(req.query.limit), ...cursorOf(req), ...(req.query.tenantId ? { tenantId: req.query.tenantId } : {}) });
      return ok({ items: page.items.map((s) => subscriptionView(s)), nextCursor: page.nextCursor ?? null });
    },
  },
  { method: 'GET', pattern: new RegExp(`^/v1/subscriptions/${SUB}$`), run: async (deps, _r, [id]) => ok(subscriptionView(await getSubscription(deps, id!))) },
  { method: 'POST', pattern: new RegExp(`^/v1/subscriptions/${SUB}/pause$`), run: async (deps, _r, [id]) => ok(subscriptionView(await pauseSubscription(deps, id!))) },
  {
    method: 'POST', pattern: new RegExp(`^/v1/subscriptions/${SUB}/resume$`),
    run: async (deps, _r, [id]) => {
      const { subscription, drained } = await resumeSubscription(deps, id!);
      return ok({ ...subscriptionView(subscription), drained });
    },
  },
  {
    method: 'POST', pattern: /^\/v1\/events$/,
    run: async (deps, req) => {
      const result = await publish(deps, parsePublishRequest(req.body));
      return ok({ eventId: result.eventId, deliveryIds: result.deliveryIds }, result.kind === 'accepted' ? 202 : 200);
    },
  },
  {
    method: 'GET', pattern: /^\/v1\/deliveries$/,
    run: async (deps, req) => {
      if (!req.query.subscriptionId) throw new ValidationError('subscriptionId', 'is required (deliveries are listed per subscription; use /v1/dead-letters across all)');
      const state = parseState(req.query.state);
      const page = await deps.deliveries.listBySubscription({
        subscriptionId: parseId(req.query.subscriptionId, 'sub', 'subscriptionId'),
        limit: parseLimit(req.query.limit),
        ...cursorOf(req),
        ...(state ? { state } : {}),
      });
      return ok({ items: page.items.map(deliveryView), nextCursor: page.nextCursor ?? null });
    },
  },
  {
    method: 'GET', pattern: new RegExp(`^/v1/deliveries/${DLV}$`),
    run: async (deps, _r, [id]) => {
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
    method: 'POST', pattern: new RegExp(`^/v1/deliveries/${DLV}/replay$`),
    run: async (deps, _r, [id]) => ok(deliveryView(await replayDelivery(deps, id!)), 202),
  },
  {
    method: 'GET', pattern: /^\/v1\/dead-letters$/,
    run: async (deps, req) => {
      const subscriptionId = req.query.subscriptionId ? parseId(req.query.subscriptionId, 'sub', 'subscriptionId') : undefined;
      const page = await deps.deliveries.listDeadLetters({ limit: parseLimit(req.query.limit), ...cursorOf(req), ...(subscriptionId ? { subscriptionId } : {}) });
      return ok({ items: page.items.map(deliveryView), nextCursor: page.nextCursor ?? null });
    },
  },
];

function cursorOf(req: ApiRequest): { cursor?: string } {
  return req.query.cursor ? { cursor: req.query.cursor } : {};
}

export async function route(deps: ServiceDeps, req: ApiRequest): Promise<ApiResponse> {
  const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
  let pathMatched = false;
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method === req.method) return r.run(deps, req, m.slice(1));
  }
  if (pathMatched) throw new ValidationError('method', `${req.method} is not supported on ${path}`);
  const id = /\/(sub|dlv)_[^/]*/.exec(path);
  if (id) throw new NotFoundError(id[1] === 'sub' ? 'subscription' : 'delivery', id[0].slice(1));
  throw new NotFoundError('route', `${req.method} ${path}`);
}
