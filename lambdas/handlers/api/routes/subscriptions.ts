import { parseCreateSubscription, parsePauseBody, parseSubscriptionListQuery } from '#app/subscriptions/subscription-request.ts';
import { getSubscriptionStats } from '#app/subscriptions/subscription-stats.ts';
import { parseSubscriptionStatsQuery } from '#app/subscriptions/subscription-stats-request.ts';
import { subscriptionStatsView } from '#app/subscriptions/subscription-stats-view.ts';
import { subscriptionView } from '#app/subscriptions/subscription-view.ts';
import { createSubscription, getSubscription, listSubscriptions, pauseSubscription, resumeSubscription } from '#app/subscriptions/subscriptions.ts';
import { listed, ok, type Route } from '../route.ts';

/** Subscriptions: create, read, list, stats, pause and resume. */
export const SUBSCRIPTION_ROUTES: readonly Route[] = [
  {
    method: 'POST', path: '/v1/subscriptions', access: 'admin',
    run: async (deps, req) => ok(subscriptionView(await createSubscription(deps, parseCreateSubscription(req.body, deps.defaultRetryPolicy)), { withSecret: true }), 201),
  },
  {
    method: 'GET', path: '/v1/subscriptions', access: 'tenant',
    run: async (deps, req) => listed(await listSubscriptions(deps, req.principal, parseSubscriptionListQuery(req.query)), (s) => subscriptionView(s)),
  },
  {
    method: 'GET', path: '/v1/subscriptions/{subscriptionId}', access: 'tenant',
    run: async (deps, req, p) => ok(subscriptionView(await getSubscription(deps, req.principal, p.subscriptionId!))),
  },
  {
    method: 'GET', path: '/v1/subscriptions/{subscriptionId}/stats', access: 'tenant',
    run: async (deps, req, p) => ok(subscriptionStatsView(await getSubscriptionStats(deps, req.principal, p.subscriptionId!, parseSubscriptionStatsQuery(req.query)))),
  },
  {
    method: 'POST', path: '/v1/subscriptions/{subscriptionId}/pause', access: 'tenant',
    run: async (deps, req, p) => ok(subscriptionView(await pauseSubscription(deps, req.principal, p.subscriptionId!, parsePauseBody(req.body).reason))),
  },
  {
    method: 'POST', path: '/v1/subscriptions/{subscriptionId}/resume', access: 'tenant',
    run: async (deps, req, p) => {
      const { subscription, drained } = await resumeSubscription(deps, req.principal, p.subscriptionId!);
      return ok({ ...subscriptionView(subscription), drained });
    },
  },
];
