import { nextDelaySeconds, parseRetryAfter } from './backoff.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { STATE, targetOf, type CompletionAction, type DeadLetterState } from './states.ts';
import { iso } from './time.ts';
import { capUtf8, type Delivery, type InlineAttempt } from './types.ts';

/** What one HTTP attempt produced, as seen by the sender. */
export type AttemptResult =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly retryAfter?: string;
      readonly bodySnippet: string;
      readonly durationMs: number;
    }
  | { readonly kind: 'timeout'; readonly durationMs: number; readonly message: string }
  | { readonly kind: 'network'; readonly durationMs: number; readonly message: string }
  | { readonly kind: 'tls'; readonly durationMs: number; readonly message: string }
  /** The target resolved to an address the deployment refuses (checked at send time). */
  | { readonly kind: 'forbidden_target'; readonly durationMs: number; readonly message: string };

export type FailureClass = 'success' | 'transient' | 'permanent';

/**
 * 2xx succeeds; 408, 425, 429, 5xx, timeouts, connection and TLS errors are worth retrying;
 * every other 4xx (410 included) is permanent. 1xx/3xx are retried: redirects are never
 * followed, and a misconfigured endpoint that gets fixed should still receive its events.
 */
export function classify(result: AttemptResult): FailureClass {
  if (result.kind === 'forbidden_target') return 'permanent';
  if (result.kind !== 'response') return 'transient';
  const { status } = result;
  if (status >= 200 && status < 300) return 'success';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'transient';
  if (status >= 400) return 'permanent';
  return 'transient';
}

/** The decision the sender records after an attempt. */
export type Outcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly nextAttemptAtMs: number }
  | {
      readonly kind: 'dead';
      readonly state: DeadLetterState;
      readonly reason: string;
      readonly disableSubscription: boolean;
    };

export interface DecideInput {
  readonly result: AttemptResult;
  /** Attempts made so far, this one included. */
  readonly attempts: number;
  readonly policy: RetryPolicy;
  readonly nowMs: number;
  readonly giveUpAtMs: number;
  /** In [0, 1): the jitter draw. */
  readonly random: number;
}

/** Maps one attempt to delivered / retry at T / dead letter. Never schedules past give_up_at. */
export function decide(input: DecideInput): Outcome {
  const { result, attempts, policy, nowMs, giveUpAtMs } = input;
  const verdict = classify(result);
  if (verdict === 'success') return { kind: 'delivered' };
  if (verdict === 'permanent') {
    const gone = result.kind === 'response' && result.status === 410;
    return failedOutcome(describe(result), gone);
  }
  if (policy.maxAttempts !== undefined && attempts >= policy.maxAttempts) {
    return {
      kind: 'dead',
      state: STATE.expired,
      reason: `gave up after ${attempts} attempts: ${describe(result)}`,
      disableSubscription: false,
    };
  }
  const retryAfter = result.kind === 'response' ? parseRetryAfter(result.retryAfter, nowMs) : undefined;
  const delaySeconds = nextDelaySeconds(policy, attempts, input.random, retryAfter);
  const nextAttemptAtMs = nowMs + delaySeconds * 1000;
  if (nextAttemptAtMs > giveUpAtMs) {
    return {
      kind: 'dead',
      state: STATE.expired,
      reason: `retry deadline reached: ${describe(result)}`,
      disableSubscription: false,
    };
  }
  return { kind: 'retry', delaySeconds, nextAttemptAtMs };
}

/** A permanent failure: dead-lettered as failed at once (and with `disableSubscription`, the subscription goes too). */
export function failedOutcome(reason: string, disableSubscription = false): Outcome {
  return { kind: 'dead', state: STATE.failed, reason, disableSubscription };
}

/** The state-machine action that records `outcome`: the store writes that edge's target state. */
export function actionFor(outcome: Outcome): CompletionAction {
  if (outcome.kind === 'delivered') return 'succeed';
  if (outcome.kind === 'retry') return 'retry';
  return outcome.state === STATE.failed ? 'fail_permanently' : 'give_up';
}

/** A short human-readable summary for `last_error` and logs. */
export function describe(result: AttemptResult): string {
  if (result.kind === 'response') return `HTTP ${result.status}`;
  return `${result.kind}: ${result.message}`;
}

/** The record of the attempt made from `row` (the next of its attempt numbers and of its run's attempts), as a row holds it inline. */
export function attemptMade(
  row: Pick<Delivery, 'attemptSeq' | 'attempts'>,
  startedAtMs: number,
  result: AttemptResult,
): InlineAttempt {
  const answer =
    result.kind === 'response'
      ? { status: result.status, responseSnippet: capUtf8(result.bodySnippet) }
      : { error: describe(result) };
  const { durationMs } = result;
  return { seq: row.attemptSeq + 1, attempt: row.attempts + 1, startedAt: iso(startedAtMs), durationMs, ...answer };
}

/**
 * The row as `outcome` leaves it, from the row as expected: with the attempt `made` (to its url)
 * as its latest, or none (a delivery dead-lettered without a POST: its subscription gone, its
 * event body gone).
 */
export function rowAfter(
  row: Delivery,
  outcome: Outcome,
  nowMs: number,
  made?: { readonly attempt: InlineAttempt; readonly url: string },
): Delivery {
  const action = actionFor(outcome);
  const attempt = made?.attempt;
  const written = made
    ? { attempts: made.attempt.attempt, attemptSeq: made.attempt.seq, lastAttempt: made.attempt, url: made.url }
    : {};
  // A retry always follows an attempt: its error is that attempt's, as `describe` put it.
  const failure = outcome.kind === 'dead' ? outcome.reason : (attempt?.error ?? `HTTP ${attempt?.status}`);
  return {
    ...row,
    ...written,
    state: targetOf(action),
    nextAttemptAt: iso(outcome.kind === 'retry' ? outcome.nextAttemptAtMs : nowMs),
    lastStatus: attempt ? attempt.status : row.lastStatus,
    lastError: action === 'succeed' ? undefined : failure,
    updatedAt: iso(nowMs),
  };
}
