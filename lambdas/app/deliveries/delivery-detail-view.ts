import type { DeliveryDetail } from '#app/deliveries/deliveries.ts';
import { attemptView, deliveryView } from '#app/deliveries/delivery-view.ts';
import type { DeliveryDetailView } from '#app/schema/responses.ts';

/**
 * `GET /v1/deliveries/{id}`: the delivery, the body and headers it sends (with the
 * `webhook-id` every attempt carries) and its latest attempts, oldest first, with
 * `attemptLogNextCursor` (null when there are no more) for the earlier ones at
 * `GET /v1/deliveries/{id}/attempts`. The body is null when the event record is gone.
 */
export function deliveryDetailView({
  delivery,
  event,
  attempts,
  attemptsNextCursor,
}: DeliveryDetail): DeliveryDetailView {
  return {
    ...deliveryView(delivery),
    body: event?.body ?? null,
    headers: { ...delivery.headers, 'webhook-id': delivery.eventId },
    attemptLog: attempts.map(attemptView),
    attemptLogNextCursor: attemptsNextCursor ?? null,
  };
}
