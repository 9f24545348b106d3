import type { NoticeKind } from '#domain/notices.ts';

/**
 * A subscription's current failure streak, as the evaluator first saw it: written once when the
 * streak starts (a conditional put, so concurrent evaluators agree on one `since`), removed when
 * a 2xx ends it. `since` anchors every notice key of the streak.
 */
export interface Streak {
  readonly subscriptionId: string;
  /** The first failed attempt after the last 2xx. */
  readonly since: string;
  /** When the evaluator recorded it. */
  readonly startedAt: string;
  /** The delivery with the earliest retry deadline that was still being tried when the streak started (or first seen live in it). */
  readonly oldestLive?: { readonly deliveryId: string; readonly giveUpAt: string };
  /** The first `oldestLive` deadline recorded, never moved: when the streak's losses began (the lost summary waits from it). */
  readonly firstDeadline?: string;
}

/** `decided`: claimed by the worker holding its lease, not yet sent; then `sent`, or `abandoned` after too many tries. */
export type NoticeState = 'decided' | 'sent' | 'abandoned';

/**
 * One notice: the record that makes it go exactly once. Small on purpose (under 1 KB, one write
 * unit per write): its content is worked out again from the store when it is sent, so a notice
 * re-sent after a crash describes the situation as it is then.
 */
export interface NoticeRecord {
  /** The subscription (or the replay) the notice is about. */
  readonly subject: string;
  /** `<anchor>#<kind>` (domain/notices.ts noticeKey): unique within the subject. */
  readonly key: string;
  readonly kind: NoticeKind;
  readonly state: NoticeState;
  readonly decidedAt: string;
  /** Until when the worker that holds it may send it; after that anyone may take it over. */
  readonly leaseUntil: string;
  /** Send attempts so far (the first included). */
  readonly tries: number;
  /** What the notice was decided on that its content cannot read back later (the 2xx that ended a streak). */
  readonly facts?: Readonly<Record<string, string>>;
  readonly sentAt?: string;
  /** What the channels did: `email:sent`, `email:none` (no recipient or mail off), `webhook:1` (subscriptions the event went to). */
  readonly channels?: readonly string[];
  readonly lastError?: string;
}

export interface NoticeStore {
  /** Every open streak (one query: streaks share a partition, and there are few). */
  openStreaks(): Promise<readonly Streak[]>;
  /** Starts a streak unless one is open for the subscription; returns the open one (this one, or the winner's). */
  startStreak(streak: Streak): Promise<Streak>;
  /** Records the oldest live delivery of an open streak (only while the streak is still the one starting at `since`); the first one recorded is also its `firstDeadline`. */
  noteOldestLive(subscriptionId: string, since: string, oldestLive: NonNullable<Streak['oldestLive']>): Promise<void>;
  /** Ends the streak starting at `since`; false when it was already ended (or another one is open). */
  endStreak(subscriptionId: string, since: string): Promise<boolean>;
  /** The notices of one subject whose keys start with `prefix`. */
  noticesOf(subject: string, prefix: string): Promise<readonly NoticeRecord[]>;
  /** Decides a notice: true when this call wrote it (and holds its lease), false when it was decided before. */
  decide(notice: NoticeRecord): Promise<boolean>;
  /** Takes over a decided notice whose lease ran out (still at `expectedLeaseUntil`); the notice as taken, or undefined when another worker did. */
  takeOver(
    subject: string,
    key: string,
    expectedLeaseUntil: string,
    leaseUntil: string,
  ): Promise<NoticeRecord | undefined>;
  /** Marks a decided notice sent (only while `leaseUntil` is still the holder's). */
  markSent(
    subject: string,
    key: string,
    leaseUntil: string,
    sentAt: string,
    channels: readonly string[],
  ): Promise<boolean>;
  /**
   * Records a failed send: the notice stays decided, its lease moved to `retryAt` (when the next
   * run may try again), or with `giveUp` it ends `abandoned`.
   */
  markFailed(
    subject: string,
    key: string,
    leaseUntil: string,
    error: string,
    retryAt: string,
    giveUp: boolean,
  ): Promise<boolean>;
}
