import type { Deps } from '#app/deps.ts';
import type { Attempt, SendOutcome, Step } from '#app/send/outcome.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import { wholeSecondsToward } from '#domain/backoff.ts';
import { admits, countLead, earliestTurn, sendWindowAt, turnWindow, type SendWindow } from '#domain/send-rate.ts';

/** What the gate uses (all of it in the sender's deps): it counts and takes turns, and writes no row. */
type RateGateDeps = Pick<Deps, 'sendRate' | 'clock' | 'sweepGraceSeconds'>;

/*
 * The rate gate (docs/design.md, "Rate limits"). Every attempt to a subscription with
 * `rateLimitPerSecond` passes it right before its POST, whatever message brought it, so every one
 * keeps to the limit with no code of its own; one without costs nothing. An attempt is counted in
 * the sub-window it starts in (domain/send-rate.ts): one atomic count. One over the quota takes a
 * turn and waits for it, its count and backoff untouched; a long wait is all that is recorded.
 */

/** How long a sub-window's count is kept after it ends: long enough for a sender whose clock is a little behind. */
const WINDOW_KEPT_SECONDS = 60;

/** How often one delivery counts and takes a turn within one message's handling before it leaves through SQS. */
const ROUNDS = 3;

/**
 * Undefined to go ahead and POST, or what makes the delivery wait for its turn (or expire). It
 * goes only if its sub-window admits it and it still starts there; if not, it takes a turn, a
 * sub-window to come back in: within the second, it holds for it here; further on, it leaves at
 * once for SQS's whole seconds, back up to a second early with its turn's start (`turn`), so
 * it is counted in that sub-window, not just at the phase it left at. So a backlog drains at L.
 */
export async function rateGate(deps: RateGateDeps, a: Attempt, turn?: string): Promise<Step | SendOutcome | undefined> {
  const limit = a.subscription.state === 'active' ? a.subscription.rateLimitPerSecond : undefined;
  if (!limit) return undefined;
  let aimMs = turn === undefined ? 0 : Date.parse(turn);
  for (let round = 1; round <= ROUNDS; round++) {
    const counted = await countIn(deps, a.subscription.id, limit, aimMs);
    if (counted.admitted) {
      // Counted ahead (a slow count, or back early for its turn), it holds for its sub-window; if
      // that ended while the count was under way, it is counted again where it now starts.
      await deps.clock.sleep(counted.window.startsAtMs - deps.clock.now());
      if (deps.clock.now() < counted.window.endsAtMs) return undefined;
      continue;
    }
    aimMs = await turnAfter(deps, a.subscription.id, counted.window);
    const waitMs = Math.min(aimMs - deps.clock.now(), MAX_DELAY_SECONDS * 1000);
    if (waitMs >= 1000) return holdBack(a, deps.clock.now(), waitMs, limit, deps.sweepGraceSeconds);
  }
  // Newcomers took its place each time it was back: it leaves for a second, as any wait does.
  return holdBack(a, deps.clock.now(), 1000, limit, deps.sweepGraceSeconds);
}

/** Each sender's count lead (domain/send-rate.ts, `countLead`), by its counters: its counts all take about as long. */
const leads = new WeakMap<object, number>();

/** Counts one attempt in the sub-window it will start in: its turn's (`aimMs`), or at least a count's lead from now. */
async function countIn(deps: RateGateDeps, subscriptionId: string, limit: number, aimMs: number) {
  const leadMs = leads.get(deps.sendRate) ?? 0;
  const window = sendWindowAt(limit, Math.max(deps.clock.now() + leadMs, aimMs));
  await deps.clock.sleep(window.startsAtMs - leadMs - deps.clock.now());
  const sentAtMs = deps.clock.now();
  const key = `send#${subscriptionId}#${limit}#w${window.index}`;
  const count = await deps.sendRate.count(key, Math.ceil(window.endsAtMs / 1000) + WINDOW_KEPT_SECONDS);
  leads.set(deps.sendRate, countLead(leadMs, deps.clock.now() - sentAtMs));
  return { admitted: admits(window, count), window };
}

/** Takes the subscription's next turn, no earlier than the first place after `refused`: when its sub-window begins (epoch ms). */
async function turnAfter(deps: RateGateDeps, subscriptionId: string, refused: SendWindow): Promise<number> {
  // Kept for twice the longest wait, so a backlog's queue outlives its last turn.
  const expiresAt = Math.ceil(deps.clock.now() / 1000) + 2 * MAX_DELAY_SECONDS;
  const key = `send#${subscriptionId}#${refused.limit}#t`;
  const turn = await deps.sendRate.takeTurn(key, earliestTurn(refused), expiresAt);
  return turnWindow(refused.limit, turn).startsAtMs;
}

/**
 * Makes the delivery wait `waitMs` (its turn), never past its deadline: at or past it, the
 * delivery expires (record.ts, as the sweeper expires one). A short wait (ending within half the
 * sweeper's grace of when the delivery became due: what a burst gives) writes nothing. A longer
 * one is written into the row, so the sweeper does not take a waiting delivery for one whose
 * message was lost. Either way its message carries the turn's start (`until`).
 */
function holdBack(a: Attempt, nowMs: number, waitMs: number, limit: number, graceSeconds: number): Step | SendOutcome {
  const note = `rate limit ${limit}/s: waits for its turn`;
  const { row } = a;
  const deadlineMs = Date.parse(row.giveUpAt);
  if (nowMs >= deadlineMs) {
    const reason = `retry deadline ${row.giveUpAt} passed while held back by the rate limit (${limit}/s) after ${row.attempts} attempts${row.lastError ? `; last error: ${row.lastError}` : ''}`;
    return { kind: 'expire', at: a, reason, note: 'expired: its deadline passed while it waited for the rate limit' };
  }
  const untilMs = Math.min(nowMs + waitMs, deadlineMs);
  if (untilMs - Date.parse(row.nextAttemptAt) > (graceSeconds * 1000) / 2)
    return { kind: 'wait', at: a, untilMs, note };
  return { kind: 'retry_later', delaySeconds: wholeSecondsToward(untilMs, nowMs), until: untilMs, note };
}
