import { firstDelivery } from '#app/publish/first-delivery.ts';
import { expectationOf, NO_ROW, type Delivery, type Expectation, type Subscription } from '#domain/types.ts';
import type { DueMessage, ReceivedDeliveryMessage, RetryMessage } from '#ports/delivery-queue.ts';

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

/** A planned retry's message: the row as its attempt wrote it (that attempt and the earlier ones inline), and the event it carries on. */
export function retryMessage(
  row: Delivery,
  event: { readonly eventType: string; readonly body: string },
): RetryMessage {
  const { id: deliveryId, subscriptionId, eventId, createdAt, giveUpAt, attemptSeq, attempts, nextAttemptAt } = row;
  const carried = { deliveryId, subscriptionId, eventId, createdAt, giveUpAt, attemptSeq, attempts, nextAttemptAt };
  const previous = row.lastAttempt ? { previousAttempt: row.lastAttempt } : {};
  const earlier = row.earlierAttempts ? { earlierAttempts: row.earlierAttempts } : {};
  return { kind: 'retry', ...carried, eventType: event.eventType, body: event.body, ...previous, ...earlier };
}

/**
 * The row a fresh or retry message expects, built back from what it carries: a fresh delivery
 * has no row yet (this is the row its first write makes), a retry's is the row as the attempt
 * before wrote it (`retryMessage`), that attempt inline.
 */
export function carriedRow(
  m: Exclude<ReceivedDeliveryMessage, { kind: 'due' }>,
  subscription: Subscription,
): { readonly row: Delivery; readonly expect: Expectation } {
  const { createdAt, giveUpAt } = m;
  const first = firstDelivery(
    { id: m.eventId, type: m.eventType, createdAt },
    subscription,
    Date.parse(giveUpAt),
    Date.parse(createdAt),
    m.deliveryId,
  );
  if (m.kind === 'fresh') return { row: first, expect: NO_ROW };
  const previous = m.previousAttempt ? { lastAttempt: m.previousAttempt } : {};
  const earlier = m.earlierAttempts ? { earlierAttempts: m.earlierAttempts } : {};
  const row: Delivery = {
    ...first,
    attempts: m.attempts,
    attemptSeq: m.attemptSeq,
    nextAttemptAt: m.nextAttemptAt,
    ...previous,
    ...earlier,
  };
  return { row, expect: expectationOf(row) };
}
