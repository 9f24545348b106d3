import { numericPolicy } from './policy.ts';
import type { DeliveryState } from './states.ts';

/** How long terminal deliveries stay queryable before the archiver moves them to S3 or TTL deletes them (docs/operations.md, "Retention, archive and restore"). */
const RETENTION_POLICY = numericPolicy('retention', {
  /** Days a delivered delivery stays; fractions and 0 (archive as soon as terminal) are how tests shorten a month to seconds. */
  deliveredDays: { default: 30, min: 0, max: 3650, integer: false },
  /** Days a dead letter (failed, expired) stays visible and replayable. */
  deadLetterDays: { default: 90, min: 0, max: 3650, integer: false },
  /** DynamoDB TTL deletes this long after the archiver should have run: a net, not the mechanism. */
  ttlSafetyMarginDays: { default: 30, min: 1, max: 3650, integer: true },
  /**
   * 1: the archiver moves delivered deliveries to S3 after deliveredDays, where a restore can
   * bring them back. 0 (the default): DynamoDB TTL deletes them then, for free, where the
   * archiver's read-then-delete costs about $1.10 a million. Dead letters are always archived.
   */
  archiveDelivered: { default: 0, min: 0, max: 1, integer: true },
});

export type RetentionPolicy = typeof DEFAULT_RETENTION;
export const DEFAULT_RETENTION = RETENTION_POLICY.defaults;

const DAY_MS = 86_400_000;
const epochSecondsAfter = (ms: number, days: number) => Math.floor((ms + days * DAY_MS) / 1000);

/**
 * Epoch seconds for DynamoDB TTL, or undefined for live deliveries (never auto-deleted). TTL is a
 * net behind the archiver, except for a delivered delivery nobody archives: there it is how the
 * row goes, at the end of its retention.
 */
export function ttlFor(
  state: DeliveryState,
  updatedAtMs: number,
  policy: RetentionPolicy = DEFAULT_RETENTION,
): number | undefined {
  if (state === 'pending' || state === 'in_flight') return undefined;
  if (state === 'delivered')
    return epochSecondsAfter(
      updatedAtMs,
      policy.deliveredDays + (policy.archiveDelivered ? policy.ttlSafetyMarginDays : 0),
    );
  return epochSecondsAfter(updatedAtMs, policy.deadLetterDays + policy.ttlSafetyMarginDays);
}

/** Days an event outlives what its deliveries need when nothing archives them: an outcome written just after its deadline, clocks apart. */
export const EVENT_TTL_SLACK_DAYS = 1;

/**
 * Epoch seconds for the TTL of a new event whose deliveries give up at the latest at
 * `lastGiveUpAtMs` (its creation when it has none): that deadline plus the delivered retention,
 * so the body is there for as long as any of its delivered rows can be read, resent or
 * archived. TTL is how events go (a TTL delete is free, a DeleteItem is a write unit). The
 * margin is kept where the archiver moves delivered rows (archiveDelivered): it reads the body
 * up to a day after their retention, and the margin is its net; otherwise a day of slack. An
 * event that must outlive this (a dead letter, a replay, a restore, a retry now) has its TTL
 * moved out with EventStore.extendRetention. With the default 3-day deadline: 34 days, where a
 * fixed 30-day margin kept every event 60.
 */
export function eventTtlFor(lastGiveUpAtMs: number, policy: RetentionPolicy = DEFAULT_RETENTION): number {
  return epochSecondsAfter(
    lastGiveUpAtMs,
    policy.deliveredDays + (policy.archiveDelivered ? policy.ttlSafetyMarginDays : EVENT_TTL_SLACK_DAYS),
  );
}

/**
 * The event TTL a dead letter needs: the same instant as the dead letter's own row TTL, so the
 * body is there for a replay for as long as the dead letter is, and still there to be archived.
 */
export function deadLetterEventTtl(updatedAtMs: number, policy: RetentionPolicy = DEFAULT_RETENTION): number {
  return epochSecondsAfter(updatedAtMs, policy.deadLetterDays + policy.ttlSafetyMarginDays);
}

/**
 * Epoch seconds for the TTL of an attempt record of a run that gives up at `giveUpAtMs`: a day
 * past the longer-kept of the rows that run can leave by then (a dead letter, kept for
 * deadLetterDays and the archiver's margin; a delivered row). TTL is how attempts go, a dead
 * letter's too: the archiver copies them with their row and leaves them (a paid delete per
 * attempt costs more than the month they then stay, and nothing reads a log without its row).
 * An attempt is written when the next one is made, before the run's outcome is
 * known, so it is kept for the longer: a delivered row goes months before its attempts, but a dead
 * letter moving its attempts out would pay a write per attempt. A new run (a replay, a Retry now)
 * moves the attempts it inherits out with AttemptStore.extendRetention. With the defaults: 121
 * days from the deadline, where a fixed 210 days from each attempt covered one replay and no second.
 */
export function attemptTtlFor(giveUpAtMs: number, policy: RetentionPolicy = DEFAULT_RETENTION): number {
  const longest = Math.max(ttlFor('failed', giveUpAtMs, policy)!, ttlFor('delivered', giveUpAtMs, policy)!);
  return longest + EVENT_TTL_SLACK_DAYS * 86_400;
}

/**
 * Merges a partial retention override over the default: the handlers build it from
 * HOOKLINE_RETENTION_DELIVERED_DAYS and HOOKLINE_RETENTION_DEAD_LETTER_DAYS (the CDK sets
 * those from its `retention` prop); no variable sets the TTL margin.
 */
export const resolveRetentionPolicy = RETENTION_POLICY.resolve;
