import { classify } from './classify.ts';
import { isTerminal, STATE } from './states.ts';
import type { AttemptRecord, Delivery } from './types.ts';

/**
 * A subscription's health over a window, computed at read time from the deliveries and attempts
 * Hookline keeps anyway: no counter is written per delivery, and no per-subscription metric
 * dimension is paid for (docs/aws.md, "Cost model").
 */

/** `?windowHours=`: the last 24 h unless asked, at most a week (the default retention keeps more). */
export const HEALTH_WINDOW_HOURS = Object.freeze({ default: 24, min: 1, max: 168 });

/**
 * How much one stats read may look at, so a busy subscription's figures stay a bounded read:
 * the newest `deliveries` deliveries, and each one's latest `attemptsPerDelivery` attempts (one
 * Query page). Past either bound the answer says `sampled`.
 */
export const HEALTH_SAMPLE = Object.freeze({ deliveries: 1000, attemptsPerDelivery: 50 });

/** The parts of a delivery the figures read. */
export type DeliveryFacts = Pick<Delivery, 'state' | 'updatedAt'>;
/** The parts of an attempt the figures read. */
export type AttemptFacts = Pick<AttemptRecord, 'deliveryId' | 'startedAt' | 'durationMs' | 'status' | 'error'>;

export interface HealthInput {
  /** The window, inclusive at both ends (epoch ms). */
  readonly fromMs: number;
  readonly toMs: number;
  readonly deliveries: readonly DeliveryFacts[];
  readonly attempts: readonly AttemptFacts[];
}

export interface LastFailure {
  readonly at: string;
  readonly deliveryId: string;
  /** The HTTP status the endpoint answered, when it answered at all. */
  readonly status?: number;
  /** Why there was no usable answer (timeout, connection refused, …). */
  readonly error?: string;
}

export interface HealthFigures {
  /** Deliveries that reached a terminal state in the window (their `updatedAt`), by outcome. */
  readonly finished: {
    readonly delivered: number;
    readonly failed: number;
    readonly expired: number;
    readonly total: number;
  };
  /** Deliveries still live now, wherever their window: pending (incl. waiting out a backoff or a pause) and in flight. */
  readonly open: { readonly pending: number; readonly inFlight: number };
  /** delivered ÷ finished; undefined with nothing finished (a rate of nothing is not 0 % or 100 %). */
  readonly successRate?: number;
  /** Over every attempt started in the window, successful or not. */
  readonly latency: { readonly attempts: number; readonly averageMs?: number; readonly p95Ms?: number };
  /** The newest failed attempt started in the window. */
  readonly lastFailure?: LastFailure;
  /**
   * When the current run of failed attempts began: the first failed attempt after the newest
   * successful one in the window (the first in the window when none succeeded). Undefined when
   * the newest attempt succeeded or nothing was attempted.
   */
  readonly failingSince?: string;
}

/** Whether a recorded attempt succeeded, by the same rule the sender applied (classify.ts). */
export function attemptSucceeded(attempt: Pick<AttemptRecord, 'status'>): boolean {
  return (
    attempt.status !== undefined &&
    classify({ kind: 'response', status: attempt.status, bodySnippet: '', durationMs: 0 }) === 'success'
  );
}

/** Nearest-rank percentile (`p` in 0–100] of ascending `sorted`: always a value that was observed. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Rounded to 4 decimals: enough for a rate shown as a percentage with two decimals. */
const rate = (part: number, whole: number): number | undefined =>
  whole === 0 ? undefined : Math.round((part / whole) * 10_000) / 10_000;

/** The window's figures; pure, so every edge is table-tested (test/unit/domain/subscription-health.test.ts). */
export function summarizeHealth(input: HealthInput): HealthFigures {
  const inWindow = (instant: string) => {
    const ms = Date.parse(instant);
    return ms >= input.fromMs && ms <= input.toMs;
  };
  const finished = { delivered: 0, failed: 0, expired: 0, total: 0 };
  const open = { pending: 0, inFlight: 0 };
  for (const d of input.deliveries) {
    if (d.state === STATE.inFlight) open.inFlight++;
    else if (d.state === STATE.pending) open.pending++;
    else if (isTerminal(d.state) && inWindow(d.updatedAt)) {
      finished[d.state]++;
      finished.total++;
    }
  }

  // Oldest first, so the run of failures after the last success is a suffix.
  const attempts = input.attempts
    .filter((a) => inWindow(a.startedAt))
    .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const durations = attempts.map((a) => a.durationMs).sort((a, b) => a - b);
  const total = durations.reduce((sum, ms) => sum + ms, 0);
  const latency = {
    attempts: durations.length,
    ...(durations.length > 0
      ? { averageMs: Math.round(total / durations.length), p95Ms: percentile(durations, 95)! }
      : {}),
  };

  let lastSuccess = -1;
  attempts.forEach((a, i) => {
    if (attemptSucceeded(a)) lastSuccess = i;
  });
  const failingRun = attempts.slice(lastSuccess + 1);
  const newestFailure = [...attempts].reverse().find((a) => !attemptSucceeded(a));
  const successRate = rate(finished.delivered, finished.total);

  return {
    finished,
    open,
    ...(successRate !== undefined ? { successRate } : {}),
    latency,
    ...(newestFailure ? { lastFailure: failureOf(newestFailure) } : {}),
    ...(failingRun.length > 0 ? { failingSince: failingRun[0]!.startedAt } : {}),
  };
}

function failureOf(a: AttemptFacts): LastFailure {
  return {
    at: a.startedAt,
    deliveryId: a.deliveryId,
    ...(a.status !== undefined ? { status: a.status } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
  };
}
