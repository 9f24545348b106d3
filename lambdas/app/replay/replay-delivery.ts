import { allows, REPLAYABLE_STATES } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import type { Delivery } from '#domain/types.ts';
import { type Principal, visibleDelivery } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';
import { ConflictError } from '#app/errors.ts';
import { getDelivery } from '#app/deliveries/deliveries.ts';
import { withEventTypes } from '#app/deliveries/reads.ts';
import { SEND_NOW_ACTION, takeTenantAction } from '#app/tenants/customer-limit.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import { keepHistoryFor } from './keep-history.ts';

/**
 * Sends a delivery again from a terminal state: back to pending, attempts 0 (the backoff starts
 * afresh), a fresh deadline; the attempt log keeps every earlier attempt.
 */
/** What a single replay uses. */
export type ReplayDeliveryDeps = Pick<
  Deps,
  'deliveries' | 'subscriptions' | 'events' | 'attempts' | 'queue' | 'clock' | 'defaultRetryPolicy' | 'retention'
>;

export async function replayDelivery(deps: ReplayDeliveryDeps, id: string): Promise<Delivery> {
  const current = await getDelivery(deps, id);
  const subscription = await deps.subscriptions.get(current.subscriptionId);
  // A deleted subscription's deliveries are history: a replay would only dead-letter again.
  if (subscription?.state === 'deleted')
    throw new ConflictError(
      `delivery ${id} belongs to subscription ${subscription.id}, which was deleted; its deliveries cannot be replayed`,
    );
  // Sending to an endpoint that answered 410 Gone would only dead-letter it again.
  if (subscription?.state === 'disabled') {
    throw new ConflictError(
      `delivery ${id} belongs to subscription ${subscription.id}, which is disabled (${subscription.stateReason ?? 'no reason'}); resume the subscription before replaying its deliveries`,
    );
  }
  const policy = subscription?.retryPolicy ?? deps.defaultRetryPolicy;
  const nowMs = deps.clock.now();
  const giveUpAtMs = nowMs + policy.deadlineSeconds * 1000;
  await keepHistoryFor(deps, current, giveUpAtMs);
  const replayed = await deps.deliveries.replay(id, iso(nowMs), iso(giveUpAtMs));
  if (!replayed) throw notReplayable(id, (await deps.deliveries.get(id))?.state ?? current.state);
  await deps.queue.enqueue([dueMessage(replayed)]);
  return replayed;
}

function notReplayable(id: string, state: string): ConflictError {
  return new ConflictError(
    `delivery ${id} is ${state}; only ${REPLAYABLE_STATES.join(', ')} deliveries can be replayed`,
  );
}

/**
 * The customer's resend button: a tenant may replay its own deliveries, at most
 * `customerReplayLimit` per window and subscription, Retry nows included (the 101st in a minute
 * gets 429 with Retry-After). The admin key is not limited.
 */
export async function replayAs(
  deps: ReplayDeliveryDeps & UnwrittenDeps & Pick<Deps, 'rateLimiter' | 'customerReplayLimit'>,
  principal: Principal,
  id: string,
): Promise<Delivery> {
  const delivery = await visibleDelivery(deps, principal, id);
  // Not yet written (published, not yet attempted): pending, so not replayable, as its row will be.
  if (!allows('replay', delivery.state)) throw notReplayable(id, delivery.state);
  await takeTenantAction(deps, principal, {
    ...SEND_NOW_ACTION,
    limit: deps.customerReplayLimit,
    subscriptionId: delivery.subscriptionId,
  });
  // The answer says the event type an earlier version's row does not keep, as the listings do.
  const [replayed] = await withEventTypes(deps, [await replayDelivery(deps, id)]);
  return replayed!;
}
