import { createHash } from 'node:crypto';
import { InvalidPolicyError } from './errors.ts';
import { numericPolicy } from './policy.ts';
import { isTerminal, STATE } from './states.ts';
import type { Delivery, SubscriptionState } from './types.ts';

/**
 * Per-subscription failure notices (docs/operations.md, "Failure notices and operational
 * webhooks"): the middle of three alerting tiers. A single failed attempt never tells anyone; a
 * subscription that keeps failing tells its owner and the producer's support; a producer-wide
 * problem pages on-call through the dead-letter-rate alarm.
 *
 * A subscription is *failing* from the first failed attempt after its last 2xx (the streak's
 * `since`) until a 2xx ends the run. Each notice goes at most once per streak: its key is
 * (subscription, since, kind), and a new streak starts with nothing sent.
 */
const NOTICE_POLICY = numericPolicy('notices', {
  /** How long a subscription has been failing when the first notice goes. */
  firstAfterSeconds: { default: 3600, min: 1, max: 30 * 86_400, integer: true },
  /** How long when the second ("still failing") goes; longer than the first. */
  secondAfterSeconds: { default: 86_400, min: 2, max: 90 * 86_400, integer: true },
  /** How long before the oldest pending delivery's retry deadline the "expiring" notice goes. */
  beforeExpirySeconds: { default: 21_600, min: 1, max: 13 * 86_400, integer: true },
  /**
   * The lost summary goes once nothing of the subscription is still being retried, or at the
   * latest this long after the streak's oldest pending delivery reached its deadline.
   */
  lostAfterSeconds: { default: 3600, min: 1, max: 30 * 86_400, integer: true },
  /** 1: a "recovered" notice when a 2xx ends a streak someone was told about; 0: none. */
  recovered: { default: 1, min: 0, max: 1, integer: true },
  /**
   * How long a worker that decided a notice has to send it before another may take it over
   * and send it: longer than one send can take (the mail and publish timeouts).
   */
  leaseSeconds: { default: 120, min: 1, max: 3600, integer: true },
});

export const DEFAULT_NOTICE_POLICY = NOTICE_POLICY.defaults;
export type NoticePolicy = typeof DEFAULT_NOTICE_POLICY;

/** The policy from an override, with the rule that ties two fields: the second notice comes after the first. */
export function resolveNoticePolicy(override: unknown, base: NoticePolicy = DEFAULT_NOTICE_POLICY): NoticePolicy {
  const policy = NOTICE_POLICY.resolve(override, base);
  if (policy.secondAfterSeconds <= policy.firstAfterSeconds) {
    throw new InvalidPolicyError(
      'notices',
      'secondAfterSeconds',
      `must be longer than firstAfterSeconds (${policy.firstAfterSeconds})`,
    );
  }
  return policy;
}

/**
 * What a notice is about. The first five belong to a failure streak; `auto_paused` and
 * `disabled` to a state change; `replay_completed` to a bulk replay (operational webhook only).
 */
export const NOTICE_KINDS = [
  'failing',
  'still_failing',
  'expiring',
  'lost',
  'recovered',
  'auto_paused',
  'disabled',
  'replay_completed',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];
export type StreakNoticeKind = Extract<NoticeKind, 'failing' | 'still_failing' | 'expiring' | 'lost' | 'recovered'>;

/** The operational event each kind publishes (both failing notices publish `subscription.failing`, told apart by `data.notice`). */
export const NOTICE_EVENT_TYPES = {
  failing: 'hookline.subscription.failing',
  still_failing: 'hookline.subscription.failing',
  expiring: 'hookline.subscription.expiring',
  lost: 'hookline.subscription.lost_summary',
  recovered: 'hookline.subscription.recovered',
  auto_paused: 'hookline.subscription.auto_paused',
  disabled: 'hookline.subscription.disabled',
  replay_completed: 'hookline.replay.completed',
} as const satisfies Record<NoticeKind, string>;

/** Kinds that are also emailed to the subscription's contacts and the support address (a replay is the producer's own business). */
export function isEmailed(kind: NoticeKind): boolean {
  return kind !== 'replay_completed';
}

/**
 * A notice's key within its subject (a subscription, or a replay): the streak start or state
 * change it belongs to, and its kind. The dedupe point is a conditional put of this key, so two
 * evaluators, a retry or a restart cannot decide the same notice twice.
 */
export function noticeKey(anchor: string, kind: NoticeKind): string {
  return `${anchor}#${kind}`;
}

/** The prefix every notice of one streak (or state change) shares. */
export function noticeKeyPrefix(anchor: string): string {
  return `${anchor}#`;
}

/**
 * The operational event's id, derived from the notice, so publishing it again (a re-send after a
 * crash) is a duplicate the event store refuses, never a second webhook.
 */
export function noticeEventId(subject: string, key: string): string {
  return `ntc_${createHash('sha256').update(`${subject}\u0000${key}`).digest('base64url').slice(0, 26)}`;
}

/** The parts of a delivery row the evaluator reads to tell whether the endpoint is failing. */
export type SampleRow = Pick<
  Delivery,
  'id' | 'eventId' | 'state' | 'attempts' | 'lastStatus' | 'lastError' | 'createdAt' | 'updatedAt' | 'giveUpAt'
>;

/**
 * What a subscription's newest deliveries say about its endpoint right now: the outcome of the
 * most recently recorded attempt among them. A row not yet attempted (fresh, or in flight) says
 * nothing; a pending row with attempts is waiting for a retry, so its last attempt failed.
 */
export type EndpointSignal =
  | { readonly kind: 'none' }
  | { readonly kind: 'failing'; readonly at: string; readonly deliveryId: string }
  | { readonly kind: 'healthy'; readonly at: string; readonly deliveryId: string };

export function endpointSignal(rows: readonly SampleRow[]): EndpointSignal {
  let latest: SampleRow | undefined;
  for (const row of rows) {
    const outcomeKnown = isTerminal(row.state) || (row.state === STATE.pending && row.attempts > 0);
    if (outcomeKnown && (!latest || row.updatedAt > latest.updatedAt)) latest = row;
  }
  if (!latest) return { kind: 'none' };
  return {
    kind: latest.state === STATE.delivered ? 'healthy' : 'failing',
    at: latest.updatedAt,
    deliveryId: latest.id,
  };
}

/** Whether a delivery is still being tried (it can still be delivered, or expire). */
export function isLive(row: Pick<Delivery, 'state'>): boolean {
  return row.state === STATE.pending || row.state === STATE.inFlight;
}

/** What the due rules read about one open streak. */
export interface StreakFacts {
  readonly since: string;
  readonly state: SubscriptionState;
  /** Kinds already decided in this streak (sent or being sent). */
  readonly decided: ReadonlySet<NoticeKind>;
  /** The earliest retry deadline of a delivery still being tried, if one is known. */
  readonly oldestLiveDeadline?: string;
  /** The first such deadline the streak recorded, never moved: when its losses began. */
  readonly firstDeadline?: string;
  /** Whether any delivery of the subscription is still being tried, as far as was read. */
  readonly live: boolean;
  /** Whether a delivery was dead-lettered since the streak began. */
  readonly lostSince: boolean;
}

/**
 * The notices of a streak due now, in the order they should go (pure: table-tested in
 * test/unit/domain/notices.test.ts). Recovery is not here: it is the end of the streak, which
 * the evaluator sees in the attempts.
 *
 * - `failing` once the streak is `firstAfterSeconds` old, unless the second is due already (a
 *   notice a day late would only repeat the one that supersedes it);
 * - `still_failing` once it is `secondAfterSeconds` old;
 * - `expiring` from `beforeExpirySeconds` before the oldest live delivery's deadline, while that
 *   deadline is still ahead;
 * - `lost` once something was dead-lettered in the streak and either nothing is live any more or
 *   `lostAfterSeconds` have passed since the streak's first deadline (so it summarises a run of
 *   expiries, not the first one, and still goes while new events keep arriving and expiring).
 *
 * Failing notices need attempts to fail, so only an active subscription gets them; a paused one
 * still sees its deliveries expire, so it may get `expiring` and `lost`.
 */
export function dueNotices(facts: StreakFacts, policy: NoticePolicy, nowMs: number): StreakNoticeKind[] {
  const due: StreakNoticeKind[] = [];
  const age = nowMs - Date.parse(facts.since);
  const active = facts.state === 'active';
  const attempting = active || facts.state === 'paused';
  const secondDue = age >= policy.secondAfterSeconds * 1000;
  if (
    active &&
    age >= policy.firstAfterSeconds * 1000 &&
    !secondDue &&
    !facts.decided.has('failing') &&
    !facts.decided.has('still_failing')
  )
    due.push('failing');
  if (active && secondDue && !facts.decided.has('still_failing')) due.push('still_failing');
  if (attempting && facts.oldestLiveDeadline && !facts.decided.has('expiring')) {
    const deadline = Date.parse(facts.oldestLiveDeadline);
    if (nowMs >= deadline - policy.beforeExpirySeconds * 1000 && nowMs < deadline) due.push('expiring');
  }
  if (facts.state !== 'deleted' && facts.lostSince && !facts.decided.has('lost')) {
    const settled =
      !facts.live ||
      (facts.firstDeadline !== undefined && nowMs - Date.parse(facts.firstDeadline) >= policy.lostAfterSeconds * 1000);
    if (settled) due.push('lost');
  }
  return due;
}

/** Whether a 2xx that ended a streak is worth a notice: the setting is on and someone was told about the failure. */
export function recoveredIsDue(decided: ReadonlySet<NoticeKind>, policy: NoticePolicy): boolean {
  return policy.recovered === 1 && [...decided].some((k) => k !== 'recovered');
}

/** How long after a state change its notice may still be decided; older changes are history, not news. */
export const STATE_NOTICE_LOOKBACK_SECONDS = 86_400;

/** How many event ids a lost summary lists; the rest are in the dead letters it links to. */
export const LOST_SUMMARY_EVENTS = 100;
/** How many of the newest events a failing notice lists. */
export const RECENT_EVENTS = 5;

/**
 * A duration for people, in at most two units ("1 hour", "2 days 23 hours", "45 seconds"):
 * what a notice says about how long an endpoint has failed or how long retries go on.
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const units: readonly [string, number][] = [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ];
  const parts: string[] = [];
  let rest = total;
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) {
      parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
      rest -= n * size;
    } else if (parts.length > 0) {
      break;
    }
  }
  return parts.length > 0 ? parts.join(' ') : '0 seconds';
}

/** Most addresses a subscription's `contactEmails` may hold (each notice goes to all of them). */
export const MAX_CONTACT_EMAILS = 10;

/**
 * An address a notice can go to: one `@`, no spaces, control characters, angle brackets,
 * commas or quotes (nothing that could smuggle a second recipient or a header into a message),
 * a dotted domain, at most 254 characters (RFC 5321's path limit).
 */
export const EMAIL_ADDRESS_PATTERN =
  /^[^\s@<>,;"'()\\\x00-\x1f\x7f]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$/;

export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && EMAIL_ADDRESS_PATTERN.test(text);
}

/** The recipients of a notice, each once (addresses compare case-insensitively): the subscription's contacts and the support address. */
export function noticeRecipients(
  contactEmails: readonly string[] | undefined,
  supportEmail: string | undefined,
): { readonly to: readonly string[]; readonly bcc: readonly string[] } {
  const seen = new Set<string>();
  const once = (list: readonly string[]) => list.filter((a) => !seen.has(a.toLowerCase()) && seen.add(a.toLowerCase()));
  const to = once(contactEmails ?? []);
  const support = once(supportEmail ? [supportEmail] : []);
  // The support address is told of every notice; with no contact it is the one addressee.
  return to.length > 0 ? { to, bcc: support } : { to: support, bcc: [] };
}
