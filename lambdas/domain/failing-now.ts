import type { SubscriptionState } from './types.ts';

/*
 * "Failing now" across every subscription (the console's Failing now list, `GET
 * /v1/subscriptions?failing=true`, and a subscription's own Dead-lettering figure): a
 * subscription in a dead-letter streak (domain/auto-pause.ts), whatever its state, because that
 * streak is the one failure signal kept on the subscription row itself, so a listing shows it
 * without reading any delivery. The stats' `failingSince` (subscription-health.ts) moves with
 * attempts and needs a read of each subscription's deliveries, so it cannot serve a list of them
 * all; an endpoint that has just gone down is listed here once its first delivery is given up on
 * (its retry deadline, or at once for a 4xx).
 */

/** What the rule reads: a stored subscription, or its API view (where absent is null). */
export interface FailingFacts {
  readonly state: SubscriptionState;
  readonly deadLetteringSince?: string | null;
  readonly deadLetterStreak?: number | null;
}

export interface FailingNow {
  /** The first dead letter of the current streak. */
  readonly since: string;
  /** Dead letters in the streak. */
  readonly deadLetters: number;
}

/**
 * The subscription's current failure, or undefined when it is not failing. A deleted one never
 * is: nothing is sent to it any more, and its row is history.
 */
export function failingNow(s: FailingFacts): FailingNow | undefined {
  if (s.state === 'deleted' || !s.deadLetteringSince) return undefined;
  // A streak is written with its first dead letter, so a since without a count is a row of one.
  return { since: s.deadLetteringSince, deadLetters: Math.max(1, s.deadLetterStreak ?? 1) };
}

/** Longest failing first (the earliest since), then by id so the order never shuffles; not failing last. */
export function longestFailingFirst(a: FailingFacts & { id: string }, b: FailingFacts & { id: string }): number {
  const x = failingNow(a)?.since;
  const y = failingNow(b)?.since;
  if (x !== y) {
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return Date.parse(x) - Date.parse(y) || x.localeCompare(y);
  }
  return a.id.localeCompare(b.id);
}
