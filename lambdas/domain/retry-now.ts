import { STATE, isTerminal, type TerminalState } from './states.ts';
import { endedReason } from './subscription-states.ts';
import { iso } from './time.ts';
import type { Delivery, InlineAttempt, Subscription } from './types.ts';

/**
 * A next attempt due sooner than this is taken to be on its way already, and Retry now is
 * refused: its message is being received or attempted, and a second message would race it. It
 * is longer than the sender's subscription cache (5 s on AWS), so the retry message a Retry now
 * overtakes, arriving at its old due time, is read against a subscription that holds the mark
 * (`madeBeforeRetryNow`).
 */
export const RETRY_NOW_LEAD_SECONDS = 10;

/**
 * Whether a delivery may be retried now, and if not why: each refusal is something the caller
 * can act on (a finished delivery is resent instead; a paused subscription is resumed).
 */
export type RetryNowVerdict =
  | { readonly kind: 'retry' }
  /** Delivered, failed or expired: not waiting for anything; a replay (Resend) sends it again. */
  | { readonly kind: 'finished'; readonly state: TerminalState }
  /** An earlier version's claim (`in_flight`): the sweeper hands it back once its lease runs out. */
  | { readonly kind: 'claimed' }
  /** Its subscription is disabled, deleted or gone: its next attempt dead-letters it, with this reason. */
  | { readonly kind: 'ended'; readonly reason: string }
  /** Its subscription is paused: a resume makes its waiting deliveries due at once. */
  | { readonly kind: 'paused' }
  /** No attempt made yet (not written, or waiting in a row written before any attempt): its first attempt is on its way. */
  | { readonly kind: 'not_attempted' }
  /** Due now or within RETRY_NOW_LEAD_SECONDS: its attempt is on its way or being made. */
  | { readonly kind: 'due'; readonly at: string };

/** What Retry now makes of a delivery as read (the row, or the pending row a delivery not yet written will be). */
export function retryNowVerdict(
  row: Pick<Delivery, 'state' | 'attemptSeq' | 'nextAttemptAt'>,
  subscription: Subscription | undefined,
  nowMs: number,
): RetryNowVerdict {
  if (isTerminal(row.state)) return { kind: 'finished', state: row.state };
  if (row.state !== STATE.pending) return { kind: 'claimed' };
  const ended = endedReason(subscription);
  if (ended !== undefined) return { kind: 'ended', reason: ended };
  if (subscription?.state === 'paused') return { kind: 'paused' };
  if (row.attemptSeq === 0) return { kind: 'not_attempted' };
  if (Date.parse(row.nextAttemptAt) - nowMs < RETRY_NOW_LEAD_SECONDS * 1000)
    return { kind: 'due', at: row.nextAttemptAt };
  return { kind: 'retry' };
}

/**
 * The row as Retry now leaves it: due at once, its backoff and deadline started afresh as a
 * replay starts them (attempts 0, a deadline `deadlineSeconds` from now). Its attempt number
 * stays: the attempt this hurries is still the next one, so whichever message makes it first
 * records it and any other finds the row moved on.
 */
export function retriedNow(row: Delivery, nowMs: number, deadlineSeconds: number): Delivery {
  const now = iso(nowMs);
  return { ...row, attempts: 0, nextAttemptAt: now, giveUpAt: iso(nowMs + deadlineSeconds * 1000), updatedAt: now };
}

/**
 * Whether a retry message may carry a row a Retry now has moved since: it was made (by the
 * attempt it carries) no later than its subscription's latest Retry now. Such a message reads
 * its row before any POST (app/send/attempt.ts), and finds it moved on; a retry message made
 * after the mark goes without a read, as every retry does.
 */
export function madeBeforeRetryNow(
  subscription: Pick<Subscription, 'retriedNowAt'> | undefined,
  previousAttempt: Pick<InlineAttempt, 'startedAt'> | undefined,
): boolean {
  const mark = subscription?.retriedNowAt;
  if (mark === undefined) return false;
  return previousAttempt === undefined || Date.parse(previousAttempt.startedAt) <= Date.parse(mark);
}
