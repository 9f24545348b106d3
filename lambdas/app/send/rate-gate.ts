import type { Deps } from '#app/deps.ts';
import { recordDeadLetter } from '#app/send/health.ts';
import type { DeliveryMessageBody, SendOutcome } from '#app/send/send.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import { admits, earliestTurn, secondsUntilTurn, sendWindowAt, type SendWindow } from '#domain/send-rate.ts';
import { allows, isTerminal } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import { METRICS } from '#config/topology.ts';

/** What the gate uses (all of it in SendDeps). */
export type RateGateDeps = Pick<Deps, 'sendRate' | 'deliveries' | 'events' | 'subscriptions' | 'clock' | 'metrics' | 'autoPause' | 'retention' | 'sweepGraceSeconds'>;

/** How long a sub-window's count is kept after it ends: long enough for a sender whose clock is a little behind. */
const WINDOW_KEPT_SECONDS = 60;

/**
 * The rate gate: every attempt to a subscription with `rateLimitPerSecond` passes it before
 * anything is claimed or sent, on the happy path and the claimed path alike (so resume drains,
 * replays and retries keep to the limit too). Undefined lets the attempt go ahead: no limit (no
 * I/O at all), or room in the current sub-window (one atomic count). Otherwise the delivery waits
 * for its turn through the message's visibility (`retry_later`): nothing is claimed, no attempt
 * is recorded, attempts and the backoff are untouched. docs/design.md, "Rate limits".
 */
export async function rateGate(deps: RateGateDeps, subscription: Subscription | undefined, message: DeliveryMessageBody): Promise<SendOutcome | undefined> {
  const limit = subscription?.rateLimitPerSecond;
  // Only an active subscription's attempt is sent; a disabled or deleted one's is failed without a POST.
  if (!subscription || !limit || subscription.state !== 'active') return undefined;
  const nowMs = deps.clock.now();
  const window = sendWindowAt(limit, nowMs);
  const count = await deps.sendRate.count(windowKey(subscription.id, window), Math.ceil(window.endsAtMs / 1000) + WINDOW_KEPT_SECONDS);
  if (admits(window, count)) { (globalThis as any).__gateLog?.push({ id: message.deliveryId, at: nowMs, fresh: !!message.fresh }); return undefined; }
  // Kept for the longest wait, so a backlog's queue outlives its last turn.
  const turn = await deps.sendRate.takeTurn(turnKey(subscription.id, window), earliestTurn(window), Math.ceil(nowMs / 1000) + 2 * MAX_DELAY_SECONDS);
  return holdBack(deps, message, nowMs, Math.min(secondsUntilTurn(window, turn), MAX_DELAY_SECONDS), limit);
}

/** One count per subscription, limit and sub-window; a changed limit starts its own counts. */
function windowKey(subscriptionId: string, window: SendWindow): string {
  return `send#${subscriptionId}#${window.limit}#w${window.index}`;
}

/** One turn queue per subscription, limit and slot (the sub-windows of one phase of the second). */
function turnKey(subscriptionId: string, window: SendWindow): string {
  return `send#${subscriptionId}#${window.limit}#t${window.slot}`;
}

/**
 * Makes the delivery wait `delaySeconds`. A short wait well inside its deadline (what a burst
 * gives) costs nothing more. Otherwise the row is read: past its deadline, the delivery expires
 * here as the sweeper would expire it (the wait never extends `giveUpAt`); a wait that would end
 * past the deadline ends at it instead; and a long wait moves the row's `nextAttemptAt` to its
 * end, so the sweeper does not take the waiting delivery for one whose message was lost.
 */
async function holdBack(deps: RateGateDeps, message: DeliveryMessageBody, nowMs: number, delaySeconds: number, limit: number): Promise<SendOutcome> {
  const note = `rate limit ${limit}/s: waits ${delaySeconds} s for its turn`;
  const wakeMs = nowMs + delaySeconds * 1000;
  const giveUpAtMs = message.giveUpAt ? Date.parse(message.giveUpAt) : undefined;
  // A message publish sent carries the delivery's creation (when its row became due at the earliest) and deadline; others make the row be read.
  const dueSinceMs = message.createdAt ? Date.parse(message.createdAt) : undefined;
  const reviewAfterMs = (deps.sweepGraceSeconds * 1000) / 2;
  if (giveUpAtMs !== undefined && wakeMs < giveUpAtMs && dueSinceMs !== undefined && wakeMs - dueSinceMs <= reviewAfterMs) {
    return { kind: 'retry_later', delaySeconds, note };
  }

  const row = await deps.deliveries.get(message.deliveryId);
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
