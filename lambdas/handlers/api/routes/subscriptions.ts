import { deleteSubscription } from '#app/subscriptions/delete-subscription.ts';
import { deliveryPolicyView } from '#app/subscriptions/delivery-policy-view.ts';
import { readSecrets, rotateSecret } from '#app/subscriptions/rotate-secret.ts';
import {
  parseCreateSubscription,
  parsePauseBody,
  parseRotateSecret,
  parseTestEvent,
  parseSubscriptionListQuery,
  parseUpdateSubscription,
} from '#app/subscriptions/subscription-request.ts';
import { sendTestEvent } from '#app/subscriptions/test-event.ts';
import { updateSubscription } from '#app/subscriptions/update-subscription.ts';
import { getSubscriptionStats } from '#app/subscriptions/subscription-stats.ts';
import { parseSubscriptionStatsQuery } from '#app/subscriptions/subscription-stats-request.ts';
import { subscriptionStatsView } from '#app/subscriptions/subscription-stats-view.ts';
import { subscriptionView } from '#app/subscriptions/subscription-view.ts';
import {
  createSubscription,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
} from '#app/subscriptions/subscriptions.ts';
import { listed, ok, type Route } from '../route.ts';

/** Subscriptions: create, read, list, update, delete, stats, pause and resume, secrets, a test event; the delivery contract's figures. */
export const SUBSCRIPTION_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/subscriptions',
    access: 'admin',
    run: async (deps, req) =>
      ok(
        subscriptionView(
          await createSubscription(deps, req.principal, parseCreateSubscription(req.body, deps.defaultRetryPolicy)),
          { withSecret: true },
        ),
        201,
      ),
  },
  {
    method: 'GET',
    path: '/v1/subscriptions',
    access: 'tenant',
    run: async (deps, req) =>
      listed(await listSubscriptions(deps, req.principal, parseSubscriptionListQuery(req.query)), (s) =>
        subscriptionView(s),
      ),
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{subscriptionId}',
    access: 'tenant',
    run: async (deps, req, p) => ok(subscriptionView(await getSubscription(deps, req.principal, p.subscriptionId!))),
  },
  {
    method: 'PATCH',
    path: '/v1/subscriptions/{subscriptionId}',
    access: 'tenant',
    run: async (deps, req, p) =>
      ok(
        subscriptionView(
          await updateSubscription(
            deps,
            req.principal,
            p.subscriptionId!,
            parseUpdateSubscription(req.body, deps.defaultRetryPolicy),
          ),
        ),
      ),
  },
  {
    method: 'DELETE',
    path: '/v1/subscriptions/{subscriptionId}',
    access: 'tenant',
    run: async (deps, req, p) => {
      const { subscription, deadLettered } = await deleteSubscription(deps, req.principal, p.subscriptionId!);
      return ok({ ...subscriptionView(subscription), deadLettered });
    },
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/rotate-secret',
    access: 'tenant',
    run: async (deps, req, p) =>
      ok(await rotateSecret(deps, req.principal, p.subscriptionId!, parseRotateSecret(req.body))),
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{subscriptionId}/secret',
    access: 'tenant',
    run: async (deps, req, p) => ok(await readSecrets(deps, req.principal, p.subscriptionId!)),
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/test',
    access: 'tenant',
    run: async (deps, req, p) =>
      ok(await sendTestEvent(deps, req.principal, p.subscriptionId!, parseTestEvent(req.body)), 202),
  },
  {
    method: 'GET',
    path: '/v1/delivery-policy',
    access: 'tenant',
    run: async (deps) => ok(deliveryPolicyView(deps)),
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{subscriptionId}/stats',
    access: 'tenant',
    run: async (deps, req, p) =>
      ok(
        subscriptionStatsView(
          await getSubscriptionStats(deps, req.principal, p.subscriptionId!, parseSubscriptionStatsQuery(req.query)),
        ),
      ),
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/pause',
    access: 'tenant',
    run: async (deps, req, p) =>
      ok(
        subscriptionView(
          await pauseSubscription(deps, req.principal, p.subscriptionId!, parsePauseBody(req.body).reason),
        ),
      ),
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/resume',
    access: 'tenant',
    run: async (deps, req, p) => {
      const { subscription, drained } = await resumeSubscription(deps, req.principal, p.subscriptionId!);
      return ok({ ...subscriptionView(subscription), drained });
    },
  },
];
