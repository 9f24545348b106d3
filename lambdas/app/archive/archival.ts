import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  archiveCutoffs,
  archiveDay,
  archiveObjectKey,
  archivePrefix,
  daysBetween,
  decodeArchive,
  encodeArchive,
  isArchivable,
  isSubscriptionArchivable,
  planBatches,
  subscriptionArchiveKey,
  type ArchiveRecord,
} from '#domain/archive.ts';
import { attemptLog, hasLoggedAttempts } from '#domain/attempt-log.ts';
import type { Delivery, EventRecord, Subscription } from '#domain/types.ts';
import type { ArchiveBatch } from '#ports/archive.ts';
import type { Budget } from '#app/budget.ts';
import { forEachLimit } from '#app/concurrency.ts';
import type { Deps } from '#app/deps.ts';
import { ArchiveLockLostError, ArchiveVerificationError } from '#app/errors.ts';
import { iso } from '#domain/time.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type ArchiveDeps = Pick<
  Deps,
  | 'recovery'
  | 'archive'
  | 'manifests'
  | 'subscriptions'
  | 'deliveries'
  | 'events'
  | 'attempts'
  | 'clock'
  | 'retention'
  | 'archivePolicy'
>;

/** DynamoDB and S3 calls in flight at once within a batch. */
const CONCURRENCY = 16;

export interface ArchiveRunOptions {
  readonly budget: Budget;
  /** Stop after this many new objects (the CLI runs in slices to show progress). */
  readonly maxObjects?: number;
}

export interface ArchiveReport {
  /** `done`: nothing archivable is left; `partial`: stopped by the budget or maxObjects; `busy`: another run holds the lock. */
  readonly kind: 'done' | 'partial' | 'busy';
  /** Objects written and verified. */
  readonly objects: number;
  /** Deliveries whose rows were deleted after their object was verified. */
  readonly archived: number;
  /** Rows that changed after they were written to an object: kept, and archived again once old enough. */
  readonly kept: number;
  /** Restored rows past their hold, deleted without a new object (the archive already holds them). */
  readonly dropped: number;
  /** Unfinished batches of an interrupted earlier run, finished first. */
  readonly resumed: number;
  /** Deleted subscriptions past their retention, written to the archive and removed. */
  readonly subscriptions: number;
}

type MutableReport = { -readonly [K in keyof ArchiveReport]: ArchiveReport[K] };

/**
 * Moves terminal deliveries older than the retention to the archive bucket and deletes their
 * rows. Per batch (one day of one subscription, at most `batchSize` deliveries): record the
 * batch in the manifest table, write the gzip NDJSON object under a key derived from its ids,
 * read it back and check it, mark the batch written, delete the rows (each unless it changed
 * since), drop the manifest. An interrupted run leaves a manifest that the next run finishes
 * first, so a crash anywhere loses nothing and archives nothing twice. Events are not deleted
 * here: they go by their TTL (eventTtlFor, extended for dead letters and restores), which is
 * free, where a delete is a paid write unit.
 */
export async function runArchive(deps: ArchiveDeps, options: ArchiveRunOptions): Promise<ArchiveReport> {
  const report: MutableReport = {
    kind: 'done',
    objects: 0,
    archived: 0,
    kept: 0,
    dropped: 0,
    resumed: 0,
    subscriptions: 0,
  };
  const owner = `arch_${Buffer.from(deps.clock.randomBytes(9)).toString('base64url')}`;
  const lock = () => {
    const nowMs = deps.clock.now();
    return deps.manifests.lock(owner, iso(nowMs + deps.archivePolicy.lockSeconds * 1000), iso(nowMs));
  };
  if (!(await lock())) return { ...report, kind: 'busy' };
  try {
    for (const batch of await deps.manifests.list()) {
      await finishBatch(deps, batch, report);
      report.resumed++;
    }
    const nowMs = deps.clock.now();
    const cutoffs = archiveCutoffs(nowMs, deps.retention);
    const batchSize = deps.archivePolicy.batchSize;
    const stop = () =>
      deps.clock.now() >= options.budget.deadlineMs ||
      (options.maxObjects !== undefined && report.objects >= options.maxObjects);
    const all = await deps.subscriptions.all();
    const subscriptionIds = all.map((s) => s.id).sort();
    const byId = new Map(all.map((s) => [s.id, s]));

    for (const subscriptionId of subscriptionIds) {
      let cursor: string | undefined;
      // Rows of the last, possibly incomplete day wait here for the next page before they are batched.
      let buffer: Delivery[] = [];
      do {
        if (stop()) return { ...report, kind: 'partial' };
        // A batch left by a run that stalled and lost the lock is finished before this page is
        // read, so none of its rows can be batched a second time under another key.
        const foreign = await deps.manifests.list();
        for (const batch of foreign) {
          await finishBatch(deps, batch, report);
          report.resumed++;
        }
        // Rows held over from the last page may have been in such a batch: read them again next run.
        if (foreign.length > 0) buffer = [];
        const page = await deps.recovery.listCreated({
          subscriptionId,
          createdTo: cutoffs.latest,
          limit: batchSize,
          ...(cursor ? { cursor } : {}),
        });
        cursor = page.nextCursor;
        const eligible: Delivery[] = [];
        for (const d of page.items) {
          if (!isArchivable(d, cutoffs)) continue;
          if (d.restored && d.restored.updatedAt === d.updatedAt) {
            // Unchanged since it was restored: the archive already holds this exact row.
            if (d.restored.until <= iso(deps.clock.now()) && (await deps.recovery.deleteArchived(d.id, d.updatedAt)))
              report.dropped++;
            continue;
          }
          eligible.push(d);
        }
        const batches = planBatches([...buffer, ...eligible], batchSize);
        buffer = cursor && batches.length > 0 ? batches.pop()! : [];
        for (const items of batches) {
          if (stop()) return { ...report, kind: 'partial' };
          if (!(await lock())) return { ...report, kind: 'busy' };
          await archiveBatch(deps, subscriptionId, items, report, lock);
        }
      } while (cursor);
      const subscription = byId.get(subscriptionId)!;
      if (isSubscriptionArchivable(subscription, cutoffs) && (await archiveSubscription(deps, subscription)))
        report.subscriptions++;
    }
    return report;
  } finally {
    await deps.manifests.unlock(owner);
  }
}

/**
 * Writes a deleted subscription's row (without its sealed secrets, which are useless without the
 * key and would only widen what a bucket reader holds) to the archive, reads it back, and only
 * then removes the row. Not while any delivery of it is still in DynamoDB (a row kept because it
 * changed, a restored one): those still read their subscription.
 */
async function archiveSubscription(deps: ArchiveDeps, subscription: Subscription): Promise<boolean> {
  const left = await deps.recovery.listCreated({
    subscriptionId: subscription.id,
    createdTo: iso(deps.clock.now()),
    limit: 1,
  });
  if (left.items.length > 0) return false;
  const { secrets: _s, ...row } = subscription;
  const key = subscriptionArchiveKey(subscription.id, subscription.stateChangedAt);
  const body = gzipSync(JSON.stringify({ v: 1, subscription: row, archivedAt: iso(deps.clock.now()) }));
  const sha256 = sha256Hex(body);
  await deps.archive.put(key, body, sha256);
  const stored = await deps.archive.get(key);
  if (!stored || sha256Hex(stored) !== sha256)
    throw new ArchiveVerificationError(key, 'the stored subscription differs from the written one');
  return deps.subscriptions.removeDeleted(subscription.id);
}

async function archiveBatch(
  deps: ArchiveDeps,
  subscriptionId: string,
  items: readonly Delivery[],
  report: MutableReport,
  lock: () => Promise<boolean>,
): Promise<void> {
  const day = archiveDay(items[0]!);
  const batch: ArchiveBatch = {
    objectKey: archiveObjectKey(
      day,
      subscriptionId,
      items.map((d) => d.id),
    ),
    subscriptionId,
    day,
    items: items.map((d) => ({ id: d.id, updatedAt: d.updatedAt })),
    phase: 'writing',
    createdAt: iso(deps.clock.now()),
  };
  await deps.manifests.put(batch);
  await writeVerified(deps, batch, items);
  report.objects++;
  await deps.manifests.setPhase(batch.objectKey, 'written');
  if (!(await lock())) throw new ArchiveLockLostError(batch.objectKey);
  await deleteRows(deps, batch, report);
  await deps.manifests.delete(batch.objectKey);
}

/**
 * Finishes a batch an earlier run left behind. `written`: the object is verified, so only the
 * deletes remain. `writing`: no row was deleted yet; the object is written again (same key,
 * so it replaces whatever the crashed run may have written) from the rows that are still the
 * version the batch recorded.
 */
async function finishBatch(deps: ArchiveDeps, batch: ArchiveBatch, report: MutableReport): Promise<void> {
  if (batch.phase === 'writing') {
    const recorded = new Map(batch.items.map((i) => [i.id, i.updatedAt]));
    const rows = (await deps.deliveries.getMany(batch.items.map((i) => i.id))).filter(
      (d) => recorded.get(d.id) === d.updatedAt,
    );
    if (rows.length === 0) {
      await deps.archive.delete(batch.objectKey);
      await deps.manifests.delete(batch.objectKey);
      return;
    }
    const rewritten: ArchiveBatch = { ...batch, items: rows.map((d) => ({ id: d.id, updatedAt: d.updatedAt })) };
    if (rows.length !== batch.items.length) await deps.manifests.put(rewritten);
    await writeVerified(deps, rewritten, rows);
    report.objects++;
    await deps.manifests.setPhase(batch.objectKey, 'written');
    batch = rewritten;
  }
  await deleteRows(deps, batch, report);
  await deps.manifests.delete(batch.objectKey);
}

/** Writes the batch's object and reads it back before any of its rows may go. */
async function writeVerified(deps: ArchiveDeps, batch: ArchiveBatch, rows: readonly Delivery[]): Promise<void> {
  const events = new Map<string, Promise<EventRecord | undefined>>();
  const archivedAt = iso(deps.clock.now());
  const records: ArchiveRecord[] = new Array(rows.length);
  await forEachLimit(rows, CONCURRENCY, async (d, i) => {
    if (!events.has(d.eventId)) events.set(d.eventId, deps.events.get(d.eventId));
    // A row that holds every attempt it made has none in the table: the query is not made.
    const logged = hasLoggedAttempts(d) ? deps.attempts.list(d.id) : [];
    const [stored, event] = await Promise.all([logged, events.get(d.eventId)!]);
    const { restored: _r, ...delivery } = d;
    records[i] = {
      v: 1,
      delivery,
      // The whole log, the attempts the row holds inline included: the object is read without Hookline (Athena).
      attempts: attemptLog(d, stored),
      ...(event ? { event: { id: event.id, type: event.type, body: event.body, createdAt: event.createdAt } } : {}),
      archivedAt,
    };
  });
  const body = gzipSync(encodeArchive(records));
  const sha256 = sha256Hex(body);
  await deps.archive.put(batch.objectKey, body, sha256);

  // Read it back before any row goes: the bytes, the records, and exactly the batch's versions.
  const stored = await deps.archive.get(batch.objectKey);
  if (!stored) throw new ArchiveVerificationError(batch.objectKey, 'the object is not there after writing it');
  if (sha256Hex(stored) !== sha256)
    throw new ArchiveVerificationError(batch.objectKey, 'the stored bytes differ from the written ones');
  const back = decodeArchive(gunzipSync(stored).toString('utf8'), batch.objectKey);
  const expected = new Map(batch.items.map((i) => [i.id, i.updatedAt]));
  const seen = new Set<string>();
  for (const r of back) {
    if (expected.get(r.delivery.id) !== r.delivery.updatedAt || seen.has(r.delivery.id)) {
      throw new ArchiveVerificationError(batch.objectKey, `unexpected record ${r.delivery.id}@${r.delivery.updatedAt}`);
    }
    seen.add(r.delivery.id);
  }
  if (seen.size !== expected.size)
    throw new ArchiveVerificationError(batch.objectKey, `holds ${seen.size} of ${expected.size} records`);
}

async function deleteRows(deps: ArchiveDeps, batch: ArchiveBatch, report: MutableReport): Promise<void> {
  await forEachLimit(batch.items, CONCURRENCY, async (item) => {
    if (await deps.recovery.deleteArchived(item.id, item.updatedAt)) report.archived++;
    else report.kept++;
  });
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface RestoreRequest {
  /** First and last day (YYYY-MM-DD, UTC) of the deliveries' creation. */
  readonly from: string;
  readonly to: string;
  readonly subscriptionId?: string;
}

export interface RestoreReport {
  readonly days: number;
  readonly objects: number;
  /** Archived records read (the newest version of each delivery counts once). */
  readonly records: number;
  readonly restored: number;
  /** Deliveries already in the table (restored before, or live again): left untouched. */
  readonly present: number;
  /** Restored rows stay until this time, then the archiver drops them again. */
  readonly until: string;
}

/**
 * Brings an archived range back into DynamoDB (for a dispute): every delivery created on those
 * days, with its attempts and body, put-if-absent so a re-run or an overlapping range changes
 * nothing. Restored rows are marked, so the archiver later drops them instead of archiving them again.
 */
export async function restoreArchive(deps: ArchiveDeps, request: RestoreRequest): Promise<RestoreReport> {
  const days = daysBetween(request.from, request.to);
  const nowMs = deps.clock.now();
  const until = iso(nowMs + deps.archivePolicy.restoreHoldDays * 86_400_000);
  let objects = 0;
  let records = 0;
  let restored = 0;
  let present = 0;
  for (const day of days) {
    const keys = await deps.archive.list(archivePrefix(day, request.subscriptionId));
    const newest = new Map<string, { record: ArchiveRecord; key: string }>();
    for (const key of keys) {
      const bytes = await deps.archive.get(key);
      if (!bytes) continue;
      objects++;
      for (const record of decodeArchive(gunzipSync(bytes).toString('utf8'), key)) {
        // A delivery replayed after it was archived is archived again later: its newest version wins.
        const seen = newest.get(record.delivery.id);
        if (!seen || seen.record.delivery.updatedAt < record.delivery.updatedAt)
          newest.set(record.delivery.id, { record, key });
      }
    }
    records += newest.size;
    for (const { record, key } of newest.values()) {
      const put = await deps.recovery.restore(record, { objectKey: key, until, updatedAt: record.delivery.updatedAt });
      if (put) restored++;
      else present++;
    }
  }
  return { days: days.length, objects, records, restored, present, until };
}
