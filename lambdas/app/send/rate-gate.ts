import type { Deps } from '#app/deps.ts';
import type { Attempt, SendOutcome, Step } from '#app/send/outcome.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import { admits, earliestTurn, secondsUntilTurn, sendWindowAt, type SendWindow } from '#domain/send-rate.ts';

/** What the gate uses (all of it in the sender's deps): it counts and takes turns, and writes no row. */
type RateGateDeps = Pick<Deps, 'sendRate' | 'clock' | 'sweepGraceSeconds'>;

/*
 * The rate gate (docs/design.md, "Rate limits"). Every attempt to a subscription with
 * `rateLimitPerSecond` passes it right before its POST, whatever message brought it (a first
 * attempt, a retry, a replay, a drain), so every one keeps to the limit with no code of its own;
 * a subscription without one costs nothing (no I/O). An attempt is counted in the sub-window it
 * starts in (domain/send-rate.ts): one atomic count. One over the quota takes a turn and waits
 * for it: its count and the backoff are untouched, and a long wait is the only thing recorded.
 */

/** How long a sub-window's count is kept after it ends: long enough for a sender whose clock is a little behind. */
const WINDOW_KEPT_SECONDS = 60;

/** The longest a held-back attempt holds in the sender for the next sub-window before it takes a turn (one sub-window from 10/s up). */
const HOP_WITHIN_MS = 100;

/**
 * Undefined to go ahead and POST, or what makes the delivery wait for its turn (or expire). It
 * goes only when its sub-window admits it and it still starts there. One that finds its
 * sub-window full (or whose count came back after the sub-window ended) tries the next one,
 * holding for it when it begins within 100 ms, before it takes a turn: that keeps most
 * held-back deliveries to one wait.
 */
export async function rateGate(deps: RateGateDeps, a: Attempt): Promise<Step | SendOutcome | undefined> {
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
async function countIn(
  deps: RateGateDeps,
  subscriptionId: string,
  limit: number,
  nowMs: number,
): Promise<SendWindow | undefined> {
  const window = sendWindowAt(limit, nowMs);
  const count = await deps.sendRate.count(
    `send#${subscriptionId}#${window.limit}#w${window.index}`,
    Math.ceil(window.endsAtMs / 1000) + WINDOW_KEPT_SECONDS,
  );
  return admits(window, count) ? window : undefined;
}

/**
 * Takes the delivery's turn, in the queue of the slot of the second it will come back at (about
 * now plus twice what the count took: the turn's write, then the wait's), and waits until it.
 */
async function waitForTurn(
  deps: RateGateDeps,
  a: Attempt,
  limit: number,
  countedFromMs: number,
): Promise<Step | SendOutcome> {
  const nowMs = deps.clock.now();
  const window = sendWindowAt(limit, nowMs + 2 * Math.max(0, nowMs - countedFromMs));
  // Kept for twice the longest wait, so a backlog's queue outlives its last turn.
  const turn = await deps.sendRate.takeTurn(
    `send#${a.subscription.id}#${window.limit}#t${window.slot}`,
    earliestTurn(window),
    Math.ceil(nowMs / 1000) + 2 * MAX_DELAY_SECONDS,
  );
  return holdBack(a, nowMs, Math.min(secondsUntilTurn(window, turn), MAX_DELAY_SECONDS), limit, deps.sweepGraceSeconds);
}

/**
 * Makes the delivery wait `delaySeconds`, never past its deadline: at or past it, the delivery
 * expires (record.ts, as the sweeper expires one). A short wait (ending within half the
 * sweeper's grace of when the delivery became due: what a burst gives) keeps its message and
 * expectation, and writes nothing. A longer one is written into the row, so the sweeper does not
 * take a waiting delivery for one whose message was lost.
 */
function holdBack(
  a: Attempt,
  nowMs: number,
  delaySeconds: number,
  limit: number,
  graceSeconds: number,
): Step | SendOutcome {
  const note = `rate limit ${limit}/s: waits for its turn`;
  const { row } = a;
  const deadlineMs = Date.parse(row.giveUpAt);
  if (nowMs >= deadlineMs) {
    const reason = `retry deadline ${row.giveUpAt} passed while held back by the rate limit (${limit}/s) after ${row.attempts} attempts${row.lastError ? `; last error: ${row.lastError}` : ''}`;
    return { kind: 'expire', at: a, reason, note: 'expired: its deadline passed while it waited for the rate limit' };
  }
  const untilMs = Math.min(nowMs + delaySeconds * 1000, deadlineMs);
  if (untilMs - Date.parse(row.nextAttemptAt) > (graceSeconds * 1000) / 2)
    return { kind: 'wait', at: a, untilMs, note };
  return { kind: 'retry_later', delaySeconds: Math.max(1, Math.ceil((untilMs - nowMs) / 1000)), note };
}
