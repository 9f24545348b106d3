import { REPLAYABLE_STATES } from '#domain/states.ts';
import type { AttemptRecord, Delivery, EventRecord } from '#domain/types.ts';
import { iso, type ServiceDeps } from './deps.ts';
import { ConflictError, NotFoundError } from './errors.ts';

export async function getDelivery(deps: ServiceDeps, id: string): Promise<Delivery> {
  const delivery = await deps.deliveries.get(id);
  if (!delivery) throw new NotFoundError('delivery', id);
  return delivery;
}

export interface DeliveryDetail {
  readonly delivery: Delivery;
  readonly event?: EventRecord;
  readonly attempts: readonly AttemptRecord[];
}

export async function getDeliveryDetail(deps: ServiceDeps, id: string): Promise<DeliveryDetail> {
  const delivery = await getDelivery(deps, id);
  const [event, attempts] = await Promise.all([deps.events.get(delivery.eventId), deps.attempts.list(id)]);
  return { delivery, ...(event ? { event } : {}), attempts };
}

/**
 * Sends a delivery again from a terminal state: back to pending, attempts 0 (the backoff starts
 * afresh), a fresh deadline; the attempt log keeps every earlier attempt.
 */
export async function replayDelivery(deps: ServiceDeps, id: string): Promise<Delivery> {
  const current = await getDelivery(deps, id);
  const subscription = await deps.subscriptions.get(current.subscriptionId);
  const policy = subscription?.retryPolicy ?? deps.defaultRetryPolicy;
  const nowMs = deps.clock.now();
  const replayed = await deps.deliveries.replay(id, iso(nowMs), iso(nowMs + policy.deadlineSeconds * 1000));
  if (!replayed) {
    const state = (await deps.deliveries.get(id))?.state ?? current.state;
    throw new ConflictError(`delivery ${id} is ${state}; only ${REPLAYABLE_STATES.join(', ')} deliveries can be replayed`);
  }
  await deps.queue.enqueue([{ deliveryId: id, subscriptionId: replayed.subscriptionId }]);
  return replayed;
}
