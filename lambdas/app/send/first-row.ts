import type { Deps } from '#app/deps.ts';
import { firstDelivery } from '#app/publish/first-delivery.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';

/**
 * The row a delivery stands as before any attempt, from what its first message carries (the id
 * publish answered with, the event's creation, the deadline); undefined for a message that
 * carries only ids.
 */
export function firstRowOf(message: ReceivedDeliveryMessage, subscription: Subscription): Delivery | undefined {
  const { eventId, createdAt, giveUpAt } = message;
  if (!eventId || !createdAt || !giveUpAt) return undefined;
  return firstDelivery({ id: eventId, createdAt }, subscription, Date.parse(giveUpAt), Date.parse(createdAt), message.deliveryId);
}

/**
 * Writes a delivery's row as it stands before any attempt, from what its first message carries
 * (publish writes no row; messages of the sweeper and of replays carry only ids: their rows
 * exist). It goes in out of the sweeper's view: the claim or reschedule that follows puts it
 * in. False when it exists already or the message lacks what the row needs.
 */
export async function writeFirstRow(deps: Pick<Deps, 'deliveries'>, message: ReceivedDeliveryMessage, subscription: Subscription): Promise<boolean> {
  const row = firstRowOf(message, subscription);
  return row !== undefined && deps.deliveries.create(row, { waiting: false });
}

/** The delivery's row; for a first attempt's message with no row yet, the row written for it first. */
export async function rowOrFirstRow(deps: Pick<Deps, 'deliveries'>, message: ReceivedDeliveryMessage, subscription: Subscription): Promise<Delivery | undefined> {
  const row = await deps.deliveries.get(message.deliveryId);
  if (row || !(await writeFirstRow(deps, message, subscription))) return row;
  return deps.deliveries.get(message.deliveryId);
}
