import { healthSeries, seriesSpans, type HealthSeries } from '#domain/health-series.ts';
import { iso } from '#domain/time.ts';
import { HEALTH_SAMPLE, summarizeHealth, type AttemptFacts, type HealthFigures } from '#domain/subscription-health.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import { type Principal, visibleSubscription } from '#app/access.ts';
import { forEachLimit } from '#app/concurrency.ts';
import { attemptPage } from '#app/deliveries/deliveries.ts';
import type { Deps } from '#app/deps.ts';
import { listSubscriptionDeliveries } from '#app/deliveries/reads.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';
import type { SubscriptionStatsQuery } from '#app/subscriptions/subscription-stats-request.ts';

export type SubscriptionStatsDeps = UnwrittenDeps & Pick<Deps, 'attempts' | 'clock'>;

/** A subscription's health over a window, and how much was read to work it out. */
export interface SubscriptionStats {
  readonly subscription: Subscription;
  readonly windowHours: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly figures: HealthFigures;
  /** The same reads in equal buckets over the window, for a chart. */
  readonly series: HealthSeries;
  /** Deliveries read (created since `fromMs` minus the retry deadline), at most HEALTH_SAMPLE.deliveries. */
  readonly examined: number;
  /** Attempts read for the deliveries touched in the window. */
  readonly attemptsExamined: number;
  /** A bound cut the read short: older deliveries, or older attempts of one delivery, that could count were not read. */
  readonly sampled: boolean;
}

/** Deliveries per listing page: the store's BatchGet takes 100 keys at a time. */
const PAGE = 100;
/** Attempt logs read at once: quick without a burst that throttles the attempts table. */
const ATTEMPT_READS_IN_FLIGHT = 8;
const HOUR_MS = 3_600_000;

/**
 * The stats of a subscription the principal may see (another tenant's is NotFoundError, like an
 * unknown id). Computed at read time, writing nothing: the subscription's deliveries newest
 * first (by creation), back to the window's start minus the retry deadline, since a delivery
 * created that long before the window can still finish (expire) inside it; then the latest
 * attempts of those updated in the window (a delivery's `updatedAt` is never before its last
 * attempt). Both reads are bounded by HEALTH_SAMPLE.
 */
export async function getSubscriptionStats(
  deps: SubscriptionStatsDeps,
  principal: Principal,
  id: string,
  query: SubscriptionStatsQuery,
): Promise<SubscriptionStats> {
  const subscription = await visibleSubscription(deps, principal, id);
  const toMs = deps.clock.now();
  const fromMs = toMs - query.windowHours * HOUR_MS;
  const deadlineSeconds = (subscription.retryPolicy ?? deps.defaultRetryPolicy).deadlineSeconds;
  const { deliveries, cut } = await recentDeliveries(deps, id, fromMs - deadlineSeconds * 1000);

  // A bound that cut the read short leaves the window's older buckets unread: each gets a sample of its own.
  const older = cut ? await earlierSample(deps, id, { fromMs, toMs }, Date.parse(deliveries.at(-1)!.createdAt)) : NONE;
  const touched = [...deliveries, ...older.deliveries].filter((d) => Date.parse(d.updatedAt) >= fromMs);
  const attempts: AttemptFacts[] = [];
  let attemptsCut = false;
  await forEachLimit(touched, ATTEMPT_READS_IN_FLIGHT, async (d) => {
    // The whole log: the latest attempt is kept on the row itself.
    const page = await attemptPage(deps, d, { limit: HEALTH_SAMPLE.attemptsPerDelivery });
    attempts.push(...page.items);
    // The page is oldest first: if even its oldest attempt is in the window, earlier ones may be too.
    const oldest = page.items[0];
    if (page.nextCursor && oldest && Date.parse(oldest.startedAt) >= fromMs) attemptsCut = true;
  });

  // The window's figures are the newest deliveries' (their attempts among all those read); the chart's older buckets the samples'.
  const newest = new Set(deliveries.map((d) => d.id));
  const read = { fromMs, toMs, deliveries, attempts: attempts.filter((a) => newest.has(a.deliveryId)) };
  const all = { fromMs, toMs, deliveries: [...deliveries, ...older.deliveries], attempts };
  return {
    subscription,
    windowHours: query.windowHours,
    fromMs,
    toMs,
    figures: summarizeHealth(read),
    series: healthSeries(all, older.sampled),
    examined: deliveries.length,
    attemptsExamined: attempts.length,
    sampled: cut || attemptsCut,
  };
}

const NONE: { deliveries: readonly Delivery[]; sampled: ReadonlySet<number> } = { deliveries: [], sampled: new Set() };
/** Bucket samples read at once. */
const SAMPLE_READS_IN_FLIGHT = 4;

/**
 * For each of the window's chart buckets (domain/health-series.ts) that begins before
 * `beforeMs` (the oldest delivery the newest read reached), the newest deliveries created in it
 * and before `beforeMs`, up to HEALTH_SAMPLE.deliveries ÷ the bucket count: a chart of a busy
 * endpoint then spans the whole window, not only its last minutes, for at most twice the reads.
 * A bucket whose read stopped at that bound is `sampled`.
 */
async function earlierSample(
  deps: Pick<Deps, 'deliveries'>,
  subscriptionId: string,
  window: { readonly fromMs: number; readonly toMs: number },
  beforeMs: number,
): Promise<{ deliveries: readonly Delivery[]; sampled: ReadonlySet<number> }> {
  const { spans } = seriesSpans(window.fromMs, window.toMs);
  const perBucket = Math.ceil(HEALTH_SAMPLE.deliveries / spans.length);
  const deliveries: Delivery[] = [];
  const sampled = new Set<number>();
  const reached = spans.map((span, index) => ({ span, index })).filter(({ span }) => span.fromMs < beforeMs);
  await forEachLimit(reached, SAMPLE_READS_IN_FLIGHT, async ({ span, index }) => {
    const page = await deps.deliveries.listBySubscription({
      subscriptionId,
      limit: perBucket,
      since: iso(span.fromMs),
      // `until` is inclusive: the millisecond before the bucket's end, or before the newest read's oldest.
      until: iso(Math.min(span.toMs, beforeMs) - 1),
    });
    deliveries.push(...page.items);
    if (page.nextCursor) sampled.add(index);
  });
  return { deliveries, sampled };
}

/**
 * The subscription's deliveries created at or after `sinceMs`, newest first (those not yet
 * written too: app/deliveries/reads.ts), at most HEALTH_SAMPLE.deliveries; `cut` when that
 * bound left some unread.
 */
async function recentDeliveries(
  deps: UnwrittenDeps,
  subscriptionId: string,
  sinceMs: number,
): Promise<{ deliveries: Delivery[]; cut: boolean }> {
  const deliveries: Delivery[] = [];
  let cursor: string | undefined;
  do {
    const page = await listSubscriptionDeliveries(deps, {
      subscriptionId,
      limit: Math.min(PAGE, HEALTH_SAMPLE.deliveries - deliveries.length),
      ...(cursor ? { cursor } : {}),
    });
    for (const d of page.items) {
      // Newest first: the first one older than the look-back ends the read.
      if (Date.parse(d.createdAt) < sinceMs) return { deliveries, cut: false };
      deliveries.push(d);
    }
    cursor = page.nextCursor;
  } while (cursor && deliveries.length < HEALTH_SAMPLE.deliveries);
  if (!cursor) return { deliveries, cut: false };
  // Stopped at the bound with more listed: one more key says whether the bound left out any that count.
  const next = (await listSubscriptionDeliveries(deps, { subscriptionId, limit: 1, cursor })).items[0];
  return { deliveries, cut: next !== undefined && Date.parse(next.createdAt) >= sinceMs };
}
