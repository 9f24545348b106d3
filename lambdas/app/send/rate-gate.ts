import type { Deps } from '#app/deps.ts';
import { recordDeadLetter } from '#app/send/health.ts';
import { rowOrFirstRow } from '#app/send/first-row.ts';
import type { DeliveryMessageBody, SendOutcome } from '#app/send/send.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import { admits, earliestTurn, secondsUntilTurn, sendWindowAt, subWindowsPerSecond, type SendWindow } from '#domain/send-rate.ts';
import { allows, isTerminal } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import { METRICS } from '#config/topology.ts';

/** What the gate uses (all of it in SendDeps). */
export type RateGateDeps = Pick<Deps, 'sendRate' | 'deliveries' | 'events' | 'subscriptions' | 'clock' | 'metrics' | 'autoPause' | 'retention' | 'sweepGraceSeconds' | 'attemptTimeoutMs'>;

/*
 * The rate gate (docs/design.md, "Rate limits"). Every attempt to a subscription with
 * `rateLimitPerSecond` passes it, on the happy path and the claimed path alike, so retries,
 * replays and resume drains keep to the limit too; a subscription without one costs nothing (no
 * I/O). An attempt is counted in the sub-window it starts in (domain/send-rate.ts): one atomic
 * count. One over the quota takes a turn and waits for it through its message's visibility
 * (`retry_later`): nothing is claimed or recorded, attempts and the backoff are untouched.
 *
 * Where: the happy path's attempt is counted right before its POST (nothing is written until its
 * outcome, so it can still be told to wait). A claimed attempt must be counted before its claim,
 * since a claim counts an attempt; when the claim and preparation then carry it past the end of
 * the sub-window that counted it, it is counted again where it starts, and while that sub-window
 * is full it holds (in the sender) for the next one. So what the limit bounds is when attempts
 * start, however long a claim takes; the receiver sees that plus the network's jitter.
 */

/** Claimed attempts' admissions, for the check before their POST (a message is one attempt at a time). */
const admittedBeforeClaim = new WeakMap<DeliveryMessageBody, SendWindow>();

/** The longest a held-back delivery holds in the sender for the next sub-window before taking a turn (one sub-window from 10/s up). */
const HOP_WITHIN_MS = 100;

/** How long a sub-window's count is kept after it ends: long enough for a sender whose clock is a little behind. */
const WINDOW_KEPT_SECONDS = 60;

/** The limit that applies: only an active subscription's attempts are sent (a disabled or deleted one's are failed without a POST). */
function limitOf(subscription: Subscription | undefined): number | undefined {
  return subscription?.state === 'active' ? subscription.rateLimitPerSecond : undefined;
}

/**
 * Before a claim: undefined to go ahead and claim, or the outcome that makes the delivery wait for
 * its turn (or expire). This is mostly a delivery back at its turn, and one that finds its
 * sub-window full (its return was a little late, or others came at the same phase) tries the next
 * sub-window once, holding for it when it begins within 100 ms, before it takes another turn:
 * that keeps most held-back deliveries to one wait.
 */
export async function rateGateBeforeClaim(deps: RateGateDeps, subscription: Subscription | undefined, message: DeliveryMessageBody): Promise<SendOutcome | undefined> {
  const limit = limitOf(subscription);
  if (!subscription || !limit) return undefined;
  let nowMs = deps.clock.now();
  let window = await countIn(deps, subscription.id, limit, nowMs);
  if (!window && sendWindowAt(limit, nowMs).endsAtMs - deps.clock.now() <= HOP_WITHIN_MS) {
    nowMs = await untilNextWindow(deps, limit, nowMs);
    window = await countIn(deps, subscription.id, limit, nowMs);
  }
  if (window) {
    admittedBeforeClaim.set(message, window);
    return undefined;
  }
  return waitForTurn(deps, subscription, limit, message, nowMs);
}

/**
 * Right before the POST. The happy path's attempt is counted here, and told to wait when over
 * (or when the count came back only after its sub-window had ended, twice). A claimed one goes
 * if it still starts in the sub-window that counted it; otherwise it is counted again where it
 * starts and, while that sub-window is full (or its count came back after it ended), holds for
 * the next one and is counted there, for up to a second's worth of sub-windows. (Counted once
 * more and sent regardless, as before, a claimed attempt could start in a full sub-window: 23
 * in a second at 20/s, against the bound of 22, in a CI run of test/integration/rate-limit.test.ts.)
 */
export async function rateGateBeforePost(deps: RateGateDeps, subscription: Subscription, message: DeliveryMessageBody, unclaimed: boolean): Promise<SendOutcome | undefined> {
  const limit = limitOf(subscription);
  if (!limit) return undefined;
  if (unclaimed) {
    for (let tries = 0; tries < 2; tries++) {
      const nowMs = deps.clock.now();
      const window = await countIn(deps, subscription.id, limit, nowMs);
      if (!window) return waitForTurn(deps, subscription, limit, message, nowMs);
      if (deps.clock.now() < window.endsAtMs) return undefined;
    }
    return waitForTurn(deps, subscription, limit, message, deps.clock.now());
  }
  const admitted = admittedBeforeClaim.get(message);
  admittedBeforeClaim.delete(message);
  if (admitted && deps.clock.now() < admitted.endsAtMs) return undefined;
  try {
    // Held in the sender, its claim kept, until a sub-window admits it and it still starts there: at most a second's
    // worth of them (a second always has L places; the lease is far longer), after which it goes regardless.
    let nowMs = deps.clock.now();
    for (let tries = 0; tries < subWindowsPerSecond(limit); tries++) {
      const window = await countIn(deps, subscription.id, limit, nowMs);
      if (window && deps.clock.now() < window.endsAtMs) return undefined;
      nowMs = await untilNextWindow(deps, limit, nowMs);
    }
  } catch {
    // It was admitted before its claim; a count that fails now must not cost it the claim (and an attempt number).
  }
  return undefined;
}

/**
 * Holds until the sub-window after `nowMs`'s begins and answers that time: a holder counts at a
 * sub-window's start, before most of its arrivals.
 */
async function untilNextWindow(deps: Pick<RateGateDeps, 'clock'>, limit: number, nowMs: number): Promise<number> {
  const next = sendWindowAt(limit, nowMs).endsAtMs;
  await pause(next - deps.clock.now());
  return Math.max(deps.clock.now(), next);
}

/** Counts one attempt in the sub-window of `nowMs`: the window when within its quota, else undefined. */
async function countIn(deps: RateGateDeps, subscriptionId: string, limit: number, nowMs: number): Promise<SendWindow | undefined> {
  const window = sendWindowAt(limit, nowMs);
  const count = await deps.sendRate.count(windowKey(subscriptionId, window), Math.ceil(window.endsAtMs / 1000) + WINDOW_KEPT_SECONDS);
  return admits(window, count) ? window : undefined;
}

/** One count per subscription, limit and sub-window; a changed limit starts its own counts. */
function windowKey(subscriptionId: string, window: SendWindow): string {
  return `send#${subscriptionId}#${window.limit}#w${window.index}`;
}

/** One turn queue per subscription, limit and slot (the sub-windows of one phase of the second). */
function turnKey(subscriptionId: string, window: SendWindow): string {
  return `send#${subscriptionId}#${window.limit}#t${window.slot}`;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Takes the delivery's turn and waits until it. It will come back at the phase of the second its
 * message is set invisible at, plus the poll's latency: about now plus twice what the count took
 * (the turn's write, the visibility call). Its turn is taken in the queue of that phase's slot.
 */
async function waitForTurn(deps: RateGateDeps, subscription: Subscription, limit: number, message: DeliveryMessageBody, countedFromMs: number): Promise<SendOutcome> {
  const subscriptionId = subscription.id;
  const nowMs = deps.clock.now();
  const window = sendWindowAt(limit, nowMs + 2 * Math.max(0, nowMs - countedFromMs));
  // Kept for twice the longest wait, so a backlog's queue outlives its last turn.
  const turn = await deps.sendRate.takeTurn(turnKey(subscriptionId, window), earliestTurn(window), Math.ceil(nowMs / 1000) + 2 * MAX_DELAY_SECONDS);
  return holdBack(deps, subscription, message, nowMs, Math.min(secondsUntilTurn(window, turn), MAX_DELAY_SECONDS), limit);
}

/**
 * Makes the delivery wait `delaySeconds`. A short wait well inside its deadline (what a burst
 * gives) costs nothing more. Otherwise the row is read: past its deadline, the delivery expires
 * here as the sweeper would expire it (the wait never extends `giveUpAt`); a wait that would end
 * past the deadline ends at it instead; and a long wait moves the row's `nextAttemptAt` to its
 * end, so the sweeper does not take the waiting delivery for one whose message was lost.
 */
async function holdBack(deps: RateGateDeps, subscription: Subscription, message: DeliveryMessageBody, nowMs: number, delaySeconds: number, limit: number): Promise<SendOutcome> {
  const note = `rate limit ${limit}/s: waits ${delaySeconds} s for its turn`;
  const wakeMs = nowMs + delaySeconds * 1000;
  const giveUpAtMs = message.giveUpAt ? Date.parse(message.giveUpAt) : undefined;
  // A message publish sent carries the delivery's creation (when its row became due at the earliest) and deadline; others make the row be read.
  const dueSinceMs = message.createdAt ? Date.parse(message.createdAt) : undefined;
  const reviewAfterMs = (deps.sweepGraceSeconds * 1000) / 2;
  if (giveUpAtMs !== undefined && wakeMs < giveUpAtMs && dueSinceMs !== undefined && wakeMs - dueSinceMs <= reviewAfterMs) {
    return { kind: 'retry_later', delaySeconds, note };
  }

  // A first attempt told to wait before its one write has no row yet: it waits in the row it would have had.
  const row = await rowOrFirstRow(deps, message, subscription);
  if (!row) return { kind: 'done', note: 'unknown delivery' };
  if (isTerminal(row.state)) return { kind: 'done', note: `already ${row.state}` };
  // In flight under another worker's claim: that worker records it; this copy comes back after the wait.
  if (!allows('reschedule', row.state)) return { kind: 'retry_later', delaySeconds, note };
  const deadlineMs = Date.parse(row.giveUpAt);
  if (nowMs >= deadlineMs) {
    // As the sweeper does: the body outlives the dead letter, whatever happens between the two writes.
    await deps.events.extendRetention(row.eventId, deadLetterEventTtl(nowMs, deps.retention));
    const reason = `retry deadline ${row.giveUpAt} passed while held back by the rate limit (${limit}/s) after ${row.attempts} attempts${row.lastError ? `; last error: ${row.lastError}` : ''}`;
    if (!(await deps.deliveries.expire(row, reason, iso(nowMs)))) return { kind: 'retry_later', delaySeconds: 1, note: 'moved meanwhile: looked at again' };
    deps.metrics.count(METRICS.expired);
    deps.metrics.count(METRICS.deadLettered);
    await recordDeadLetter(deps, deps.autoPause ?? DEFAULT_AUTO_PAUSE_POLICY, row.subscriptionId, nowMs);
    return { kind: 'done', note: 'expired: its deadline passed while it waited for the rate limit' };
  }
  const untilMs = Math.min(wakeMs, deadlineMs);
  if (untilMs - Date.parse(row.nextAttemptAt) > reviewAfterMs) await deps.deliveries.reschedule(row.id, row.nextAttemptAt, iso(untilMs), iso(nowMs));
  const seconds = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
  return { kind: 'retry_later', delaySeconds: seconds, note: seconds === delaySeconds ? note : `${note}, cut to its deadline: ${seconds} s` };
}
