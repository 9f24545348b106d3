import type { Principal } from '#app/access.ts';
import { ConflictError } from '#app/errors.ts';
import { publish, type PublishDeps } from '#app/publish/publish.ts';
import { getSubscription, refuseDeleted } from '#app/subscriptions/subscriptions.ts';

/** The type of the event `POST /v1/subscriptions/{id}/test` sends; every subscription receives it, whatever its event types. */
export const TEST_EVENT_TYPE = 'hookline.test';

/**
 * Sends a `hookline.test` event to this subscription only, through the normal pipeline
 * (stored, signed, POSTed, retried, dead-lettered like any other), and returns its ids so the
 * caller can watch the delivery. Only an active subscription: a paused one would hold it.
 */
export async function sendTestEvent(
  deps: PublishDeps,
  principal: Principal,
  id: string,
): Promise<{ eventId: string; deliveryId: string }> {
  const subscription = await getSubscription(deps, principal, id);
  refuseDeleted(subscription, 'receive a test event');
  if (subscription.state !== 'active')
    throw new ConflictError(`subscription ${id} is ${subscription.state}; resume it to send a test event`);
  const sentAt = new Date(deps.clock.now()).toISOString();
  const payloadJson = JSON.stringify({
    subscriptionId: id,
    message: 'A test event from Hookline: your endpoint is reachable and verifies signatures.',
    sentAt,
  });
  // Matched on its own type whatever the subscription filters: the test is of the endpoint, not the filter.
  // The subscription's own tenant's event, like any event it receives.
  const result = await publish(
    deps,
    {
      type: TEST_EVENT_TYPE,
      ...(subscription.tenantId !== undefined ? { tenantId: subscription.tenantId } : {}),
      payloadJson,
    },
    { only: { ...subscription, eventTypes: ['*'] } },
  );
  return { eventId: result.eventId, deliveryId: result.deliveryIds[0]! };
}
