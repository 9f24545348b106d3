import type { Deps } from '#app/deps.ts';
import { firstDeliveryOf, untouchedSincePublish } from '#app/publish/first-delivery.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import { eventTtlFor } from '#domain/retention.ts';
import { iso } from '#domain/time.ts';
import { expectationOf, NO_ROW, type Delivery, type EventRecord } from '#domain/types.ts';
import {
  INGEST_MANIFEST_SHARDS,
  MANIFEST_SETTLE_SECONDS,
  SWEEP_READ_ROWS_PER_SECOND,
  SWEEP_READ_SLICE_ROWS,
} from '#config/topology.ts';
import { ReadPace } from '#app/read-pace.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';
import type { IngestManifest, ManifestWatermark } from '#ports/ingest-manifest-store.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type FinishPublishDeps = Pick<
  Deps,
  'ingestManifests' | 'events' | 'deliveries' | 'subscriptions' | 'queue' | 'clock' | 'defaultRetryPolicy' | 'retention'
>;

export interface FinishReport {
  /** Publish batches checked (their manifests older than the cut-off and past their shard's watermark). */
  readonly manifests: number;
  /** Deliveries of theirs not attempted yet, enqueued again (their row written first where it was missing). */
  readonly deliveries: number;
  /** Some shard had `limit` or more to check: there may be more behind them. */
  readonly full: boolean;
}

/**
 * Checks the publish batches older than the sweeper's grace: every delivery must have a row
 * that left its first state (publish writes none; the first attempt writes it with its outcome,
 * a pause or a rate-limit wait writes it and moves it). One with no row, or with a row still as
 * first written, lost its message or never got one (a publish that stopped half-way, a purged
 * queue, a backlog longer than the grace): a missing row is written from the stored event, a
 * row still as first written is put in the sweeper's view, due now, and either is enqueued. A fresh message older than the
 * grace (counted, like this, from the publish) reads its row before it is attempted
 * (app/send/attempt.ts), so one still on its way when this runs finds the row and stops.
 *
 * Every shard is checked at once, up to `limit` manifests each, and a shard's manifests share
 * their row reads (BatchGets of 100 keys, not one per manifest): single publishes make one
 * manifest each, so checking them one at a time could not keep up with a few hundred a second.
 * The reads go at the run's pace (SWEEP_READ_ROWS_PER_SECOND over all shards), a slice of about
 * SWEEP_READ_SLICE_ROWS rows at a time, and no slice starts past the run's budget: at that pace a
 * pass of 16 full shards would read for minutes. A slice refused by the table (throttled past the
 * SDK's retries), or the budget, ends a shard's check with the watermark past the slices done;
 * a refusal goes up once every shard has finished.
 *
 * The manifests stay (they are the event log, until TTL takes them): each shard's watermark
 * says how far this got, shard by shard, oldest first, and moves once per shard and run, not
 * once per manifest. It never passes a key younger than MANIFEST_SETTLE_SECONDS, because a
 * publish may still be writing one that old; a grace shorter than that (tests) remembers the
 * keys it checked beyond the watermark instead of checking them again.
 */
export async function finishPublishes(
  deps: FinishPublishDeps,
  beforeIso: string,
  limit: number,
  run: CheckRun = checkRun(deps.clock),
): Promise<FinishReport> {
  const settled = iso(deps.clock.now() - MANIFEST_SETTLE_SECONDS * 1000);
  const marks = new Map((await deps.ingestManifests.watermarks()).map((w) => [w.shard, w]));
  const shards = Array.from({ length: INGEST_MANIFEST_SHARDS }, (_, i) => `m${i}`);
  const settledShards = await Promise.allSettled(
    shards.map((shard) => finishShard(deps, shard, marks.get(shard), { beforeIso, settled, limit }, run)),
  );
  const refused = settledShards.find((r) => r.status === 'rejected');
  if (refused) throw refused.reason;
  const reports = settledShards.map((r) => (r as PromiseFulfilledResult<FinishReport>).value);
  return {
    manifests: reports.reduce((n, r) => n + r.manifests, 0),
    deliveries: reports.reduce((n, r) => n + r.deliveries, 0),
    full: reports.some((r) => r.full),
  };
}

/** One shard's check: up to `limit` manifests past its watermark, then the watermark moved past them. */
async function finishShard(
  deps: FinishPublishDeps,
  shard: string,
  mark: ManifestWatermark | undefined,
  at: { readonly beforeIso: string; readonly settled: string; readonly limit: number },
  run: CheckRun,
): Promise<FinishReport> {
  const seen = new Set(mark?.checked ?? []);
  // The keys remembered beyond the watermark come back in this read too; they are skipped, not counted.
  const listed = await deps.ingestManifests.listAfter(
    shard,
    mark?.checkedBefore ?? '',
    at.beforeIso,
    at.limit + seen.size,
  );
  const due = listed.filter((m) => !seen.has(m.key)).slice(0, at.limit);
  if (due.length === 0) return { manifests: 0, deliveries: 0, full: false };
  let deliveries = 0;
  let checked = 0;
  try {
    for (const slice of slices(due, SWEEP_READ_SLICE_ROWS)) {
      // Past the run's budget: the rest waits for the next run, as a pass not started would.
      if (checked > 0 && deps.clock.now() >= run.deadlineMs) break;
      await run.pace.take(slice.reduce((n, m) => n + m.deliveryIds.length, 0));
      deliveries += await finishMany(deps, slice);
      checked += slice.length;
    }
  } catch (error) {
    // What was checked stays checked: the next run goes on from there instead of reading it all again.
    if (checked > 0)
      await deps.ingestManifests.setWatermark(
        nextWatermark(shard, mark, due.slice(0, checked), { ...at, complete: false }),
        mark,
      );
    throw error;
  }
  const done = due.slice(0, checked);
  const complete = checked === due.length && due.length < at.limit;
  await deps.ingestManifests.setWatermark(nextWatermark(shard, mark, done, { ...at, complete }), mark);
  return { manifests: done.length, deliveries, full: !complete };
}

/** A sweeper run's check: the read pace its shards share, and when it stops starting slices (its budget). */
export interface CheckRun {
  readonly pace: ReadPace;
  readonly deadlineMs: number;
}

/** A run reading at SWEEP_READ_ROWS_PER_SECOND until `deadlineMs` (none: a check called on its own). */
export function checkRun(clock: Clock, deadlineMs = Number.POSITIVE_INFINITY): CheckRun {
  return { pace: new ReadPace(clock, SWEEP_READ_ROWS_PER_SECOND), deadlineMs };
}

/** Manifests in order, cut into runs of about `rows` deliveries (a manifest larger than that alone). */
function slices(manifests: readonly IngestManifest[], rows: number): IngestManifest[][] {
  const out: IngestManifest[][] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const m of manifests) {
    if (size + m.deliveryIds.length > rows) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(m);
    size += m.deliveryIds.length;
  }
  return out;
}

/**
 * Where a shard's watermark goes once `checked` (oldest first) were checked: up to the cut-off
 * when the read was complete, else to the last one checked; never past `settled`, nor back.
 */
export function nextWatermark(
  shard: string,
  previous: ManifestWatermark | undefined,
  checked: readonly IngestManifest[],
  at: { readonly beforeIso: string; readonly settled: string; readonly complete: boolean },
): ManifestWatermark {
  const reached = at.complete ? at.beforeIso : checked.at(-1)!.key;
  const candidate = reached < at.settled ? reached : at.settled;
  const checkedBefore = previous && previous.checkedBefore > candidate ? previous.checkedBefore : candidate;
  const keys = new Set([...(previous?.checked ?? []), ...checked.map((m) => m.key)]);
  return { shard, checkedBefore, checked: [...keys].filter((k) => k >= checkedBefore).sort() };
}

/** Manifests' check, their rows read together: the deliveries enqueued again. */
async function finishMany(deps: FinishPublishDeps, manifests: readonly IngestManifest[]): Promise<number> {
  // Eventually consistent, at half the price: the check runs past the grace, long after the rows'
  // writes, and everything it does with what it read is conditional, so a stale row costs a refused write.
  const rows = await deps.deliveries.getMany(
    manifests.flatMap((m) => m.deliveryIds),
    'eventual',
  );
  const nowIso = iso(deps.clock.now());
  const messages: DeliveryMessage[] = [];
  // A row an earlier version wrote before any attempt, out of the sweeper's index: due now, and in view.
  for (const row of rows.filter(untouchedSincePublish)) {
    if (
      await deps.deliveries.write(
        'reschedule',
        { ...row, nextAttemptAt: nowIso, updatedAt: nowIso },
        expectationOf(row),
      )
    )
      messages.push(dueMessage(row));
  }
  const written = new Set(rows.map((d) => d.id));
  const short = manifests.filter((m) => m.deliveryIds.some((id) => !written.has(id)));
  if (short.length > 0)
    messages.push(
      ...(await writeMissing(
        deps,
        short.flatMap((m) => m.eventIds),
        written,
      )),
    );
  await deps.queue.enqueue(messages);
  return messages.length;
}

/** Rows publish never wrote, from the events it stored (an event not stored was never accepted). */
async function writeMissing(
  deps: FinishPublishDeps,
  eventIds: readonly string[],
  written: ReadonlySet<string>,
): Promise<DeliveryMessage[]> {
  const messages: DeliveryMessage[] = [];
  const events = (await Promise.all(eventIds.map((id) => deps.events.get(id)))).filter(
    (e): e is EventRecord => e !== undefined,
  );
  for (const event of events) {
    const rebuilt: Delivery[] = [];
    for (const [i, deliveryId] of event.deliveryIds.entries()) {
      if (written.has(deliveryId)) continue;
      const sub = await deps.subscriptions.get(event.subscriptionIds[i]!);
      if (sub) rebuilt.push(firstDeliveryOf(event, sub, deps.defaultRetryPolicy, deps.clock.now()));
    }
    if (rebuilt.length === 0) continue;
    // Publish kept the event for the deadlines of then; a subscription that has since lengthened its own must not outlive the body.
    const lastGiveUpAtMs = Math.max(...rebuilt.map((d) => Date.parse(d.giveUpAt)));
    await deps.events.extendRetention(event.id, eventTtlFor(lastGiveUpAtMs, deps.retention));
    for (const delivery of rebuilt) {
      // Its first write, the row it waits in: a late first attempt recorded meanwhile writes over it, and the due message then sends nothing.
      if (await deps.deliveries.write('reschedule', delivery, NO_ROW)) messages.push(dueMessage(delivery));
    }
  }
  return messages;
}
