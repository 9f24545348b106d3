import { carriedRow } from '#app/deliveries/delivery-messages.ts';
import { openSecrets } from '#app/secrets/open-secrets.ts';
import type { Deps } from '#app/deps.ts';
import type { Attempt, Expected, SendOutcome, Step } from '#app/send/outcome.ts';
import { madeBeforeRetryNow } from '#domain/retry-now.ts';
import { STATE } from '#domain/states.ts';
import { endedReason, liveSecretIndexes } from '#domain/subscription-states.ts';
import { expectationOf, type Delivery, type Subscription } from '#domain/types.ts';
import { longestHandlingMs, PAUSED_RECHECK_SECONDS } from '#config/topology.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';

export type AttemptDeps = Pick<
  Deps,
  'deliveries' | 'subscriptions' | 'events' | 'clock' | 'secretOpener' | 'sweepGraceSeconds' | 'attemptTimeoutMs'
>;

/** How a message reached the sender: its receive count (SQS's ApproximateReceiveCount). */
export interface Receipt {
  readonly receiveCount: number;
}

/** What a message comes to before any POST: an attempt to make, a step to record without one, or nothing to write. */
type Prepared =
  | { readonly kind: 'attempt'; readonly attempt: Attempt }
  | Exclude<Step, { kind: 'attempted' }>
  | SendOutcome;

/**
 * Everything an attempt needs, read: the row as expected (carried by the message, or read), its
 * subscription (cached), the body (carried, or read from the event) and the signing secrets. A
 * subscription that is gone, deleted or disabled, or a body that is gone, makes a dead letter
 * with no POST; a paused one's delivery waits in its row. Nothing is written here.
 */
export async function prepareAttempt(
  deps: AttemptDeps,
  message: ReceivedDeliveryMessage,
  receipt: Receipt,
): Promise<Prepared> {
  const subscription = await deps.subscriptions.getCached(message.subscriptionId);
  const at = await expected(deps, message, receipt, subscription);
  if ('kind' in at) return at;
  const ended = endedReason(subscription);
  if (ended !== undefined || !subscription) return { kind: 'dead_letter', at, reason: ended! };
  const nowMs = deps.clock.now();
  if (subscription.state === 'paused') {
    const untilMs = Math.max(Math.min(nowMs + PAUSED_RECHECK_SECONDS * 1000, Date.parse(at.row.giveUpAt)), nowMs);
    return { kind: 'wait', at, untilMs, paused: true, note: 'subscription paused: waits for resume' };
  }
  const carried =
    message.kind !== 'due' && message.body !== undefined ? { body: message.body, type: message.eventType } : undefined;
  const event = carried ?? (await deps.events.get(at.row.eventId));
  if (!event) return { kind: 'dead_letter', at, reason: 'event body no longer stored' };
  const all = await openSecrets(deps, subscription);
  const secrets = liveSecretIndexes(subscription, all.length, nowMs).map((i) => all[i]!);
  return { kind: 'attempt', attempt: { ...at, subscription, body: event.body, eventType: event.type, secrets } };
}

/**
 * The row the attempt starts from and its expectation. A fresh or retry message carries both;
 * when it may be stale (received before, sent on after a failure, a retry made before a Retry
 * now of its subscription, or due so long that the sweeper may send it again before this
 * attempt's outcome is written) the row is read, and the
 * message goes on only while the row is still as it expects (else whoever moved the row sent the
 * message that carries it now). A due message reads the row and goes with it as it stands.
 */
async function expected(
  deps: AttemptDeps,
  m: ReceivedDeliveryMessage,
  receipt: Receipt,
  subscription: Subscription | undefined,
): Promise<Expected | SendOutcome> {
  const carried = subscription && m.kind !== 'due' ? carriedRow(m, subscription) : undefined;
  // Due since what the sweeper counts its grace from: a fresh delivery's publish (its manifest's time), a retry's due time.
  const dueSinceMs =
    m.kind === 'fresh' ? Date.parse(m.createdAt) : m.kind === 'retry' ? Date.parse(m.nextAttemptAt) : 0;
  const safeForMs = deps.sweepGraceSeconds * 1000 - longestHandlingMs(deps.attemptTimeoutMs);
  const stale =
    m.reread === true ||
    receipt.receiveCount > 1 ||
    deps.clock.now() - dueSinceMs >= safeForMs ||
    (m.kind === 'retry' && madeBeforeRetryNow(subscription, m.previousAttempt));
  if (carried && !stale) return carried;
  const row = await deps.deliveries.get(m.deliveryId);
  return carried ? stillAsCarried(row, carried) : asItStands(deps, row, m.kind === 'due' ? m.attemptSeq : undefined);
}

/**
 * A stale message's row, checked against what it carries: still the row it was sent for (no
 * row yet; or pending at its attempt number and due time), or the message has nothing left to
 * do: whoever wrote the row since (a copy of this message, a wait, the sweeper) sent the
 * message that carries it now.
 */
function stillAsCarried(row: Delivery | undefined, carried: Expected): Expected | SendOutcome {
  if (carried.expect.row === 'none')
    return row
      ? { kind: 'done', note: 'its row was written meanwhile; the message of its writer carries it' }
      : carried;
  const holds =
    row?.state === STATE.pending &&
    row.attemptSeq === carried.row.attemptSeq &&
    row.nextAttemptAt === carried.row.nextAttemptAt;
  return holds
    ? { row, expect: carried.expect }
    : {
        kind: 'done',
        note: row ? `its row moved on (now ${row.state}, attempt ${row.attemptSeq})` : 'unknown delivery',
      };
}

/** The row as it stands, for a due message: pending at the attempt number it was sent for, and due; or nothing to attempt (yet). */
function asItStands(
  deps: Pick<AttemptDeps, 'clock'>,
  row: Delivery | undefined,
  sentForSeq: number | undefined,
): Expected | SendOutcome {
  if (!row) return { kind: 'done', note: 'unknown delivery' };
  // An earlier version's claim (in_flight) is the sweeper's to hand back once its lease runs out.
  if (row.state !== STATE.pending) return { kind: 'done', note: `already ${row.state}` };
  if (sentForSeq !== undefined && row.attemptSeq !== sentForSeq)
    return {
      kind: 'done',
      note: `its row moved on (attempt ${row.attemptSeq}): the message of that attempt carries it`,
    };
  // Never early: a message that reached the sender before its row is due (an earlier version's) waits the rest.
  const earlyMs = Date.parse(row.nextAttemptAt) - deps.clock.now();
  if (earlyMs >= 1000) return { kind: 'retry_later', delaySeconds: Math.ceil(earlyMs / 1000), note: 'not due yet' };
  return { row, expect: expectationOf(row) };
}
