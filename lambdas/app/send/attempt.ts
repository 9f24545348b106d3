import { failedOutcome } from '#domain/classify.ts';
import { STATE } from '#domain/states.ts';
import { endedReason, liveSecretIndexes } from '#domain/subscription-states.ts';
import { expectationOf, type Delivery, type Expectation, type Subscription } from '#domain/types.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { Deps } from '#app/deps.ts';
import type { Attempt, SendOutcome } from '#app/send/outcome.ts';
import { writeOutcome, type RecordDeps } from '#app/send/record.ts';
import { expectedRow, writeWait } from '#app/send/rows.ts';
import { openSecrets } from '#app/secrets/open-secrets.ts';

export type AttemptDeps = RecordDeps & Pick<Deps, 'secretOpener' | 'sweepGraceSeconds'>;

/** How a message reached the sender: its receive count and when it was sent (SQS attributes). */
export interface Receipt {
  readonly receiveCount: number;
  readonly sentAtMs: number;
}

/** How long a paused subscription's delivery waits before it is looked at again (resume re-enqueues at once). */
export const PAUSED_RECHECK_SECONDS = 3600;

/** The row an attempt starts from and the expectation its write holds on. */
type Expected = { readonly row: Delivery; readonly expect: Expectation };

/**
 * Everything an attempt needs, or what became of a delivery that is not to be attempted: the row
 * as expected (carried by the message, or read), its subscription (cached), the body (carried,
 * or read from the event) and the signing secrets. A subscription that is gone or deleted, or a
 * body that is gone, dead-letters the delivery without a POST; a paused one's waits in its row.
 */
export async function prepareAttempt(deps: AttemptDeps, message: ReceivedDeliveryMessage, receipt: Receipt): Promise<Attempt | SendOutcome> {
  let subscription = await deps.subscriptions.getCached(message.subscriptionId);
  const found = await expected(deps, message, receipt, subscription);
  if ('kind' in found) return found;
  let at: Expected = found;
  const ended = endedReason(subscription);
  if (ended !== undefined || !subscription) return deadLetter(deps, at, ended!);
  if (subscription.state === 'paused') {
    const resumed = await waitWhilePaused(deps, at, subscription);
    if ('kind' in resumed) return resumed;
    ({ subscription, ...at } = resumed);
  }
  const carried = message.kind !== 'due' && message.body !== undefined ? { body: message.body, type: message.eventType } : undefined;
  const event = carried ?? (await deps.events.get(at.row.eventId));
  if (!event) return deadLetter(deps, at, 'event body no longer stored');
  const all = await openSecrets(deps, subscription);
  const secrets = liveSecretIndexes(subscription, all.length, deps.clock.now()).map((i) => all[i]!);
  return { message, ...at, subscription, body: event.body, eventType: event.type, secrets };
}

/**
 * The row as the message expects it, read instead when the message may be stale: a due message
 * (that is its kind), one received before or sent on after a failure (its attempt may have
 * written the row), and one due longer than the sweeper's grace (the sweeper may have sent the delivery again, and
 * moved its row). A read row not pending has nothing left to attempt.
 */
async function expected(deps: AttemptDeps, m: ReceivedDeliveryMessage, receipt: Receipt, subscription: Subscription | undefined): Promise<Expected | SendOutcome> {
  const carried = subscription && expectedRow(m, subscription);
  const dueSinceMs = m.kind === 'fresh' ? receipt.sentAtMs : m.kind === 'retry' ? Date.parse(m.nextAttemptAt) : 0;
  const stale = m.kind === 'due' || m.reread === true || receipt.receiveCount > 1 || deps.clock.now() - dueSinceMs >= deps.sweepGraceSeconds * 1000;
  if (carried && !stale) return carried;
  const row = await deps.deliveries.get(m.deliveryId);
  if (!row) return m.kind === 'fresh' && carried ? carried : { kind: 'done', note: 'unknown delivery' };
  // An earlier version's claim (in_flight) is the sweeper's to hand back once its lease runs out.
  if (row.state !== STATE.pending) return { kind: 'done', note: `already ${row.state}` };
  return { row, expect: expectationOf(row) };
}

/** Dead-letters the delivery as failed with `reason`, no POST made (its row written from what was expected). */
async function deadLetter(deps: AttemptDeps, at: Expected, reason: string): Promise<SendOutcome> {
  const written = await writeOutcome(deps, at.row, at.expect, failedOutcome(reason), deps.clock.now());
  return { kind: 'done', note: written ? reason : `${reason}; the row had moved on meanwhile` };
}

/**
 * Parks a paused subscription's delivery in its row until the recheck (resume re-enqueues it at
 * once), and deletes its message. Then reads the state again: a resume that read the backlog
 * before this write could not see the delivery, so one resumed meanwhile is attempted now, from
 * the row as written, rather than an hour later.
 */
async function waitWhilePaused(deps: AttemptDeps, at: Expected, subscription: Subscription): Promise<(Expected & { readonly subscription: Subscription }) | SendOutcome> {
  const nowMs = deps.clock.now();
  const written = await writeWait(deps, at, Math.max(Math.min(nowMs + PAUSED_RECHECK_SECONDS * 1000, Date.parse(at.row.giveUpAt)), nowMs), nowMs);
  if (!written) return { kind: 'done', note: 'subscription paused; the row had moved on meanwhile' };
  const now = await deps.subscriptions.get(subscription.id);
  if (now?.state !== 'active') return { kind: 'done', note: 'subscription paused: waits for resume' };
  return { row: written, expect: expectationOf(written), subscription: now };
}
