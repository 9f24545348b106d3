import { formatId } from '#domain/ids.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import {
  matchesCriteria,
  pacedDueMs,
  spreadDelaySeconds,
  type ReplayCriteria,
  type ReplayRecord,
} from '#domain/replay.ts';
import { isDeadLetter, STATE } from '#domain/states.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { ReplayProgress } from '#ports/replay-store.ts';
import { Slots } from '#app/concurrency.ts';
import { patiently } from '#app/patience.ts';
import type { Budget } from '#app/budget.ts';
import type { Deps } from '#app/deps.ts';
import { NotFoundError, ValidationError } from '#app/errors.ts';
import { iso } from '#domain/time.ts';
import type { RetentionPolicy } from '#domain/retention.ts';
import { keepHistoryFor } from './keep-history.ts';
import { MAX_DEADLINE_SECONDS } from '#domain/retry-policy.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type BulkReplayDeps = Pick<
  Deps,
  | 'replays'
  | 'recovery'
  | 'subscriptions'
  | 'deliveries'
  | 'events'
  | 'attempts'
  | 'queue'
  | 'clock'
  | 'defaultRetryPolicy'
  | 'replayPolicy'
  | 'retention'
>;

/** A worker holds a running replay this long per page; a replay whose worker died is resumed after it. */
export const REPLAY_LEASE_SECONDS = 60;
/** How many matches a dry run shows. */
export const DRY_RUN_SAMPLE = 10;
/** Conditional writes in flight at once within a page: fast, without a burst that throttles the table. */
const REPLAY_CONCURRENCY = 32;

export interface BulkReplayRequest {
  readonly criteria: ReplayCriteria;
  readonly dryRun: boolean;
  /** Who asked (recorded in the audit trail). */
  readonly operator: string;
  /** How the call was authenticated. */
  readonly principal: string;
  /** This replay's spread window, instead of the configured one. */
  readonly windowSeconds?: number;
}

/**
 * Starts a bulk replay: writes its audit record first, then replays page by page until done or
 * out of budget. Each page is checkpointed on the record (cursor and counts), so a replay cut
 * short, by the budget or by a crash, is resumed where it stopped (`resumeStalledReplays`).
 */
export async function startBulkReplay(
  deps: BulkReplayDeps,
  request: BulkReplayRequest,
  budget: Budget,
): Promise<ReplayRecord> {
  const { criteria } = request;
  const earliest = earliestCreatedFrom(deps.clock.now(), deps.retention);
  if (criteria.createdFrom < earliest) {
    throw new ValidationError(
      'createdFrom',
      `must be on or after ${earliest}: older deliveries are past the retention (${Math.max(deps.retention.deliveredDays, deps.retention.deadLetterDays)} days, ` +
        `plus the longest retry deadline) and archived; restore them (hookline restore) and replay them one by one`,
    );
  }
  if (criteria.subscriptionId && !(await deps.subscriptions.get(criteria.subscriptionId))) {
    throw new NotFoundError('subscription', criteria.subscriptionId);
  }
  const windowSeconds = request.windowSeconds ?? deps.replayPolicy.windowSeconds;
  const nowMs = deps.clock.now();
  const owner = workerId(deps);
  const record: ReplayRecord = {
    id: formatId('rpl', deps.clock.randomBytes(16)),
    operator: request.operator,
    principal: request.principal,
    criteria,
    dryRun: request.dryRun,
    windowSeconds,
    status: 'running',
    matched: 0,
    replayed: 0,
    skipped: 0,
    startedAt: iso(nowMs),
    updatedAt: iso(nowMs),
    leaseOwner: owner,
    leaseUntil: iso(nowMs + REPLAY_LEASE_SECONDS * 1000),
  };
  await deps.replays.create(record);
  return run(deps, record, owner, budget);
}

/**
 * Continues a running replay if no live worker holds it; returns the record as it stands.
 * `slots`: the writes in flight it shares with replays resumed beside it.
 */
export async function resumeBulkReplay(
  deps: BulkReplayDeps,
  id: string,
  budget: Budget,
  slots = new Slots(REPLAY_CONCURRENCY),
): Promise<ReplayRecord> {
  const current = await getReplay(deps, id);
  if (current.status !== 'running') return current;
  const nowMs = deps.clock.now();
  const owner = workerId(deps);
  const acquired = await deps.replays.acquire(id, owner, iso(nowMs + REPLAY_LEASE_SECONDS * 1000), iso(nowMs));
  return acquired ? run(deps, acquired, owner, budget, slots) : current;
}

/** Stalled replays one resume call takes on. */
const RESUMED_AT_ONCE = 25;

/**
 * The resume schedule: every running replay whose worker stopped (lease expired) is continued,
 * side by side, sharing one REPLAY_CONCURRENCY of writes in flight: a small replay is not held
 * up behind a big one, and the table sees no more than one replay's load. A replay that fails
 * does not stop the others; the call then fails with its error, once they have all checkpointed.
 */
export async function resumeStalledReplays(deps: BulkReplayDeps, budget: Budget): Promise<readonly ReplayRecord[]> {
  const ids = await deps.replays.listStalled(iso(deps.clock.now()), RESUMED_AT_ONCE);
  const slots = new Slots(REPLAY_CONCURRENCY);
  const outcomes = await Promise.allSettled(ids.map((id) => resumeBulkReplay(deps, id, budget, slots)));
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((o) => (o as PromiseFulfilledResult<ReplayRecord>).value);
}

export async function getReplay(deps: Pick<Deps, 'replays'>, id: string): Promise<ReplayRecord> {
  const record = await deps.replays.get(id);
  if (!record) throw new NotFoundError('replay', id);
  return record;
}

export function listReplays(deps: Pick<Deps, 'replays'>, request: PageRequest): Promise<Page<ReplayRecord>> {
  return deps.replays.list(request);
}

function workerId(deps: BulkReplayDeps): string {
  return `w_${Buffer.from(deps.clock.randomBytes(9)).toString('base64url')}`;
}

interface Progress {
  matched: number;
  replayed: number;
  skipped: number;
  sample: string[];
  cursor?: string;
}

/** The counts and position a checkpoint records. */
function savedProgress(
  record: ReplayRecord,
  progress: Progress,
): Pick<ReplayProgress, 'matched' | 'replayed' | 'skipped' | 'sample' | 'cursor'> {
  return {
    matched: progress.matched,
    replayed: progress.replayed,
    skipped: progress.skipped,
    ...(record.dryRun ? { sample: progress.sample } : {}),
    ...(progress.cursor ? { cursor: progress.cursor } : {}),
  };
}

/**
 * How far back a bulk replay may reach: the longest retention, plus the longest retry deadline
 * (a delivery is created up to that long before it dead-letters and its retention starts).
 * Anything older is archived, and an unbounded range would make the dead-letter walk cross
 * every day since it (`0001-01-01` is 739,000 of them).
 */
export function earliestCreatedFrom(nowMs: number, retention: RetentionPolicy): string {
  const days = Math.max(retention.deliveredDays, retention.deadLetterDays);
  return iso(nowMs - days * DAY_MS - MAX_DEADLINE_SECONDS * 1000);
}

const DAY_MS = 86_400_000;

/**
 * Pages started and not yet checkpointed, at most (and the next page's read under way): the walk
 * reads on while a page's writes are in flight, and the pages' writes share REPLAY_CONCURRENCY
 * slots, so no page waits for the one before it to end. It bounds what a run holds: four pages.
 * (With the pages read across the shards, about 4,100 dead letters a second in the scale model,
 * against 1,200 one page after another, merged.)
 */
const READ_AHEAD_PAGES = 3;

/** A page read and started: its matches, where the walk goes on after it, and its writes. */
interface PageInFlight {
  readonly matches: readonly Delivery[];
  readonly nextCursor: string | undefined;
  readonly outcome: Promise<PageOutcome>;
}

/** A read that failed is kept as its error, so a read ahead never rejects unobserved. */
type PageRead = { readonly page: Page<Delivery> } | { readonly error: unknown };

/** What stops work not yet started: a write still refused, a lease lost. */
interface Stop {
  requested: boolean;
}

async function run(
  deps: BulkReplayDeps,
  record: ReplayRecord,
  owner: string,
  budget: Budget,
  slots = new Slots(REPLAY_CONCURRENCY),
): Promise<ReplayRecord> {
  const progress: Progress = {
    matched: record.matched,
    replayed: record.replayed,
    skipped: record.skipped,
    sample: [...(record.sample ?? [])],
    ...(record.cursor ? { cursor: record.cursor } : {}),
  };
  const ctx: PageContext = {
    deps,
    windowSeconds: record.windowSeconds,
    subscriptions: new Map(),
    pace: { startedAtMs: deps.clock.now(), replayed: new Map() },
    budget,
    slots,
    stop: { requested: false },
  };
  const walk = await sourcesOf(deps, record);
  const read = (cursor: string | undefined): Promise<PageRead> =>
    readPage(walk, cursor, deps.replayPolicy.pageSize).then(
      (p) => ({ page: p }),
      (error: unknown) => ({ error }),
    );
  const inFlight: PageInFlight[] = [];
  let reading: Promise<PageRead> | undefined = read(progress.cursor);
  let readFailure: { readonly error: unknown } | undefined;
  let handedBack = false;
  // Checkpoints where the run stands and hands the lease back at once, so the resume schedule
  // goes on at its next tick instead of after the lease runs out.
  const handBack = async () => {
    const nowMs = deps.clock.now();
    await deps.replays.checkpoint(record.id, owner, {
      ...savedProgress(record, progress),
      status: 'running',
      leaseUntil: iso(nowMs),
      updatedAt: iso(nowMs),
    });
  };
  for (;;) {
    while (reading && inFlight.length < READ_AHEAD_PAGES) {
      const result = await reading;
      reading = undefined;
      if ('error' in result) {
        // The pages already read are finished and checkpointed first; the error then fails the run.
        readFailure = { error: result.error };
        break;
      }
      const matches = result.page.items.filter((d) => matchesCriteria(d, record.criteria, record.startedAt));
      const { nextCursor } = result.page;
      inFlight.push({
        matches,
        nextCursor,
        outcome: record.dryRun ? Promise.resolve({ replayed: 0 }) : replayPage(ctx, matches),
      });
      // No read starts past the budget: the pages in flight end, and the resume schedule goes on.
      if (nextCursor && deps.clock.now() < budget.deadlineMs) reading = read(nextCursor);
    }
    const head = inFlight.shift();
    if (!head) {
      // A read failed with nothing left in flight (the last checkpoint may have handed the lease back already).
      if (!handedBack) await handBack();
      throw (readFailure as { readonly error: unknown }).error;
    }
    const outcome = await head.outcome;
    if (outcome.failure) {
      // Still refused after its retries (a throttled table): nothing more starts; the pages
      // behind it end what they started. Checkpoint at the cursor before this page, counting
      // what was replayed (no longer a dead letter, so the retry neither replays nor counts it
      // again).
      ctx.stop.requested = true;
      let replayed = outcome.replayed;
      for (const later of inFlight) replayed += (await later.outcome).replayed;
      progress.matched += replayed;
      progress.replayed += replayed;
      await handBack();
      throw outcome.failure.error;
    }
    progress.matched += head.matches.length;
    if (record.dryRun)
      progress.sample.push(...head.matches.slice(0, DRY_RUN_SAMPLE - progress.sample.length).map((d) => d.id));
    else {
      progress.replayed += outcome.replayed;
      progress.skipped += head.matches.length - outcome.replayed;
    }
    if (head.nextCursor) progress.cursor = head.nextCursor;
    else delete progress.cursor;

    const nowMs = deps.clock.now();
    const done = head.nextCursor === undefined;
    // Nothing more this run (out of time, or a read failed): the lease goes back with this checkpoint.
    handedBack = !done && inFlight.length === 0 && !reading;
    const saved: ReplayProgress = {
      ...savedProgress(record, progress),
      status: done ? 'completed' : 'running',
      ...(done ? { finishedAt: iso(nowMs) } : {}),
      leaseUntil: iso(handedBack ? nowMs : nowMs + REPLAY_LEASE_SECONDS * 1000),
      updatedAt: iso(nowMs),
    };
    if (!(await deps.replays.checkpoint(record.id, owner, saved))) {
      // Lost the lease (this worker stalled and another resumed): stop; the pages in flight end
      // what they started, and the other worker carries on from its checkpoint.
      ctx.stop.requested = true;
      await Promise.all(inFlight.map((p) => p.outcome));
      return getReplay(deps, record.id);
    }
    if (done || (handedBack && !readFailure)) return { ...record, ...saved, leaseOwner: owner };
  }
}

/** What every page of one run shares. */
interface PageContext {
  readonly deps: BulkReplayDeps;
  readonly windowSeconds: number;
  readonly subscriptions: Map<string, Promise<Subscription | undefined>>;
  readonly pace: Pace;
  readonly budget: Budget;
  readonly slots: Slots;
  readonly stop: Stop;
}

/**
 * Replays one page: each delivery conditionally back to pending with its next attempt spread over
 * the window and a fresh deadline counted from that attempt, then one message per delivery,
 * delayed to its slot. A crash between the two leaves pending deliveries without a message,
 * which the sweeper re-enqueues once they are overdue.
 *
 * A delivery whose writes are refused (a throttled partition, after the SDK's own retries) is
 * tried again patiently (app/patience.ts), within the budget, holding one of the run's slots
 * while the others go on. What is still refused is the page's `failure`, and stops the run's
 * deliveries not yet started; what succeeded is enqueued either way.
 */
async function replayPage(ctx: PageContext, matches: readonly Delivery[]): Promise<PageOutcome> {
  const { deps, budget, stop } = ctx;
  const messages: DeliveryMessage[] = [];
  let failure: { readonly error: unknown } | undefined;
  await Promise.all(
    matches.map((d) =>
      ctx.slots.run(async () => {
        if (stop.requested) return;
        try {
          const message = await patiently(deps.clock, () => replayOne(ctx, d), budget.deadlineMs);
          if (message) messages.push(message);
        } catch (error) {
          failure ??= { error };
          stop.requested = true;
        }
      }),
    ),
  );
  await deps.queue.enqueue(messages);
  return failure ? { replayed: messages.length, failure } : { replayed: messages.length };
}

/** A page's result: how many deliveries it replayed, and what refused one if a write was still refused. */
interface PageOutcome {
  readonly replayed: number;
  readonly failure?: { readonly error: unknown };
}

/**
 * A run's pace for rate-limited subscriptions: when it started, and how many deliveries it has
 * replayed to each (a resumed run starts a pace of its own; the rate gate sees to any overlap).
 */
interface Pace {
  readonly startedAtMs: number;
  readonly replayed: Map<string, number>;
}

/** When a delivery replayed to `subscription` is due at the earliest: for a rate-limited one, its turn in the run's pace (domain/replay.ts). */
function pacedDue(pace: Pace, subscription: Subscription | undefined): number | undefined {
  const limit = subscription?.rateLimitPerSecond;
  if (!subscription || !limit) return undefined;
  const k = pace.replayed.get(subscription.id) ?? 0;
  pace.replayed.set(subscription.id, k + 1);
  return pacedDueMs(limit, pace.startedAtMs, k);
}

/** One delivery back to pending; its message, or nothing when it is skipped or no longer a dead letter. */
async function replayOne(ctx: PageContext, d: Delivery): Promise<DeliveryMessage | undefined> {
  const { deps, windowSeconds, subscriptions, pace } = ctx;
  if (!subscriptions.has(d.subscriptionId))
    subscriptions.set(d.subscriptionId, deps.subscriptions.get(d.subscriptionId));
  const subscription = await subscriptions.get(d.subscriptionId);
  // A disabled endpoint answered 410 Gone, a deleted subscription is history: a replay would only dead-letter again. Counted as skipped.
  if (subscription?.state === 'disabled' || subscription?.state === 'deleted') return undefined;
  const policy = subscription?.retryPolicy ?? deps.defaultRetryPolicy;
  const nowMs = deps.clock.now();
  const spreadMs = nowMs + spreadDelaySeconds(windowSeconds, deps.clock.random()) * 1000;
  // A paced one's message carries its turn: SQS's whole seconds bring it back up to a second early, and the gate holds the rest.
  const turnMs = pacedDue(pace, subscription);
  const paced = turnMs !== undefined && turnMs > spreadMs;
  const dueMs = paced ? turnMs : spreadMs;
  const delaySeconds = Math.max(0, Math.floor((dueMs - nowMs) / 1000));
  const giveUpAtMs = dueMs + policy.deadlineSeconds * 1000;
  await keepHistoryFor(deps, d, giveUpAtMs);
  const replayed = await deps.deliveries.replay(d.id, iso(nowMs), iso(giveUpAtMs), iso(dueMs));
  if (!replayed) return undefined;
  return paced ? { ...dueMessage(replayed, delaySeconds), notBefore: iso(dueMs) } : dueMessage(replayed, delaySeconds);
}

/** One index range the replay reads, named by a token; tokens sort in walk order. */
interface Source {
  readonly token: string;
  read(cursor: string | undefined, limit: number): Promise<Page<Delivery>>;
}

/**
 * The index ranges that can hold matches, in a fixed order: dead letters through the
 * dead-letter indexes (changed between `createdFrom` and the replay's start, since a delivery
 * changes only after it is created), delivered ones through each subscription's creation-time
 * index. A tenant's replay reads only that tenant's subscriptions.
 */
async function sourcesOf(deps: BulkReplayDeps, record: ReplayRecord): Promise<readonly Source[]> {
  const c = record.criteria;
  const needsList = !c.subscriptionId && (c.tenantId !== undefined || c.states.includes(STATE.delivered));
  const listed = needsList
    ? (await deps.subscriptions.all())
        .filter((s) => c.tenantId === undefined || s.tenantId === c.tenantId)
        .map((s) => s.id)
        .sort()
    : [];
  const scoped = c.subscriptionId ? [c.subscriptionId] : listed;
  const sources: Source[] = [];
  // A replay needs every match once, in no order: a sharded range is read every shard at once, a share each.
  const walk = { anyOrder: true } as const;
  if (c.states.some((s) => isDeadLetter(s))) {
    const range = { changedFrom: c.createdFrom, changedTo: record.startedAt };
    if (c.subscriptionId || c.tenantId !== undefined) {
      for (const subscriptionId of scoped) {
        sources.push({
          token: `dl:${subscriptionId}`,
          read: (cursor, limit) =>
            deps.recovery.listDeadLettersChanged({
              ...range,
              ...walk,
              subscriptionId,
              limit,
              ...(cursor ? { cursor } : {}),
            }),
        });
      }
    } else {
      sources.push({
        token: 'dl:*',
        read: (cursor, limit) =>
          deps.recovery.listDeadLettersChanged({ ...range, ...walk, limit, ...(cursor ? { cursor } : {}) }),
      });
    }
  }
  if (c.states.includes(STATE.delivered)) {
    const createdTo = c.createdTo < record.startedAt ? c.createdTo : record.startedAt;
    for (const subscriptionId of scoped) {
      sources.push({
        token: `dv:${subscriptionId}`,
        read: (cursor, limit) =>
          deps.recovery.listCreated({
            ...walk,
            subscriptionId,
            createdFrom: c.createdFrom,
            createdTo,
            limit,
            ...(cursor ? { cursor } : {}),
          }),
      });
    }
  }
  return sources.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
}

/** The replay's cursor: which source, and where within it. */
interface WalkCursor {
  readonly s: string;
  readonly c?: string;
}

async function readPage(
  sources: readonly Source[],
  cursor: string | undefined,
  limit: number,
): Promise<Page<Delivery>> {
  const at = decodeWalkCursor(cursor);
  let index = at ? sources.findIndex((s) => s.token >= at.s) : 0;
  if (index < 0) return { items: [] };
  let inner = at && sources[index]!.token === at.s ? at.c : undefined;
  const items: Delivery[] = [];
  while (index < sources.length && items.length < limit) {
    const source = sources[index]!;
    const page = await source.read(inner, limit - items.length);
    items.push(...page.items);
    if (page.nextCursor) {
      // More in this source, whether the page is full or the source stopped early (its
      // deadline, a 1 MB page): hand the position back so it is checkpointed before reading on.
      return { items, nextCursor: encodeWalkCursor({ s: source.token, c: page.nextCursor }) };
    } else {
      index++;
      inner = undefined;
    }
  }
  return index < sources.length ? { items, nextCursor: encodeWalkCursor({ s: sources[index]!.token }) } : { items };
}

function encodeWalkCursor(cursor: WalkCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeWalkCursor(cursor: string | undefined): WalkCursor | undefined {
  if (!cursor) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as WalkCursor;
    if (typeof value.s !== 'string' || (value.c !== undefined && typeof value.c !== 'string')) throw new Error('shape');
    return value;
  } catch (cause) {
    // The cursor lives on our own audit record; a bad one is corruption, not user input.
    throw new ValidationError('cursor', 'the replay checkpoint is unreadable', { cause });
  }
}
