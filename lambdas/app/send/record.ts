import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { actionFor, decide, describe, failedOutcome, type AttemptResult, type Outcome } from '#domain/classify.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { isDeadLetter, isTerminal, STATE, targetOf, type CompletionAction } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import { capUtf8, expectationOf, type Delivery, type InlineAttempt } from '#domain/types.ts';
import { METRICS, type CountMetric } from '#config/topology.ts';
import type { RetryMessage } from '#ports/delivery-queue.ts';
import type { Deps } from '#app/deps.ts';
import { dueMessage } from '#app/deliveries/due-message.ts';
import { expire } from '#app/deliveries/expire.ts';
import type { Attempt, AttemptReport, Expected, SendOutcome, Step } from '#app/send/outcome.ts';
import { recordHealth } from '#app/subscriptions/dead-letter-streak.ts';
import { routedChange } from '#app/subscriptions/routing.ts';

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

/**
 * The one write of a delivery message, whatever it comes to (outcome.ts `Step`): an attempt's
 * outcome, a dead letter without a POST, a wait, an expiry. Each is conditional on the row being
 * as the message expected; one that finds it moved on changes nothing.
 */
export async function record(deps: RecordDeps, step: Step): Promise<SendOutcome> {
  const nowMs = deps.clock.now();
  if (step.kind === 'attempted') return recordAttempt(deps, step, nowMs);
  if (step.kind === 'wait') return recordWait(deps, step, nowMs);
  const written =
    step.kind === 'expire'
      ? await expire(deps, step.at, step.reason, nowMs)
      : await writeOutcome(deps, step.at, failedOutcome(step.reason), nowMs);
  const note = step.kind === 'expire' ? step.note : step.reason;
  return { kind: 'done', note: written ? note : `${note}; the row had moved on meanwhile` };
}

/**
 * Records an attempt: the row as the attempt leaves it, its record inline. The record it
 * replaces goes to the attempts table first (a put of its own number, the same bytes every time,
 * so no number is ever taken twice). A write that finds the row moved on (another copy of the
 * delivery got there first) changes nothing, and this POST was an at-least-once duplicate.
 */
async function recordAttempt(
  deps: RecordDeps,
  step: Extract<Step, { kind: 'attempted' }>,
  nowMs: number,
): Promise<SendOutcome> {
  const { attempt: a, result } = step;
  const { row, subscription } = a;
  const policy = subscription.retryPolicy ?? deps.defaultRetryPolicy;
  const outcome = decide({
    result,
    attempts: row.attempts + 1,
    policy,
    nowMs,
    giveUpAtMs: Date.parse(row.giveUpAt),
    random: deps.clock.random(),
  });
  const made: InlineAttempt = {
    seq: row.attemptSeq + 1,
    attempt: row.attempts + 1,
    startedAt: iso(step.startedAtMs),
    durationMs: result.durationMs,
    ...(result.kind === 'response'
      ? { status: result.status, responseSnippet: capUtf8(result.bodySnippet) }
      : { error: describe(result) }),
  };
  if (row.lastAttempt && a.expect.row === 'as') await deps.attempts.put({ deliveryId: row.id, ...row.lastAttempt });
  deps.metrics.latency(result.durationMs);
  const written = await writeOutcome(deps, a, outcome, nowMs, { attempt: made, url: subscription.url, result });
  const report = (fields: Pick<AttemptReport, 'outcome' | 'state' | 'retryInSeconds'>) =>
    attemptReport(a, made, result, fields);
  if (!written)
    return {
      kind: 'done',
      note: 'another copy of this delivery wrote its row first: this POST was a duplicate',
      attempt: report({ outcome: 'lost' }),
    };
  const action = actionFor(outcome);
  const state = targetOf(action);
  if (outcome.kind === 'dead' && outcome.disableSubscription) {
    // Disabled is out of fan-out: the routing index follows the row (app/subscriptions/routing.ts).
    await routedChange(deps, subscription.id, () =>
      deps.subscriptions.setState(
        subscription.id,
        'disabled',
        `endpoint answered 410 Gone for delivery ${row.id}`,
        iso(nowMs),
      ),
    );
  } else if (isTerminal(state)) {
    await recordHealth(deps, deps.autoPause ?? DEFAULT_AUTO_PAUSE_POLICY, subscription, state, nowMs);
  }
  if (outcome.kind !== 'retry')
    return { kind: 'done', note: outcome.kind, outcome, attempt: report({ outcome: action, state }) };
  const next: RetryMessage = {
    kind: 'retry',
    deliveryId: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: a.eventType,
    createdAt: row.createdAt,
    giveUpAt: row.giveUpAt,
    body: a.body,
    attemptSeq: written.attemptSeq,
    attempts: written.attempts,
    nextAttemptAt: written.nextAttemptAt,
    previousAttempt: made,
  };
  return {
    kind: 'retry_later',
    delaySeconds: outcome.delaySeconds,
    note: describe(result),
    attempt: report({ outcome: action, state, retryInSeconds: outcome.delaySeconds }),
    next,
  };
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
  const waiting: Delivery = {
    ...step.at.row,
    state: STATE.pending,
    nextAttemptAt: iso(step.untilMs),
    updatedAt: iso(nowMs),
  };
  if (!(await deps.deliveries.write('reschedule', waiting, step.at.expect)))
    return { kind: 'done', note: `${step.note}; the row had moved on meanwhile` };
  if (!step.paused)
    return {
      kind: 'retry_later',
      delaySeconds: Math.max(1, Math.ceil((step.untilMs - nowMs) / 1000)),
      note: step.note,
      next: dueMessage(waiting),
    };
  if ((await deps.subscriptions.get(waiting.subscriptionId))?.state !== 'active')
    return { kind: 'done', note: step.note };
  const dueNow: Delivery = { ...waiting, nextAttemptAt: iso(nowMs) };
  if (!(await deps.deliveries.write('reschedule', dueNow, expectationOf(waiting))))
    return { kind: 'done', note: `${step.note}; the row had moved on meanwhile` };
  return {
    kind: 'retry_later',
    delaySeconds: 0,
    note: 'subscription resumed while its delivery was parked',
    next: dueMessage(dueNow),
  };
}

/**
 * Writes `outcome` as its state-machine action, from the row as expected: with the attempt
 * `made`, or none (a delivery dead-lettered without a POST: its subscription gone, its event
 * body gone). The row as written, or undefined when the row had moved on.
 */
async function writeOutcome(
  deps: Pick<RecordDeps, 'deliveries' | 'events' | 'metrics' | 'retention'>,
  { row, expect }: Expected,
  outcome: Outcome,
  nowMs: number,
  made?: { readonly attempt: InlineAttempt; readonly url: string; readonly result: AttemptResult },
): Promise<Delivery | undefined> {
  const action = actionFor(outcome);
  const response = made?.result.kind === 'response' ? made.result : undefined;
  const next: Delivery = {
    ...row,
    ...(made
      ? { attempts: made.attempt.attempt, attemptSeq: made.attempt.seq, lastAttempt: made.attempt, url: made.url }
      : {}),
    state: targetOf(action),
    nextAttemptAt: iso(outcome.kind === 'retry' ? outcome.nextAttemptAtMs : nowMs),
    lastStatus: made ? response?.status : row.lastStatus,
    lastError:
      action === 'succeed'
        ? undefined
        : outcome.kind === 'dead'
          ? outcome.reason
          : made
            ? describe(made.result)
            : 'unknown',
    updatedAt: iso(nowMs),
  };
  // The event's body first outlives the dead letter, so a crash between the two leaves a body kept too long, never a dead letter without one.
  if (isDeadLetter(next.state))
    await deps.events.extendRetention(row.eventId, deadLetterEventTtl(nowMs, deps.retention));
  if (!(await deps.deliveries.write(action, next, expect))) return undefined;
  for (const metric of OUTCOME_METRICS[action]) deps.metrics.count(metric);
  return next;
}

/** What each recorded outcome adds to the delivery metrics (a retry is not an outcome yet). */
const OUTCOME_METRICS: Readonly<Record<CompletionAction, readonly CountMetric[]>> = {
  succeed: [METRICS.succeeded],
  retry: [METRICS.retried],
  fail_permanently: [METRICS.failed, METRICS.deadLettered],
  give_up: [METRICS.expired, METRICS.deadLettered],
};

function attemptReport(
  { row, eventType, subscription }: Attempt,
  attempt: InlineAttempt,
  result: AttemptResult,
  fields: Pick<AttemptReport, 'outcome' | 'state' | 'retryInSeconds'>,
): AttemptReport {
  return {
    deliveryId: row.id,
    subscriptionId: row.subscriptionId,
    eventType,
    host: hostOf(subscription.url),
    attempt: attempt.attempt,
    ...(result.kind === 'response' ? { status: result.status } : { error: describe(result) }),
    durationMs: result.durationMs,
    ...fields,
  };
}

/**
 * The attempt report's host, with a one-entry memo: a busy sender reports the same
 * subscription's host many times over, and a URL parse costs about 0.5 µs.
 */
let lastUrl: string | undefined;
let lastHost = '';
function hostOf(url: string): string {
  if (url !== lastUrl) {
    // Stored URLs are normalised at creation; a row that is not one must not fail the recorded attempt.
    lastHost = URL.canParse(url) ? new URL(url).host : '(invalid URL)';
    lastUrl = url;
  }
  return lastHost;
}
