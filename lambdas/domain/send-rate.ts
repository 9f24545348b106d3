/**
 * A subscription's send rate limit (`rateLimitPerSecond`, L): the window arithmetic behind the
 * sender's rate gate (app/send/rate-gate.ts), pure. docs/design.md, "Rate limits", states the
 * rule; the unit tests check the bound for many L.
 *
 * Each second is cut into S = min(L, 10) equal sub-windows, aligned to the epoch, and each
 * sub-window has a quota: floor(L/S) or ceil(L/S), the larger ones first, so that any S
 * consecutive sub-windows hold exactly L. A 1 s window (half-open, anywhere) overlaps at most
 * S + 1 consecutive sub-windows: S of them (exactly L) and one more (at most ceil(L/S)). So at
 * most L + ceil(L/10) attempts start in any 1 s window, and a busy second still has room for L.
 * (For L = 20: 100 ms sub-windows of 2, at most 22 in any second. Where ceil(L/10) divides L this
 * is the same as sub-windows of 1000·q/L ms with q = ceil(L/10); otherwise the quotas alternate
 * so that windows stay aligned to whole seconds, which the turns below need.)
 */

/** The bounds of `rateLimitPerSecond` (a whole number; absent means unlimited). */
export const SEND_RATE_LIMIT_MIN = 1;
export const SEND_RATE_LIMIT_MAX = 10_000;

/** The sub-window an attempt falls in, for one limit. */
export interface SendWindow {
  readonly limit: number;
  /** Sub-windows since the epoch: the counter's key. */
  readonly index: number;
  /** The whole second (since the epoch) it lies in. */
  readonly second: number;
  /** Its place in that second, 0 .. S-1: the same phase recurs every second. */
  readonly slot: number;
  /** How many attempts may start in it. */
  readonly quota: number;
  /** When it begins (epoch ms). */
  readonly startsAtMs: number;
  /** When it ends (epoch ms). */
  readonly endsAtMs: number;
}

/** Sub-windows per second for a limit: 10, or L itself below 10 (a quota of one each). */
export function subWindowsPerSecond(limit: number): number {
  return Math.min(limit, 10);
}

/** The quota of the sub-window at `slot` of every second: the remainder goes to the first slots. */
export function quotaAt(limit: number, slot: number): number {
  const perSecond = subWindowsPerSecond(limit);
  return Math.floor(limit / perSecond) + (slot < limit % perSecond ? 1 : 0);
}

/** The sub-window `nowMs` falls in. */
export function sendWindowAt(limit: number, nowMs: number): SendWindow {
  const perSecond = subWindowsPerSecond(limit);
  // Integer arithmetic: ms × S stays far below 2^53, so no sub-window boundary is lost to rounding.
  const index = Math.floor((Math.floor(nowMs) * perSecond) / 1000);
  const second = Math.floor(index / perSecond);
  const slot = index - second * perSecond;
  return {
    limit,
    index,
    second,
    slot,
    quota: quotaAt(limit, slot),
    startsAtMs: Math.ceil((index * 1000) / perSecond),
    endsAtMs: Math.ceil(((index + 1) * 1000) / perSecond),
  };
}

/** Whether the attempt counted `count`-th in its sub-window may start (the count includes it). */
export function admits(window: SendWindow, count: number): boolean {
  return count <= window.quota;
}

/** The most attempts that can start in any 1 s window: L + ceil(L/10) (the README's guarantee). */
export function maxInAnySecond(limit: number): number {
  return limit + Math.ceil(limit / subWindowsPerSecond(limit));
}

/*
 * Turns. A delivery the gate holds back takes a turn: one queue per subscription and limit,
 * whose turn n is place n mod L of second floor(n / L), and the places of a second are its
 * sub-windows' quotas in order. So the turns of a backlog cover every sub-window of every second,
 * L a second, whatever phase the deliveries were held back at. A turn names the sub-window to
 * come back in; SQS waits in whole seconds, so the sender holds the rest of the wait itself
 * (app/send/rate-gate.ts). A turn is a forecast, never a right: the sub-window count decides on
 * its return too.
 */

/** How many places the slots before `slot` of a second hold (the larger quotas come first). */
function placesBefore(limit: number, slot: number): number {
  const perSecond = subWindowsPerSecond(limit);
  return slot * Math.floor(limit / perSecond) + Math.min(slot, limit % perSecond);
}

/** The earliest turn a delivery held back in `window` may take: the first place of the sub-window after it. */
export function earliestTurn(window: SendWindow): number {
  const perSecond = subWindowsPerSecond(window.limit);
  const next = window.index + 1;
  const second = Math.floor(next / perSecond);
  return second * window.limit + placesBefore(window.limit, next - second * perSecond);
}

/** The sub-window turn `turn` of a queue for `limit` comes back in. */
export function turnWindow(limit: number, turn: number): SendWindow {
  const perSecond = subWindowsPerSecond(limit);
  const second = Math.floor(turn / limit);
  const place = turn - second * limit;
  const big = Math.floor(limit / perSecond) + 1;
  const bigSlots = limit % perSecond;
  // The first `bigSlots` slots hold one place more than the others.
  const slot =
    place < bigSlots * big ? Math.floor(place / big) : bigSlots + Math.floor((place - bigSlots * big) / (big - 1));
  return sendWindowAt(limit, Math.ceil(((second * perSecond + slot) * 1000) / perSecond));
}

/*
 * The count's lead. An attempt must start in the sub-window that admitted it, so a count that
 * comes back after its sub-window ended wastes a place there (the attempt is counted again
 * where it now starts). When counts take a while (a busy table: on the local emulator, a bulk
 * replay's writes took them from 5 ms to 300 ms, past the 100 ms sub-windows of 20/s), the gate
 * counts in the sub-window a count's lead from now and holds for it if back early.
 */

/** The most a count's lead can be: a second, beyond which a count that slow is a stage error's business. */
const MAX_COUNT_LEAD_MS = 1000;

/**
 * How far ahead the next count aims (ms), from the previous lead and how long the latest count
 * took: as long as the slowest recent count (it rises to a slower one at once, and eases off by a
 * tenth a count), so that a count comes back before the sub-window it counted in has ended.
 */
export function countLead(previousMs: number, latestMs: number): number {
  return Math.min(MAX_COUNT_LEAD_MS, Math.max(latestMs, previousMs * 0.9));
}

/**
 * The most of `times` (epoch ms, any order) in any half-open 1 s window [a, a + 1000): what the
 * bound above promises, measured the way a receiver sees it.
 */
export function mostInAnySecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
