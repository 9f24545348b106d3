import { deliveryDetailView } from '#app/deliveries/delivery-detail-view.ts';
import { parseDeadLetterQuery, parseDeliveryListQuery } from '#app/deliveries/delivery-request.ts';
import { attemptView, deliveryView } from '#app/deliveries/delivery-view.ts';
import { getDeliveryDetail, listAttempts, listDeadLetters, listDeliveries } from '#app/deliveries/deliveries.ts';
import { parsePageRequest } from '#app/parse.ts';
import { replayAs } from '#app/replay/replay-delivery.ts';
import { retryNowAs } from '#app/replay/retry-now.ts';
import { listed, ok, type Route } from '../route.ts';

/** Deliveries, their attempts and dead letters, the replay of one, and Retry now of a waiting one. */
export const DELIVERY_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/deliveries',
    access: 'tenant',
    run: async (deps, req) =>
      listed(await listDeliveries(deps, req.principal, parseDeliveryListQuery(req.query)), deliveryView),
  },
  {
    method: 'GET',
    path: '/v1/deliveries/{deliveryId}',
    access: 'tenant',
    run: async (deps, req, p) => ok(deliveryDetailView(await getDeliveryDetail(deps, req.principal, p.deliveryId!))),
  },
  {
    method: 'GET',
    path: '/v1/deliveries/{deliveryId}/attempts',
    access: 'tenant',
    run: async (deps, req, p) =>
      listed(await listAttempts(deps, req.principal, p.deliveryId!, parsePageRequest(req.query)), attemptView),
  },
  {
    method: 'POST',
    path: '/v1/deliveries/{deliveryId}/replay',
    access: 'tenant',
    run: async (deps, req, p) => ok(deliveryView(await replayAs(deps, req.principal, p.deliveryId!)), 202),
  },
  {
    method: 'POST',
    path: '/v1/deliveries/{deliveryId}/retry',
    access: 'tenant',
    run: async (deps, req, p) => ok(deliveryView(await retryNowAs(deps, req.principal, p.deliveryId!)), 202),
  },
  {
    method: 'GET',
    path: '/v1/dead-letters',
    access: 'tenant',
    run: async (deps, req) =>
      listed(await listDeadLetters(deps, req.principal, parseDeadLetterQuery(req.query)), deliveryView),
  },
];
