import { autoPauseVerdict, type AutoPausePolicy } from '#domain/auto-pause.ts';
import { isDeadLetter, type TerminalState } from '#domain/states.ts';
import type { Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';
import { iso } from '#domain/time.ts';

/**
 * Keeps a subscription's dead-letter streak, from the terminal state an attempt left its
 * delivery in, and auto-pauses it once the streak spans the policy's period. Costs nothing for a
 * healthy endpoint: a success writes only when a streak is open, and a dead letter is one
 * conditional update (plus the pause, once). Returns the subscription when this call paused it.
 */
export async function recordHealth(
  deps: Pick<Deps, 'subscriptions'>,
  policy: AutoPausePolicy,
  subscription: Subscription,
  state: TerminalState,
  nowMs: number,
): Promise<Subscription | undefined> {
  if (!isDeadLetter(state)) {
    if (subscription.deadLetteringSince) await deps.subscriptions.clearDeadLetterStreak(subscription.id);
    return undefined;
  }
  return recordDeadLetter(deps, policy, subscription.id, nowMs);
}

/**
 * Adds one dead letter to the subscription's streak and auto-pauses it once the streak spans
 * the policy's period. The sender's dead letters and the sweeper's expiries both come here, so
 * a delivery that expires while waiting counts like one the sender gave up on.
 */
export async function recordDeadLetter(
  deps: Pick<Deps, 'subscriptions'>,
  policy: AutoPausePolicy,
  subscriptionId: string,
  nowMs: number,
): Promise<Subscription | undefined> {
  const updated = await deps.subscriptions.noteDeadLetter(subscriptionId, iso(nowMs));
  if (!updated?.deadLetteringSince || !updated.lastDeadLetterAt) return undefined;
  const verdict = autoPauseVerdict(
    updated.state,
    { since: updated.deadLetteringSince, last: updated.lastDeadLetterAt, count: updated.deadLetterStreak ?? 1 },
    policy,
  );
  if (verdict.kind !== 'pause') return undefined;
  // Only from active: a manual pause or a 410 disable that landed meanwhile keeps its own reason.
  return deps.subscriptions.setState(subscriptionId, 'paused', verdict.reason, iso(nowMs), 'active');
}
