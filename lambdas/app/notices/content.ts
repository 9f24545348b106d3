import { attemptSucceeded, HEALTH_SAMPLE, summarizeHealth, type AttemptFacts } from '#domain/subscription-health.ts';
import { isLive, LOST_SUMMARY_EVENTS, RECENT_EVENTS, type NoticeKind } from '#domain/notices.ts';
import { isDeadLetter, isTerminal, STATE } from '#domain/states.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import type { Streak } from '#ports/notice-store.ts';
import { forEachLimit } from '#app/concurrency.ts';
import { attemptPage } from '#app/deliveries/deliveries.ts';
import type { Deps } from '#app/deps.ts';
import type {
  AttemptRef,
  EventRef,
  ExpiringEvent,
  FailingEvent,
  LostSummaryEvent,
} from '#app/notices/operational-events.ts';

/**
 * What the notifier reads to decide and to write a notice, all at read time from what
 * Hookline keeps anyway (deliveries, their attempts, dead letters), like the subscription stats:
 * nothing is counted while sending.
 */
export type ContentDeps = Pick<Deps, 'deliveries' | 'attempts' | 'events' | 'consoleSettings'>;

/** Newest deliveries read when a notice's figures are written, and when a streak starts. */
export const FIGURES_SAMPLE = 50;
/** A streak's start is looked for this far back in the attempts (the stats' longest window). */
const START_LOOKBACK_MS = 7 * 86_400_000;
/** Dead letters counted for a lost summary, at most (100 pages); past it the counts are lower bounds. */
const LOST_COUNT_LIMIT = 10_000;
const ATTEMPT_READS_IN_FLIGHT = 8;

/** The subscription as every payload names it. */
export function subscriptionRef(s: Subscription) {
  return { id: s.id, url: s.url, tenantId: s.tenantId ?? null, description: s.description ?? null };
}

/**
 * Where a notice points for the subscription's dead letters: the web dashboard's page of them
 * (its hash route, dashboard/src/route.ts) when the deployment names one, else the API path.
 */
export function deadLettersUrl(deps: Pick<Deps, 'consoleSettings'>, subscriptionId: string): string {
  const id = encodeURIComponent(subscriptionId);
  const base = deps.consoleSettings.consoleUrl?.replace(/\/+$/, '');
  return base ? `${base}#/subscriptions/${id}?tab=dead-letters` : `/v1/dead-letters?subscriptionId=${id}`;
}

/** The subscription's newest deliveries (by creation), at most `limit`. */
export async function newestDeliveries(
  deps: Pick<Deps, 'deliveries'>,
  subscriptionId: string,
  limit: number,
): Promise<readonly Delivery[]> {
  return (await deps.deliveries.listBySubscription({ subscriptionId, limit })).items;
}

/** The delivery still being tried with the earliest retry deadline, among `rows`. */
export function oldestLiveOf(rows: readonly Delivery[]): Streak['oldestLive'] {
  const live = rows.filter(isLive).sort((a, b) => a.giveUpAt.localeCompare(b.giveUpAt))[0];
  return live ? { deliveryId: live.id, giveUpAt: live.giveUpAt } : undefined;
}

/**
 * Where a failure streak began, from the attempts of the subscription's newest deliveries: the
 * first failed attempt after the newest 2xx (summarizeHealth's `failingSince`, the same rule as
 * the stats). Undefined when the newest attempt succeeded after all. Read once per streak, when
 * it starts; the streak record keeps the answer, so later reads never move it.
 */
export async function findStreakStart(
  deps: Pick<Deps, 'deliveries' | 'attempts'>,
  subscriptionId: string,
  nowMs: number,
): Promise<{ since: string; rows: readonly Delivery[] } | undefined> {
  const rows = await newestDeliveries(deps, subscriptionId, FIGURES_SAMPLE);
  const attempted = rows.filter((d) => d.attemptSeq > 0 || d.firstAttempt !== undefined);
  const attempts: AttemptFacts[] = [];
  await forEachLimit(attempted, ATTEMPT_READS_IN_FLIGHT, async (d) => {
    attempts.push(...(await attemptPage(deps, d, { limit: HEALTH_SAMPLE.attemptsPerDelivery })).items);
  });
  const since = summarizeHealth({
    fromMs: nowMs - START_LOOKBACK_MS,
    toMs: nowMs,
    deliveries: rows,
    attempts,
  }).failingSince;
  return since ? { since, rows } : undefined;
}

/**
 * The 2xx that ended a streak: the delivery's latest attempt, when it succeeded and began at or
 * after `since` (not a slow success from before the streak that was recorded after it).
 */
export async function succeededSince(
  deps: Pick<Deps, 'attempts'>,
  delivery: Delivery,
  since: string,
): Promise<{ at: string; deliveryId: string } | undefined> {
  if (delivery.state !== STATE.delivered) return undefined;
  const latest = (await attemptPage(deps, delivery, { limit: 1 })).items.at(-1);
  if (!latest || !attemptSucceeded(latest) || latest.startedAt < since) return undefined;
  return { at: latest.startedAt, deliveryId: delivery.id };
}

/** Each row's latest attempt, for those whose latest attempt failed, newest first. */
function recentAttempts(rows: readonly Delivery[]): AttemptRef[] {
  return rows
    .filter(
      (d) =>
        d.state !== STATE.delivered &&
        d.state !== STATE.inFlight &&
        (d.attempts > 0 || isTerminal(d.state)) &&
        (d.lastStatus !== undefined || d.lastError !== undefined),
    )
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, RECENT_EVENTS)
    .map((d) => ({
      deliveryId: d.id,
      at: d.updatedAt,
      status: d.lastStatus ?? null,
      error: d.lastStatus === undefined ? (d.lastError ?? null) : null,
    }));
}

async function recentEvents(deps: Pick<Deps, 'events'>, rows: readonly Delivery[]): Promise<EventRef[]> {
  const newest = rows.slice(0, RECENT_EVENTS);
  const types = new Map((await deps.events.getSummaries(newest.map((d) => d.eventId))).map((e) => [e.id, e.type]));
  return newest.map((d) => ({
    eventId: d.eventId,
    eventType: types.get(d.eventId) ?? null,
    createdAt: d.createdAt,
    deliveryId: d.id,
    state: d.state,
    attempts: d.attempts,
    lastStatus: d.lastStatus ?? null,
  }));
}

/** The oldest delivery still being tried: the streak's recorded one if it still is, else the oldest live one among `rows`. */
async function currentOldestLive(
  deps: Pick<Deps, 'deliveries'>,
  streak: Streak,
  rows: readonly Delivery[],
): Promise<Delivery | undefined> {
  const recorded =
    streak.oldestLive &&
    (rows.find((d) => d.id === streak.oldestLive!.deliveryId) ??
      (await deps.deliveries.get(streak.oldestLive.deliveryId)));
  const candidates = [...(recorded && isLive(recorded) ? [recorded] : []), ...rows.filter(isLive)];
  return candidates.sort((a, b) => a.giveUpAt.localeCompare(b.giveUpAt))[0];
}

interface StreakContext {
  readonly subscription: Subscription;
  readonly streak: Streak;
  readonly noticeId: string;
  readonly nowMs: number;
}

/** The payload of a failing (1 h) or still-failing (24 h) notice. */
export async function failingContent(
  deps: ContentDeps,
  c: StreakContext,
  kind: Extract<NoticeKind, 'failing' | 'still_failing'>,
): Promise<FailingEvent> {
  const rows = await newestDeliveries(deps, c.subscription.id, FIGURES_SAMPLE);
  const oldest = await currentOldestLive(deps, c.streak, rows);
  return {
    kind,
    noticeId: c.noticeId,
    subscription: subscriptionRef(c.subscription),
    failingSince: c.streak.since,
    deadLettersUrl: deadLettersUrl(deps, c.subscription.id),
    failingForSeconds: Math.round((c.nowMs - Date.parse(c.streak.since)) / 1000),
    recentAttempts: recentAttempts(rows),
    retryingUntil: oldest?.giveUpAt ?? null,
    recentEvents: await recentEvents(deps, rows),
  };
}

/** The payload of an expiring notice; undefined when nothing is being tried any more (the notice has nothing to warn of). */
export async function expiringContent(deps: ContentDeps, c: StreakContext): Promise<ExpiringEvent | undefined> {
  const rows = await newestDeliveries(deps, c.subscription.id, FIGURES_SAMPLE);
  const oldest = await currentOldestLive(deps, c.streak, rows);
  if (!oldest) return undefined;
  return {
    kind: 'expiring',
    noticeId: c.noticeId,
    subscription: subscriptionRef(c.subscription),
    failingSince: c.streak.since,
    deadLettersUrl: deadLettersUrl(deps, c.subscription.id),
    failingForSeconds: Math.round((c.nowMs - Date.parse(c.streak.since)) / 1000),
    expiresAt: oldest.giveUpAt,
    oldestPending: { deliveryId: oldest.id, eventId: oldest.eventId, createdAt: oldest.createdAt },
    recentAttempts: recentAttempts(rows),
    recentEvents: await recentEvents(deps, rows),
  };
}

/**
 * The payload of a lost summary: every delivery dead-lettered since the streak began, counted by
 * kind (at most LOST_COUNT_LIMIT read), the oldest LOST_SUMMARY_EVENTS of them listed with their
 * event types. The dead-letter index is eventually consistent, so the newest deliveries' rows
 * (read from the table) fill in any dead letter the index does not show yet.
 */
export async function lostContent(deps: ContentDeps, c: StreakContext): Promise<LostSummaryEvent> {
  const found = new Map<string, Delivery>();
  let cursor: string | undefined;
  let bounded = false;
  do {
    const page = await deps.deliveries.listDeadLetters({
      subscriptionId: c.subscription.id,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    let older = false;
    for (const d of page.items) {
      // Newest first: the first one from before the streak ends the walk.
      if (d.updatedAt < c.streak.since) {
        older = true;
        break;
      }
      found.set(d.id, d);
    }
    cursor = older ? undefined : page.nextCursor;
    if (cursor && found.size >= LOST_COUNT_LIMIT) {
      bounded = true;
      cursor = undefined;
    }
  } while (cursor);
  for (const d of await newestDeliveries(deps, c.subscription.id, FIGURES_SAMPLE)) {
    if (isDeadLetter(d.state) && d.updatedAt >= c.streak.since) found.set(d.id, d);
  }
  const all = [...found.values()].sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id.localeCompare(b.id));
  const listed = all.slice(0, LOST_SUMMARY_EVENTS);
  const types = new Map((await deps.events.getSummaries(listed.map((d) => d.eventId))).map((e) => [e.id, e.type]));
  return {
    kind: 'lost',
    noticeId: c.noticeId,
    subscription: subscriptionRef(c.subscription),
    failingSince: c.streak.since,
    deadLettersUrl: deadLettersUrl(deps, c.subscription.id),
    expired: all.filter((d) => d.state === STATE.expired).length,
    failed: all.filter((d) => d.state === STATE.failed).length,
    events: listed.map((d) => ({
      eventId: d.eventId,
      eventType: types.get(d.eventId) ?? null,
      deliveryId: d.id,
      state: d.state === STATE.failed ? STATE.failed : STATE.expired,
      deadLetteredAt: d.updatedAt,
      lastStatus: d.lastStatus ?? null,
      lastError: d.lastError ?? null,
    })),
    truncated: bounded || all.length > listed.length,
  };
}

/** Whether anything was dead-lettered since `since` (one dead-letter index read). */
export async function lostSince(
  deps: Pick<Deps, 'deliveries'>,
  subscriptionId: string,
  since: string,
  rows: readonly Delivery[],
): Promise<boolean> {
  if (rows.some((d) => isDeadLetter(d.state) && d.updatedAt >= since)) return true;
  const newest = (await deps.deliveries.listDeadLetters({ subscriptionId, limit: 1 })).items[0];
  return newest !== undefined && newest.updatedAt >= since;
}
