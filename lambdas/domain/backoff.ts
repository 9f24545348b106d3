import type { RetryPolicy } from './retry-policy.ts';

/** Unjittered delay before attempt `attempt + 1`, given `attempt` attempts already made (≥ 1). */
export function baseDelaySeconds(policy: RetryPolicy, attempt: number): number {
  const exponent = Math.max(0, attempt - 1);
  return Math.min(policy.initialDelaySeconds * policy.multiplier ** exponent, policy.maxDelaySeconds);
}

/**
 * Delay in whole seconds before the next attempt. `random` is in [0, 1) and spreads the delay
 * by ±jitter; a `Retry-After` from the receiver lengthens it but never beyond the policy's
 * maximum, and nothing is ever scheduled sooner than 1 s (SQS granularity).
 */
export function nextDelaySeconds(
  policy: RetryPolicy,
  attempt: number,
  random: number,
  retryAfterSeconds?: number,
): number {
  const jittered = baseDelaySeconds(policy, attempt) * (1 + policy.jitter * (2 * random - 1));
  const wanted = Math.max(jittered, retryAfterSeconds ?? 0);
  return Math.max(1, Math.min(Math.round(wanted), policy.maxDelaySeconds));
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`, 'i');
const RFC850_DATE = new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`, 'i');
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`, 'i');

/**
 * Reads a `Retry-After` header: delta-seconds or an HTTP date. Returns seconds from `nowMs`,
 * or undefined when absent or unreadable (a bad header must not break the retry).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Only the three HTTP-date forms (RFC 9110 §5.6.7); Date.parse alone would read "foo 2030" as a date.
  if (!IMF_FIXDATE.test(trimmed) && !RFC850_DATE.test(trimmed) && !ASCTIME_DATE.test(trimmed)) return undefined;
  // asctime carries no zone and means GMT; Date.parse would read it in local time.
  const at = Date.parse(ASCTIME_DATE.test(trimmed) ? `${trimmed} GMT` : trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The SQS delay of a wait for the instant `untilMs` (a rate-limit turn): its whole seconds, so
 * that the message is back a little before it, never after (SQS delays are whole seconds); the
 * message carries the instant (`notBefore`), and the rate gate holds the rest, under a second,
 * right before the attempt (app/send/rate-gate.ts). At least a second.
 */
export function wholeSecondsToward(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.floor((untilMs - nowMs) / 1000));
}
