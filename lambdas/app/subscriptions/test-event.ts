import { TEST_EVENT_TYPE, testEventRefusal } from '#domain/event-types.ts';
import type { Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { ConflictError, ValidationError } from '#app/errors.ts';
import { publish, type PublishDeps } from '#app/publish/publish.ts';
import type { TestEventRequest } from '#app/subscriptions/subscription-request.ts';
import { getSubscription, refuseDeleted } from '#app/subscriptions/subscriptions.ts';
import { SEND_NOW_ACTION, takeTenantAction } from '#app/tenants/customer-limit.ts';

/**
 * Sends a test event to this subscription only, through the normal pipeline (stored, signed,
 * POSTed, retried, dead-lettered like any other), and returns its ids so the caller can watch
 * the delivery. By default a `hookline.test` event with a short message; asked for, an event of
 * a type the subscription receives with the caller's example payload (testEventRefusal says
 * which types may go; another is a 400 naming `type`). Only an active subscription: a paused
 * one would hold it. A tenant's count against `customerReplayLimit`, with its replays and retries.
 */
export async function sendTestEvent(
  deps: PublishDeps & Pick<Deps, 'rateLimiter' | 'customerReplayLimit'>,
  principal: Principal,
  id: string,
  request: TestEventRequest = { type: TEST_EVENT_TYPE },
): Promise<{ eventId: string; deliveryId: string }> {
  const subscription = await getSubscription(deps, principal, id);
  refuseDeleted(subscription, 'receive a test event');
  if (subscription.state !== 'active')
    throw new ConflictError(`subscription ${id} is ${subscription.state}; resume it to send a test event`);
  const refusal = testEventRefusal(subscription, request.type);
  if (refusal) throw new ValidationError('type', refusal);
  // A tenant's test events share Resend's budget: a button held down cannot flood the endpoint.
  await takeTenantAction(deps, principal, { ...SEND_NOW_ACTION, limit: deps.customerReplayLimit, subscriptionId: id });
  const sentAt = new Date(deps.clock.now()).toISOString();
  const payloadJson =
    request.payloadJson ??
    JSON.stringify({
      subscriptionId: id,
      message: 'A test event from Hookline: your endpoint is reachable and verifies signatures.',
      sentAt,
    });
  // Matched on its own type whatever the subscription filters: the test is of the endpoint, not the filter
  // (a chosen type has been checked against the filter above).
  // The subscription's own tenant's event, like any event it receives.
  const result = await publish(
    deps,
    {
      type: request.type,
      ...(subscription.tenantId !== undefined ? { tenantId: subscription.tenantId } : {}),
      payloadJson,
    },
    { only: { ...subscription, eventTypes: ['*'] } },
  );
  return { eventId: result.eventId, deliveryId: result.deliveryIds[0]! };
}
