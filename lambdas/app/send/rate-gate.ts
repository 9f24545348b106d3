import type { Deps } from '#app/deps.ts';
import { recordDeadLetter } from '#app/send/health.ts';
import type { Attempt, SendOutcome } from '#app/send/outcome.ts';
import { dueMessage, writeWait } from '#app/send/rows.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import { admits, earliestTurn, secondsUntilTurn, sendWindowAt, type SendWindow } from '#domain/send-rate.ts';
import { iso } from '#domain/time.ts';
import { METRICS } from '#config/topology.ts';

/** What the gate uses (all of it in the sender's deps). */
export type RateGateDeps = Pick<Deps, 'sendRate' | 'deliveries' | 'events' | 'subscriptions' | 'clock' | 'metrics' | 'autoPause' | 'retention' | 'sweepGraceSeconds'>;

/*
 * The rate gate (docs/design.md, "Rate limits"). Every attempt to a subscription with
 * `rateLimitPerSecond` passes it right before its POST, whatever message brought it (a first
 * attempt, a retry, a replay, a drain), so every one keeps to the limit with no code of its own;
 * a subscription without one costs nothing (no I/O). An attempt is counted in the sub-window it
 * starts in (domain/send-rate.ts): one atomic count. One over the quota takes a turn and waits
 * for it: nothing is written about the attempt, its count and the backoff are untouched.
 */

/** How long a sub-window's count is kept after it ends: long enough for a sender whose clock is a little behind. */
const WINDOW_KEPT_SECONDS = 60;

/** The longest a held-back attempt holds in the sender for the next sub-window before it takes a turn (one sub-window from 10/s up). */
const HOP_WITHIN_MS = 100;

/**
 * Undefined to go ahead and POST, or the outcome that makes the delivery wait for its turn (or
 * expire). It goes only when its sub-window admits it and it still starts there. One that finds
 * its sub-window full (or whose count came back after the sub-window ended) tries the next one,
 * holding for it when it begins within 100 ms, before it takes a turn: that keeps most
 * held-back deliveries to one wait.
 */
export async function rateGate(deps: RateGateDeps, a: Attempt): Promise<SendOutcome | undefined> {
  const limit = a.subscription.state === 'active' ? a.subscription.rateLimitPerSecond : undefined;
  if (!limit) return undefined;
  let nowMs = deps.clock.now();
  for (let tries = 0; tries < 2; tries++) {
    const window = await countIn(deps, a.subscription.id, limit, nowMs);
    if (window && deps.clock.now() < window.endsAtMs) return undefined;
    const next = sendWindowAt(limit, nowMs).endsAtMs;
    if (next - deps.clock.now() > HOP_WITHIN_MS) break;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - deps.clock.now())));
    nowMs = Math.max(deps.clock.now(), next);
  }
  return waitForTurn(deps, a, limit, nowMs);
}

/** Counts one attempt in the sub-window of `nowMs`: the window when within its quota, else undefined. */
async function countIn(deps: RateGateDeps, subscriptionId: string, limit: number, nowMs: number): Promise<SendWindow | undefined> {
  const window = sendWindowAt(limit, nowMs);
  const count = await deps.sendRate.count(`send#${subscriptionId}#${window.limit}#w${window.index}`, Math.ceil(window.endsAtMs / 1000) + WINDOW_KEPT_SECONDS);
  return admits(window, count) ? window : undefined;
}

/**
 * Takes the delivery's turn, in the queue of the slot of the second it will come back at (about
 * now plus twice what the count took: the turn's write, then the wait's), and waits until it.
 */
async function waitForTurn(deps: RateGateDeps, a: Attempt, limit: number, countedFromMs: number): Promise<SendOutcome> {
  const nowMs = deps.clock.now();
  const window = sendWindowAt(limit, nowMs + 2 * Math.max(0, nowMs - countedFromMs));
  // Kept for twice the longest wait, so a backlog's queue outlives its last turn.
  const turn = await deps.sendRate.takeTurn(`send#${a.subscription.id}#${window.limit}#t${window.slot}`, earliestTurn(window), Math.ceil(nowMs / 1000) + 2 * MAX_DELAY_SECONDS);
  return holdBack(deps, a, nowMs, Math.min(secondsUntilTurn(window, turn), MAX_DELAY_SECONDS), limit);
}

/**
 * Makes the delivery wait `delaySeconds`, never past its deadline: at or past it, the delivery
 * expires here as the sweeper would expire it. A short wait (ending within half the sweeper's
 * grace of when the delivery became due: what a burst gives) keeps its message and expectation.
 * A longer one writes the wait into the row, so the sweeper does not take a waiting delivery
 * for one whose message was lost, and comes back as a due message.
 */
async function holdBack(deps: RateGateDeps, a: Attempt, nowMs: number, delaySeconds: number, limit: number): Promise<SendOutcome> {
  const note = `rate limit ${limit}/s: waits for its turn`;
  const deadlineMs = Date.parse(a.row.giveUpAt);
  if (nowMs >= deadlineMs) return expireHeldBack(deps, a, nowMs, limit);
  const untilMs = Math.min(nowMs + delaySeconds * 1000, deadlineMs);
  const seconds = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
  if (untilMs - Date.parse(a.row.nextAttemptAt) <= (deps.sweepGraceSeconds * 1000) / 2) return { kind: 'retry_later', delaySeconds: seconds, note };
  const written = await writeWait(deps, a, untilMs, nowMs);
  if (!written) return { kind: 'done', note: `${note}; the row had moved on meanwhile` };
  return { kind: 'retry_later', delaySeconds: seconds, note, next: dueMessage(written) };
}

/** A delivery held back at or past its deadline: expired, a dead letter like the sweeper's (its body kept, its streak counted). */
async function expireHeldBack(deps: RateGateDeps, a: Attempt, nowMs: number, limit: number): Promise<SendOutcome> {
  const { row } = a;
  await deps.events.extendRetention(row.eventId, deadLetterEventTtl(nowMs, deps.retention));
  const reason = `retry deadline ${row.giveUpAt} passed while held back by the rate limit (${limit}/s) after ${row.attempts} attempts${row.lastError ? `; last error: ${row.lastError}` : ''}`;
  if (!(await deps.deliveries.write('expire', { ...row, lastError: reason, updatedAt: iso(nowMs) }, a.expect))) return { kind: 'done', note: 'the row had moved on meanwhile' };
  deps.metrics.count(METRICS.expired);
  deps.metrics.count(METRICS.deadLettered);
  await recordDeadLetter(deps, deps.autoPause ?? DEFAULT_AUTO_PAUSE_POLICY, row.subscriptionId, nowMs);
  return { kind: 'done', note: 'expired: its deadline passed while it waited for the rate limit' };
}
