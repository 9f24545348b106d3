import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { actionFor, attemptMade, decide, describe, failedOutcome, rowAfter, type Outcome } from '#domain/classify.ts';
import { placeReplaced } from '#domain/attempt-log.ts';
import { attemptTtlFor, deadLetterEventTtl } from '#domain/retention.ts';
import { isDeadLetter, isTerminal, STATE, targetOf } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import { expectationOf, type Delivery, type InlineAttempt } from '#domain/types.ts';
import { OUTCOME_METRICS } from '#config/topology.ts';
import type { Deps } from '#app/deps.ts';
import { dueMessage, retryMessage } from '#app/deliveries/delivery-messages.ts';
import { expire } from '#app/deliveries/expire.ts';
import type { Attempt, AttemptReport, Expected, SendOutcome, Step } from '#app/send/outcome.ts';
import { recordHealth } from '#app/subscriptions/dead-letter-streak.ts';
import { routedChange } from '#app/subscriptions/routing.ts';
import { patiently } from '#app/patience.ts';
import { wholeSecondsToward } from '#domain/backoff.ts';

export type RecordDeps = Pick<
  Deps,
  | 'deliveries'
  | 'attempts'
  | 'events'
  | 'subscriptions'
  | 'routes'
  | 'clock'
  | 'metrics'
  | 'defaultRetryPolicy'
  | 'autoPause'
  | 'retention'
>;
type Attempted = Extract<Step, { kind: 'attempted' }>;

/**
 * The one write of a delivery message, whatever it comes to (outcome.ts `Step`): an attempt's
 * outcome, a dead letter without a POST, a wait, an expiry. Each is conditional on the row being
 * as the message expected; one that finds it moved on changes nothing.
 */
export async function record(deps: RecordDeps, step: Step): Promise<SendOutcome> {
  const nowMs = deps.clock.now();
  if (step.kind === 'attempted') return recordAttempt(deps, step, nowMs);
  if (step.kind === 'wait') return recordWait(deps, step, nowMs);
  const { row, expect } = step.at;
  const dead = failedOutcome(step.reason);
  const written =
    step.kind === 'expire'
      ? await expire(deps, step.at, step.reason, nowMs)
      : await writeRow(deps, rowAfter(row, dead, nowMs), dead, expect, nowMs);
  const note = step.kind === 'expire' ? step.note : step.reason;
  return { kind: 'done', note: written ? note : `${note}; the row had moved on meanwhile` };
}

/**
 * Records an attempt: the row as the attempt leaves it, its record inline. The record it
 * replaces stays on the row while that fits in a write unit (domain/attempt-log.ts
 * `placeReplaced`), or goes to the attempts table first (a put of its own number, the same bytes
 * every time, so no number is ever taken twice). A write that finds the row moved on (another
 * copy of the delivery got there first) changes nothing, and this POST was an at-least-once
 * duplicate.
 */
async function recordAttempt(
  deps: RecordDeps,
  { attempt: a, result, startedAtMs }: Attempted,
  nowMs: number,
): Promise<SendOutcome> {
  const { row, subscription } = a;
  const policy = subscription.retryPolicy ?? deps.defaultRetryPolicy;
  const decision = { result, attempts: row.attempts + 1, policy, nowMs, giveUpAtMs: Date.parse(row.giveUpAt) };
  const outcome = decide({ ...decision, random: deps.clock.random() });
  const made = attemptMade(row, startedAtMs, result);
  const next = rowAfter(row, outcome, nowMs, { attempt: made, url: subscription.url });
  const placed = a.expect.row === 'as' ? placeReplaced(row, next) : { row: next };
  // The POST is made: a refused write now would have the endpoint sent it again, so they are tried patiently.
  if (placed.logged) {
    const logged = { deliveryId: row.id, ...placed.logged };
    const expiresAt = attemptTtlFor(Date.parse(row.giveUpAt), deps.retention);
    await patiently(deps.clock, () => deps.attempts.put(logged, expiresAt));
  }
  deps.metrics.latency(result.durationMs);
  const written = await patiently(deps.clock, () => writeRow(deps, placed.row, outcome, a.expect, nowMs));
  const action = actionFor(outcome);
  const state = targetOf(action);
  const retryIn = outcome.kind === 'retry' ? { retryInSeconds: outcome.delaySeconds } : {};
  const attempt = attemptReport(a, made, written ? { outcome: action, state, ...retryIn } : { outcome: 'lost' });
  if (!written) {
    const note = 'another copy of this delivery wrote its row first: this POST was a duplicate';
    return { kind: 'done', note, attempt };
  }
  await subscriptionFollows(deps, a, outcome, nowMs);
  if (outcome.kind !== 'retry') return { kind: 'done', note: outcome.kind, outcome, attempt };
  const { delaySeconds } = outcome;
  return { kind: 'retry_later', delaySeconds, note: describe(result), attempt, next: retryMessage(written, a) };
}

/** What a recorded outcome does to its subscription: a 410 Gone disables it, a dead letter or a delivery counts in its streak. */
async function subscriptionFollows(deps: RecordDeps, { row, subscription }: Attempt, outcome: Outcome, nowMs: number) {
  const state = targetOf(actionFor(outcome));
  if (outcome.kind === 'dead' && outcome.disableSubscription) {
    // Disabled is out of fan-out: the routing index follows the row (app/subscriptions/routing.ts).
    const why = `endpoint answered 410 Gone for delivery ${row.id}`;
    await routedChange(deps, subscription.id, () =>
      deps.subscriptions.setState(subscription.id, 'disabled', why, iso(nowMs)),
    );
  } else if (isTerminal(state)) {
    await recordHealth(deps, deps.autoPause ?? DEFAULT_AUTO_PAUSE_POLICY, subscription, state, nowMs);
  }
}

/**
 * Makes a delivery wait in its row until the step's end (a fresh one's first write makes the row
 * it waits in), and has it come back as a due message then. A paused subscription's is finished
 * with instead (resume re-enqueues its backlog), but its state is read again once written: a
 * resume whose drain read the backlog before this write could not see the delivery, so one
 * resumed meanwhile is made due now rather than at the recheck.
 */
async function recordWait(
  deps: RecordDeps,
  step: Extract<Step, { kind: 'wait' }>,
  nowMs: number,
): Promise<SendOutcome> {
  const moved: SendOutcome = { kind: 'done', note: `${step.note}; the row had moved on meanwhile` };
  const updatedAt = iso(nowMs);
  const waiting: Delivery = { ...step.at.row, state: STATE.pending, nextAttemptAt: iso(step.untilMs), updatedAt };
  if (!(await deps.deliveries.write('reschedule', waiting, step.at.expect))) return moved;
  if (!step.paused) {
    const delaySeconds = wholeSecondsToward(step.untilMs, nowMs);
    return { kind: 'retry_later', delaySeconds, until: step.untilMs, note: step.note, next: dueMessage(waiting) };
  }
  if ((await deps.subscriptions.get(waiting.subscriptionId))?.state !== 'active')
    return { kind: 'done', note: step.note };
  const dueNow: Delivery = { ...waiting, nextAttemptAt: updatedAt };
  if (!(await deps.deliveries.write('reschedule', dueNow, expectationOf(waiting)))) return moved;
  const note = 'subscription resumed while its delivery was parked';
  return { kind: 'retry_later', delaySeconds: 0, note, next: dueMessage(dueNow) };
}

/** The one write of `outcome`'s row (domain/classify.ts `rowAfter`) as its action: the row as written, or undefined when the row had moved on. */
async function writeRow(
  deps: Pick<RecordDeps, 'deliveries' | 'events' | 'metrics' | 'retention'>,
  next: Delivery,
  outcome: Outcome,
  expect: Expected['expect'],
  nowMs: number,
): Promise<Delivery | undefined> {
  const action = actionFor(outcome);
  // The event's body first outlives the dead letter, so a crash between the two leaves a body kept too long, never a dead letter without one.
  if (isDeadLetter(next.state))
    await deps.events.extendRetention(next.eventId, deadLetterEventTtl(nowMs, deps.retention));
  if (!(await deps.deliveries.write(action, next, expect))) return undefined;
  for (const metric of OUTCOME_METRICS[action]) deps.metrics.count(metric);
  return next;
}

/** The attempt as the sender handler logs it; only the URL's host is kept (a path or query may carry a token). */
function attemptReport(
  { row, eventType, subscription }: Attempt,
  made: InlineAttempt,
  fields: Pick<AttemptReport, 'outcome' | 'state' | 'retryInSeconds'>,
): AttemptReport {
  const { status, error, durationMs } = made;
  // Stored URLs are normalised at creation; a row that is not one must not fail the recorded attempt.
  const host = URL.canParse(subscription.url) ? new URL(subscription.url).host : '(invalid URL)';
  const answer = status !== undefined ? { status } : { error: error! };
  return {
    deliveryId: row.id,
    subscriptionId: row.subscriptionId,
    eventType,
    host,
    attempt: made.attempt,
    ...answer,
    durationMs,
    ...fields,
  };
}
