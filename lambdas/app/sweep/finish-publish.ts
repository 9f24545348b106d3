import type { Deps } from '#app/deps.ts';
import { firstDeliveryOf, untouchedSincePublish } from '#app/publish/first-delivery.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import { iso } from '#domain/time.ts';
import { expectationOf, NO_ROW, type EventRecord } from '#domain/types.ts';
import { INGEST_MANIFEST_SHARDS, MANIFEST_SETTLE_SECONDS } from '#config/topology.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';
import type { IngestManifest, ManifestWatermark } from '#ports/ingest-manifest-store.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type FinishPublishDeps = Pick<
  Deps,
  'ingestManifests' | 'events' | 'deliveries' | 'subscriptions' | 'queue' | 'clock' | 'defaultRetryPolicy'
>;

export interface FinishReport {
  /** Publish batches checked (their manifests older than the cut-off and past their shard's watermark). */
  readonly manifests: number;
  /** Deliveries of theirs not attempted yet, enqueued again (their row written first where it was missing). */
  readonly deliveries: number;
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
): Promise<FinishReport> {
  const settled = iso(deps.clock.now() - MANIFEST_SETTLE_SECONDS * 1000);
  const marks = new Map((await deps.ingestManifests.watermarks()).map((w) => [w.shard, w]));
  let manifests = 0;
  let deliveries = 0;
  // Each run starts at another shard, so a backlog larger than one run's limit is worked off in every shard alike.
  const first = Math.floor(deps.clock.now() / 60_000) % INGEST_MANIFEST_SHARDS;
  for (let n = 0; n < INGEST_MANIFEST_SHARDS && manifests < limit; n++) {
    const shard = `m${(first + n) % INGEST_MANIFEST_SHARDS}`;
    const mark = marks.get(shard);
    const seen = new Set(mark?.checked ?? []);
    const budget = limit - manifests;
    // The keys remembered beyond the watermark come back in this read too; they are skipped, not counted.
    const listed = await deps.ingestManifests.listAfter(
      shard,
      mark?.checkedBefore ?? '',
      beforeIso,
      budget + seen.size,
    );
    const due = listed.filter((m) => !seen.has(m.key)).slice(0, budget);
    if (due.length === 0) continue;
    for (const manifest of due) deliveries += await finishOne(deps, manifest);
    manifests += due.length;
    await deps.ingestManifests.setWatermark(
      nextWatermark(shard, mark, due, { beforeIso, settled, complete: due.length < budget }),
      mark,
    );
  }
  return { manifests, deliveries };
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

/** One batch's check: the deliveries enqueued again. */
async function finishOne(deps: FinishPublishDeps, manifest: IngestManifest): Promise<number> {
  const rows = await deps.deliveries.getMany(manifest.deliveryIds);
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
  if (written.size < new Set(manifest.deliveryIds).size)
    messages.push(...(await writeMissing(deps, manifest.eventIds, written)));
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
    for (const [i, deliveryId] of event.deliveryIds.entries()) {
      if (written.has(deliveryId)) continue;
      const sub = await deps.subscriptions.get(event.subscriptionIds[i]!);
      if (!sub) continue;
      const delivery = firstDeliveryOf(event, sub, deps.defaultRetryPolicy, deps.clock.now());
      // Its first write, the row it waits in: a late first attempt recorded meanwhile writes over it, and the due message then sends nothing.
      if (await deps.deliveries.write('reschedule', delivery, NO_ROW)) messages.push(dueMessage(delivery));
    }
  }
  return messages;
}
