import { numericPolicy } from './policy.ts';
import type { SubscriptionState } from './types.ts';

/** Pauses a subscription whose deliveries have dead-lettered continuously for a day (docs/operations.md, "Pause, resume, auto-pause, disable"). */
const AUTO_PAUSE_POLICY = numericPolicy('autoPause', {
  /** Length of an unbroken dead-letter streak (first to latest dead letter, no success between) that pauses. */
  afterSeconds: { default: 86_400, min: 1, max: 90 * 86_400, integer: true },
});

export type AutoPausePolicy = typeof DEFAULT_AUTO_PAUSE_POLICY;
export const DEFAULT_AUTO_PAUSE_POLICY = AUTO_PAUSE_POLICY.defaults;
export const resolveAutoPausePolicy = AUTO_PAUSE_POLICY.resolve;

/** A subscription's current run of dead letters; a delivered delivery ends it. */
export interface DeadLetterStreak {
  /** When the first dead letter of the run was recorded. */
  readonly since: string;
  /** When the latest one was. */
  readonly last: string;
  readonly count: number;
}

/** How every auto-pause reason begins: what tells an auto-pause apart from a pause someone asked for. */
export const AUTO_PAUSE_REASON_PREFIX = 'auto-paused:';

/** Whether a paused subscription's reason is an auto-pause's. */
export function isAutoPauseReason(reason: string | undefined): boolean {
  return reason?.startsWith(AUTO_PAUSE_REASON_PREFIX) ?? false;
}

export type AutoPauseVerdict = { readonly kind: 'pause'; readonly reason: string } | { readonly kind: 'keep' };

/**
 * Pauses an active subscription once its streak spans the policy's period. The span is
 * measured between dead letters, not against the clock: a subscription whose only dead letter
 * is a day old, with no traffic since, has not been "dead-lettering continuously".
 */
export function autoPauseVerdict(
  state: SubscriptionState,
  streak: DeadLetterStreak | undefined,
  policy: AutoPausePolicy,
): AutoPauseVerdict {
  if (state !== 'active' || !streak) return { kind: 'keep' };
  const spanMs = Date.parse(streak.last) - Date.parse(streak.since);
  if (!(spanMs >= policy.afterSeconds * 1000)) return { kind: 'keep' };
  return {
    kind: 'pause',
    reason:
      `${AUTO_PAUSE_REASON_PREFIX} every delivery since ${streak.since} was dead-lettered (${streak.count} in a row over ` +
      `${formatSpan(spanMs)}, threshold ${formatSpan(policy.afterSeconds * 1000)}); fix the endpoint, then resume to drain the backlog`,
  };
}

function formatSpan(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} h`;
  if (s >= 3600) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 60 && s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}
