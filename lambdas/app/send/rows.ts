import { firstDelivery } from '#app/publish/first-delivery.ts';
import type { Deps } from '#app/deps.ts';
import { STATE } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import { expectationOf, NO_ROW, type Delivery, type Expectation, type Subscription } from '#domain/types.ts';
import type { DueMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';

/**
 * The row a message expects to find, built from what it carries, with the expectation the
 * attempt's one write is conditional on: a fresh message's delivery has no row yet (this is the
 * row its first write makes), a retry's is the row as the attempt before wrote it. Undefined
 * for a due message, whose row is read.
 */
export function expectedRow(m: ReceivedDeliveryMessage, subscription: Subscription): { readonly row: Delivery; readonly expect: Expectation } | undefined {
  if (m.kind === 'due') return undefined;
  const first = firstDelivery({ id: m.eventId, createdAt: m.createdAt }, subscription, Date.parse(m.giveUpAt), Date.parse(m.createdAt), m.deliveryId);
  if (m.kind === 'fresh') return { row: first, expect: NO_ROW };
  const row: Delivery = { ...first, attempts: m.attempts, attemptSeq: m.attemptSeq, nextAttemptAt: m.nextAttemptAt, ...(m.previousAttempt ? { lastAttempt: m.previousAttempt } : {}) };
  return { row, expect: expectationOf(row) };
}

/** A message that has the sender read the row and attempt it as it stands. */
export function dueMessage(row: Pick<Delivery, 'id' | 'subscriptionId'>, delaySeconds?: number): DueMessage {
  return { kind: 'due', deliveryId: row.id, subscriptionId: row.subscriptionId, ...(delaySeconds !== undefined ? { delaySeconds } : {}) };
}

/**
 * Makes a delivery wait until `untilMs` in its row: the row as expected, pending and due then,
 * in one write conditional on the expectation (a fresh delivery's first write makes the row it
 * waits in). The row as written, or undefined when another copy or the sweeper moved it first.
 */
export async function writeWait(deps: Pick<Deps, 'deliveries'>, at: { readonly row: Delivery; readonly expect: Expectation }, untilMs: number, nowMs: number): Promise<Delivery | undefined> {
  const waiting: Delivery = { ...at.row, state: STATE.pending, nextAttemptAt: iso(untilMs), updatedAt: iso(nowMs) };
  return (await deps.deliveries.write('reschedule', waiting, at.expect)) ? waiting : undefined;
}
