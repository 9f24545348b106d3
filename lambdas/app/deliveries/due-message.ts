import type { Delivery } from '#domain/types.ts';
import type { DueMessage } from '#ports/delivery-queue.ts';

/**
 * The message that has the sender read a delivery's row and attempt it as it stands: a
 * replay's, a resume drain's, the sweeper's, and a wait's that wrote the row.
 */
export function dueMessage(
  row: Pick<Delivery, 'id' | 'subscriptionId' | 'attemptSeq'>,
  delaySeconds?: number,
): DueMessage {
  return {
    kind: 'due',
    deliveryId: row.id,
    subscriptionId: row.subscriptionId,
    attemptSeq: row.attemptSeq,
    ...(delaySeconds !== undefined ? { delaySeconds } : {}),
  };
}
