import type { Deps } from '#app/deps.ts';
import type { Attempt, SendOutcome, Step } from '#app/send/outcome.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import { admits, earliestTurn, sendWindowAt, turnWindow, type SendWindow } from '#domain/send-rate.ts';

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

/** How often one delivery counts and takes a turn within one message's handling before it leaves through SQS. */
const ROUNDS = 3;

/**
 * Undefined to go ahead and POST, or what makes the delivery wait for its turn (or expire). It
 * goes only when its sub-window admits it and it still starts there. One that does not takes a
 * turn, which names the sub-window to come back in: within the second, it holds for it here and
 * is counted again; further on, it holds here for the part of the wait below a whole second
 * and leaves through SQS for the whole seconds, so it comes back in that sub-window, not just
 * at the phase it left at. That spreads a backlog over every sub-window, whatever phase its
 * deliveries arrived at, so it drains at the limit.
 */
export async function rateGate(deps: RateGateDeps, a: Attempt): Promise<Step | SendOutcome | undefined> {
  const limit = a.subscription.state === 'active' ? a.subscription.rateLimitPerSecond : undefined;
  if (!limit) return undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    const window = await countIn(deps, a.subscription.id, limit);
    if (window && deps.clock.now() < window.endsAtMs) return undefined;
    // Admitted, but its sub-window ended while the count was under way: counted again where it now starts.
    if (window) continue;
    const waitMs = await msUntilTurn(deps, a.subscription.id, limit);
    const wholeSeconds = Math.floor(waitMs / 1000);
    await deps.clock.sleep(waitMs - wholeSeconds * 1000);
    if (wholeSeconds > 0)
      return holdBack(a, deps.clock.now(), Math.min(wholeSeconds, MAX_DELAY_SECONDS), limit, deps.sweepGraceSeconds);
  }
  // Newcomers took its place each time it was back: it leaves for a second, as any wait does.
  return holdBack(a, deps.clock.now(), 1, limit, deps.sweepGraceSeconds);
}

/** Counts one attempt in the sub-window it starts in now: the window when within its quota, else undefined. */
async function countIn(deps: RateGateDeps, subscriptionId: string, limit: number): Promise<SendWindow | undefined> {
  const window = sendWindowAt(limit, deps.clock.now());
  const count = await deps.sendRate.count(
    `send#${subscriptionId}#${limit}#w${window.index}`,
    Math.ceil(window.endsAtMs / 1000) + WINDOW_KEPT_SECONDS,
  );
  return admits(window, count) ? window : undefined;
}

/** Takes the subscription's next turn, no earlier than the next sub-window's first place: how long until its sub-window begins. */
async function msUntilTurn(deps: RateGateDeps, subscriptionId: string, limit: number): Promise<number> {
  const nowMs = deps.clock.now();
  // Kept for twice the longest wait, so a backlog's queue outlives its last turn.
  const turn = await deps.sendRate.takeTurn(
    `send#${subscriptionId}#${limit}#t`,
    earliestTurn(sendWindowAt(limit, nowMs)),
    Math.ceil(nowMs / 1000) + 2 * MAX_DELAY_SECONDS,
  );
  return Math.max(0, turnWindow(limit, turn).startsAtMs - deps.clock.now());
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
