import { isAutoPauseReason } from '#domain/auto-pause.ts';
import { replayCriteriaView } from '#app/replay/replay-view.ts';
import { subscriptionSelects } from '#domain/event-types.ts';
import {
  dueNotices,
  endpointSignal,
  isEmailed,
  isLive,
  NOTICE_EVENT_TYPES,
  noticeEventId,
  noticeKey,
  noticeKeyPrefix,
  noticeRecipients,
  recoveredIsDue,
  STATE_NOTICE_LOOKBACK_SECONDS,
  type NoticeKind,
  type StreakNoticeKind,
} from '#domain/notices.ts';
import type { ReplayRecord } from '#domain/replay.ts';
import { receivesEvents } from '#domain/subscription-states.ts';
import { iso } from '#domain/time.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import { METRICS } from '#config/topology.ts';
import type { NoticeRecord, Streak } from '#ports/notice-store.ts';
import { forEachLimit } from '#app/concurrency.ts';
import type { Deps } from '#app/deps.ts';
import {
  expiringContent,
  failingContent,
  findStreakStart,
  lostContent,
  lostSince,
  newestDeliveries,
  oldestLiveOf,
  subscriptionRef,
  succeededSince,
  deadLettersUrl,
  FIGURES_SAMPLE,
} from '#app/notices/content.ts';
import type { OperationalEventData } from '#app/notices/operational-events.ts';
import { renderNoticeEmail } from '#app/notices/render.ts';
import { publish, type PublishDeps } from '#app/publish/publish.ts';

/** What the notifier uses (FunctionDeps<'notifier'> must include these). */
export type NotifierDeps = Pick<
  Deps,
  | 'subscriptions'
  | 'deliveries'
  | 'attempts'
  | 'events'
  | 'replays'
  | 'notices'
  | 'mailer'
  | 'noticePolicy'
  | 'noticeSettings'
  | 'consoleSettings'
  | 'clock'
  | 'metrics'
> &
  PublishDeps;

/** What became of one notice in this run. */
export interface NoticeOutcome {
  readonly subject: string;
  readonly key: string;
  readonly kind: NoticeKind;
  readonly outcome: 'sent' | 'send_failed' | 'gave_up' | 'lost_lease';
  /** How this run came to hold it: it decided it, or took over one whose worker had stopped. */
  readonly via: 'decided' | 'taken_over';
  readonly channels?: readonly string[];
  readonly error?: string;
}

export interface NotifierReport {
  /** Subscriptions looked at. */
  readonly examined: number;
  streaksStarted: number;
  streaksEnded: number;
  /** Notices this run decided (a decision another evaluator had made already is not counted). */
  decided: number;
  /** Decided notices whose worker stopped before sending them, taken over and sent by this run. */
  resent: number;
  readonly notices: NoticeOutcome[];
}

/**
 * Newest deliveries read per active subscription to tell whether its endpoint is failing: the
 * newest two first (a healthy endpoint's newest delivery is usually delivered already), three
 * more only when those say nothing yet (fresh, or in flight).
 */
export const DETECT_SAMPLE = { first: 2, more: 3 } as const;
/** Send tries of one notice before it is given up on (about 8 h of retries with the default lease; every failure is counted in NoticeSendFailures). */
export const MAX_NOTICE_TRIES = 12;
const SUBSCRIPTIONS_IN_FLIGHT = 8;
/** Completed replays looked at per run for replay.completed (newest first: a handful a day). */
const RECENT_REPLAYS = 20;
const STREAK_KINDS: readonly StreakNoticeKind[] = ['failing', 'still_failing', 'expiring', 'lost', 'recovered'];

/** What a notice is about, for writing its content. */
type Target =
  | { readonly kind: 'streak'; readonly subscription: Subscription; readonly streak: Streak }
  | { readonly kind: 'state'; readonly subscription: Subscription }
  | { readonly kind: 'replay'; readonly replay: ReplayRecord };

interface Run {
  readonly deps: NotifierDeps;
  readonly nowMs: number;
  readonly subscriptions: readonly Subscription[];
  /**
   * The notice event types some subscription receives, found once a run. Asked per subscription
   * and notice kind, a filter of every subscription each time made a run quadratic: 100,000
   * subscriptions would take 5 × 10¹⁰ checks, more than a run's 15 minutes (docs/aws.md, "Scale
   * model").
   */
  readonly listenedTypes: ReadonlySet<string>;
  readonly report: NotifierReport;
}

/**
 * One scheduled run (every 5 minutes on AWS, HOOKLINE_NOTICE_INTERVAL_MS locally): for every
 * subscription, whether its endpoint is failing and which notices are due, decided once per
 * streak by a conditional put and then sent; decided notices whose worker stopped are sent by
 * whoever finds them past their lease. It reads at read time (the subscriptions, the newest few
 * deliveries of each active one, the open streaks) and writes only when a streak starts or ends
 * or a notice is decided or sent: the send path writes nothing for it.
 */
export async function runNotifier(deps: NotifierDeps): Promise<NotifierReport> {
  const nowMs = deps.clock.now();
  const subscriptions = await deps.subscriptions.all();
  const streaks = new Map((await deps.notices.openStreaks()).map((s) => [s.subscriptionId, s]));
  const run: Run = {
    deps,
    nowMs,
    subscriptions,
    listenedTypes: listenedTypes(subscriptions),
    report: { examined: subscriptions.length, streaksStarted: 0, streaksEnded: 0, decided: 0, resent: 0, notices: [] },
  };
  await forEachLimit(subscriptions, SUBSCRIPTIONS_IN_FLIGHT, (s) => evaluateSubscription(run, s, streaks.get(s.id)));
  // The archiver removed a deleted subscription: its streak has nobody left to tell.
  const known = new Set(subscriptions.map((s) => s.id));
  for (const [id, streak] of streaks)
    if (!known.has(id) && (await deps.notices.endStreak(id, streak.since))) run.report.streaksEnded++;
  await evaluateReplays(run);
  return run.report;
}

/** The notice event types an operational event would go to some subscription of (publish's own rule). */
function listenedTypes(subscriptions: readonly Subscription[]): ReadonlySet<string> {
  const types = Object.values(NOTICE_EVENT_TYPES);
  return new Set(types.filter((type) => subscriptions.some((s) => receivesEvents(s) && subscriptionSelects(s, type))));
}

/** Whether a notice of this kind about `subscription` reaches anyone: by email, or as an operational webhook. Nobody to tell: nothing is decided or written. */
function canTell(run: Run, subscription: Subscription | undefined, kind: NoticeKind): boolean {
  const emailed =
    isEmailed(kind) &&
    subscription !== undefined &&
    run.deps.mailer.enabled &&
    noticeRecipients(subscription.contactEmails, run.deps.noticeSettings.supportEmail).to.length > 0;
  return emailed || run.listenedTypes.has(NOTICE_EVENT_TYPES[kind]);
}

async function evaluateSubscription(run: Run, subscription: Subscription, open: Streak | undefined): Promise<void> {
  const { deps, nowMs } = run;
  if (subscription.state === 'deleted') {
    if (open && (await deps.notices.endStreak(subscription.id, open.since))) run.report.streaksEnded++;
    return;
  }
  await stateNotice(run, subscription);
  if (!open && (subscription.state !== 'active' || !STREAK_KINDS.some((k) => canTell(run, subscription, k)))) return;

  const rows = await detectionRows(deps, subscription.id);
  const signal = endpointSignal(rows);
  let streak = open;
  if (!streak) {
    if (signal.kind !== 'failing') return;
    const start = await findStreakStart(deps, subscription.id, nowMs);
    if (!start) return;
    const oldestLive = oldestLiveOf(start.rows);
    streak = await deps.notices.startStreak({
      subscriptionId: subscription.id,
      since: start.since,
      startedAt: iso(nowMs),
      ...(oldestLive ? { oldestLive, firstDeadline: oldestLive.giveUpAt } : {}),
    });
    run.report.streaksStarted++;
  }

  const prefix = noticeKeyPrefix(streak.since);
  const notices = await deps.notices.noticesOf(subscription.id, prefix);
  const target: Target = { kind: 'streak', subscription, streak };
  await resendStale(run, notices, target);
  const decided = new Set(notices.map((n) => n.kind));

  if (signal.kind === 'healthy' && signal.at >= streak.since) {
    const success = await succeededSince(deps, rows.find((d) => d.id === signal.deliveryId)!, streak.since);
    if (success) return recover(run, target, decided, success);
  }

  const due = await dueNow(run, subscription, streak, rows, decided);
  for (const kind of due) {
    if (canTell(run, subscription, kind))
      await decideAndSend(run, subscription.id, noticeKey(streak.since, kind), kind, undefined, target);
  }
}

/** The newest deliveries, as few as tell the endpoint's state (DETECT_SAMPLE): about 2.5 read units for a healthy one. */
async function detectionRows(deps: NotifierDeps, subscriptionId: string): Promise<readonly Delivery[]> {
  const first = await deps.deliveries.listBySubscription({ subscriptionId, limit: DETECT_SAMPLE.first });
  if (endpointSignal(first.items).kind !== 'none' || !first.nextCursor) return first.items;
  const more = await deps.deliveries.listBySubscription({
    subscriptionId,
    limit: DETECT_SAMPLE.more,
    cursor: first.nextCursor,
  });
  return [...first.items, ...more.items];
}

/** The streak's due notices, reading only what the rules need (a delivery's liveness, the dead-letter index) when they could be due. */
async function dueNow(
  run: Run,
  subscription: Subscription,
  streak: Streak,
  rows: readonly Delivery[],
  decided: ReadonlySet<NoticeKind>,
): Promise<StreakNoticeKind[]> {
  const { deps, nowMs } = run;
  const policy = deps.noticePolicy;
  let oldestLive = streak.oldestLive;
  const seen = oldestLiveOf(rows);
  // No live delivery when the streak began; the first one seen since anchors the expiry notices.
  if (!oldestLive && seen) {
    await deps.notices.noteOldestLive(subscription.id, streak.since, seen);
    oldestLive = seen;
  }
  const firstDeadline = streak.firstDeadline ?? oldestLive?.giveUpAt;
  // Whether the recorded oldest delivery is still being tried: from the rows when it is among them, else read once if a rule needs it.
  const recordedRow = oldestLive ? rows.find((d) => d.id === oldestLive!.deliveryId) : undefined;
  let recordedLive: boolean | undefined = !oldestLive ? false : recordedRow ? isLive(recordedRow) : undefined;
  const recordedIsLive = async (): Promise<boolean> => {
    if (recordedLive === undefined) {
      const row = await deps.deliveries.get(oldestLive!.deliveryId);
      recordedLive = row !== undefined && isLive(row);
    }
    return recordedLive;
  };

  let oldestLiveDeadline = oldestLive?.giveUpAt;
  if (
    oldestLive &&
    !decided.has('expiring') &&
    nowMs >= Date.parse(oldestLive.giveUpAt) - policy.beforeExpirySeconds * 1000 &&
    !(await recordedIsLive())
  ) {
    // The recorded one ended early (a permanent error): the next oldest still being tried is the one to warn of.
    const next = oldestLiveOf(await newestDeliveries(deps, subscription.id, FIGURES_SAMPLE));
    if (next) await deps.notices.noteOldestLive(subscription.id, streak.since, next);
    oldestLiveDeadline = next?.giveUpAt;
  }
  const checkLost = !decided.has('lost');
  const lost = checkLost && (await lostSince(deps, subscription.id, streak.since, rows));
  const live = rows.some(isLive) || (lost ? await recordedIsLive() : true);
  return dueNotices(
    {
      since: streak.since,
      state: subscription.state,
      decided,
      live,
      lostSince: lost,
      ...(oldestLiveDeadline ? { oldestLiveDeadline } : {}),
      ...(firstDeadline ? { firstDeadline } : {}),
    },
    policy,
    nowMs,
  );
}

/** A 2xx ended the streak: the recovered notice (when due), then the streak ends once none of its notices is still being sent. */
async function recover(
  run: Run,
  target: Extract<Target, { kind: 'streak' }>,
  decided: ReadonlySet<NoticeKind>,
  success: { at: string; deliveryId: string },
): Promise<void> {
  const { deps } = run;
  const { subscription, streak } = target;
  if (
    !decided.has('recovered') &&
    recoveredIsDue(decided, deps.noticePolicy) &&
    canTell(run, subscription, 'recovered')
  ) {
    await decideAndSend(
      run,
      subscription.id,
      noticeKey(streak.since, 'recovered'),
      'recovered',
      { recoveredAt: success.at, deliveryId: success.deliveryId },
      target,
    );
  }
  const unsent = (await deps.notices.noticesOf(subscription.id, noticeKeyPrefix(streak.since))).some(
    (n) => n.state === 'decided',
  );
  if (!unsent && (await deps.notices.endStreak(subscription.id, streak.since))) run.report.streaksEnded++;
}

/** An auto-pause or a 410 disable, told once per state change (while the change is under a day old). */
async function stateNotice(run: Run, subscription: Subscription): Promise<void> {
  const kind: NoticeKind | undefined =
    subscription.state === 'disabled'
      ? 'disabled'
      : subscription.state === 'paused' && isAutoPauseReason(subscription.stateReason)
        ? 'auto_paused'
        : undefined;
  if (
    !kind ||
    run.nowMs - Date.parse(subscription.stateChangedAt) > STATE_NOTICE_LOOKBACK_SECONDS * 1000 ||
    !canTell(run, subscription, kind)
  )
    return;
  const key = noticeKey(subscription.stateChangedAt, kind);
  const target: Target = { kind: 'state', subscription };
  // Read before the put: a refused conditional put costs a write unit, every run for a day.
  const existing = await run.deps.notices.noticesOf(subscription.id, key);
  if (existing.length > 0) return resendStale(run, existing, target);
  await decideAndSend(
    run,
    subscription.id,
    key,
    kind,
    { reason: (subscription.stateReason ?? '').slice(0, 600) },
    target,
  );
}

/** replay.completed for each bulk replay that finished within the last day (not dry runs), when someone subscribed to it. */
async function evaluateReplays(run: Run): Promise<void> {
  if (!run.listenedTypes.has(NOTICE_EVENT_TYPES.replay_completed)) return;
  const { items } = await run.deps.replays.list({ limit: RECENT_REPLAYS });
  for (const replay of items) {
    if (
      replay.status !== 'completed' ||
      replay.dryRun ||
      !replay.finishedAt ||
      run.nowMs - Date.parse(replay.finishedAt) > STATE_NOTICE_LOOKBACK_SECONDS * 1000
    )
      continue;
    const key = noticeKey(replay.finishedAt, 'replay_completed');
    const target: Target = { kind: 'replay', replay };
    const existing = await run.deps.notices.noticesOf(replay.id, key);
    if (existing.length > 0) await resendStale(run, existing, target);
    else await decideAndSend(run, replay.id, key, 'replay_completed', undefined, target);
  }
}

/** The dedupe point: only the evaluator whose conditional put wrote the notice sends it (others find it decided and leave it). */
async function decideAndSend(
  run: Run,
  subject: string,
  key: string,
  kind: NoticeKind,
  facts: Readonly<Record<string, string>> | undefined,
  target: Target,
): Promise<void> {
  const { deps, nowMs } = run;
  const record: NoticeRecord = {
    subject,
    key,
    kind,
    state: 'decided',
    decidedAt: iso(nowMs),
    leaseUntil: iso(nowMs + deps.noticePolicy.leaseSeconds * 1000),
    tries: 1,
    ...(facts ? { facts } : {}),
  };
  if (!(await deps.notices.decide(record))) return;
  run.report.decided++;
  await sendNotice(run, record, target, 'decided');
}

/** Decided notices whose lease ran out (their worker crashed, or a send failed): taken over, one taker each, and sent. */
async function resendStale(run: Run, notices: readonly NoticeRecord[], target: Target): Promise<void> {
  const { deps, nowMs } = run;
  for (const notice of notices) {
    if (notice.state !== 'decided' || Date.parse(notice.leaseUntil) > nowMs) continue;
    const taken = await deps.notices.takeOver(
      notice.subject,
      notice.key,
      notice.leaseUntil,
      iso(nowMs + deps.noticePolicy.leaseSeconds * 1000),
    );
    if (!taken) continue;
    run.report.resent++;
    await sendNotice(run, taken, target, 'taken_over');
  }
}

/** A notice's payload, read now (a re-send after a crash describes the situation as it is then); undefined when there is nothing left to say. */
async function contentOf(run: Run, notice: NoticeRecord, target: Target): Promise<OperationalEventData | undefined> {
  const { deps, nowMs } = run;
  const noticeId = `${notice.subject}#${notice.key}`;
  if (target.kind === 'replay') {
    const r = target.replay;
    return {
      kind: 'replay_completed',
      noticeId,
      replay: {
        id: r.id,
        operator: r.operator,
        criteria: replayCriteriaView(r.criteria),
        matched: r.matched,
        replayed: r.replayed,
        skipped: r.skipped,
        windowSeconds: r.windowSeconds,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt ?? r.updatedAt,
      },
    };
  }
  const { subscription } = target;
  const anchor = notice.key.slice(0, notice.key.lastIndexOf('#'));
  if (notice.kind === 'auto_paused') {
    return {
      kind: 'auto_paused',
      noticeId,
      subscription: subscriptionRef(subscription),
      reason: notice.facts?.reason ?? subscription.stateReason ?? '',
      pausedAt: anchor,
      deadLetteringSince: subscription.deadLetteringSince ?? null,
      deadLetterStreak: subscription.deadLetterStreak ?? 0,
    };
  }
  if (notice.kind === 'disabled') {
    return {
      kind: 'disabled',
      noticeId,
      subscription: subscriptionRef(subscription),
      reason: notice.facts?.reason ?? subscription.stateReason ?? '',
      disabledAt: anchor,
    };
  }
  if (target.kind !== 'streak') return undefined;
  const c = { subscription, streak: target.streak, noticeId, nowMs };
  switch (notice.kind) {
    case 'failing':
    case 'still_failing':
      return failingContent(deps, c, notice.kind);
    case 'expiring':
      return expiringContent(deps, c);
    case 'lost':
      return lostContent(deps, c);
    case 'recovered': {
      const recoveredAt = notice.facts?.recoveredAt ?? iso(nowMs);
      return {
        kind: 'recovered',
        noticeId,
        subscription: subscriptionRef(subscription),
        failingSince: target.streak.since,
        deadLettersUrl: deadLettersUrl(deps, subscription.id),
        recoveredAt,
        failedForSeconds: Math.round((Date.parse(recoveredAt) - Date.parse(target.streak.since)) / 1000),
        deliveryId: notice.facts?.deliveryId ?? '',
      };
    }
    default:
      return undefined;
  }
}

/**
 * Sends one decided notice held under its lease: the operational webhook first (published with
 * an id derived from the notice, so a second publish is a duplicate the event store refuses),
 * then the email (from the payload the webhook carries), then `sent`. A failure leaves it decided
 * with a later lease, for the next run; a crash leaves it decided until its lease runs out. The
 * only way a person gets a notice twice is a crash (or a lost answer) after the mail service
 * accepted the message and before `sent` was written (docs/operations.md).
 */
async function sendNotice(run: Run, notice: NoticeRecord, target: Target, via: NoticeOutcome['via']): Promise<void> {
  const { deps } = run;
  const { subject, key, kind } = notice;
  try {
    let data = await contentOf(run, notice, target);
    const channels: string[] = [];
    if (!data) channels.push('none:nothing to report');
    else {
      const type = NOTICE_EVENT_TYPES[kind];
      if (run.listenedTypes.has(type)) {
        const eventId = noticeEventId(subject, key);
        const published = await publish(deps, { id: eventId, type, payloadJson: JSON.stringify(data) });
        if (published.kind !== 'accepted') {
          // Published before this send was interrupted: the email says what the webhook said.
          const stored = await deps.events.get(eventId);
          if (stored) data = (JSON.parse(stored.body) as { data: OperationalEventData }).data;
        }
        channels.push(`webhook:${published.kind === 'accepted' ? published.deliveryIds.length : published.kind}`);
      }
      const subscription = target.kind === 'replay' ? undefined : target.subscription;
      const email = subscription && isEmailed(kind) ? renderNoticeEmail(data, deps.clock.now()) : undefined;
      const recipients = noticeRecipients(subscription?.contactEmails, deps.noticeSettings.supportEmail);
      if (email && subscription && recipients.to.length > 0) {
        const mailed = await deps.mailer.send({
          messageId: `<${noticeEventId(subject, key)}@hookline>`,
          ...recipients,
          ...email,
          headers: { 'X-Hookline-Notice': `${subject}#${key}`, 'X-Hookline-Subscription': subscription.id },
        });
        channels.push(`email:${mailed.kind}`);
      } else if (isEmailed(kind)) channels.push('email:none');
    }
    const marked = await deps.notices.markSent(subject, key, notice.leaseUntil, iso(deps.clock.now()), channels);
    if (marked) deps.metrics.count(METRICS.noticesSent);
    run.report.notices.push({ subject, key, kind, via, outcome: marked ? 'sent' : 'lost_lease', channels });
  } catch (error) {
    deps.metrics.count(METRICS.noticeSendFailures);
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const giveUp = notice.tries >= MAX_NOTICE_TRIES;
    const retryAt = iso(
      deps.clock.now() + Math.min(deps.noticePolicy.leaseSeconds * 2 ** (notice.tries - 1), 3600) * 1000,
    );
    await deps.notices
      .markFailed(subject, key, notice.leaseUntil, message.slice(0, 500), retryAt, giveUp)
      .catch(() => false);
    run.report.notices.push({ subject, key, kind, via, outcome: giveUp ? 'gave_up' : 'send_failed', error: message });
  }
}
