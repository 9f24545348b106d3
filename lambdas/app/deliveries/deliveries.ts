import type { AttemptRecord, Delivery, EventRecord } from '#domain/types.ts';
import type { ServiceDeps } from '#app/deps.ts';
import { NotFoundError } from '#app/errors.ts';

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
