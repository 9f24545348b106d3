import type { Deps } from '#app/deps.ts';
import { firstDelivery, untouchedSincePublish } from '#app/publish/first-delivery.ts';
import { iso } from '#domain/time.ts';
import type { EventRecord } from '#domain/types.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type FinishPublishDeps = Pick<Deps, 'ingestManifests' | 'events' | 'deliveries' | 'subscriptions' | 'queue' | 'clock' | 'defaultRetryPolicy'>;

export interface FinishReport {
  /** Publish batches checked (their manifests older than the cut-off), then deleted. */
  readonly manifests: number;
  /** Deliveries of theirs not attempted yet, enqueued again (their row written first where it was missing). */
  readonly deliveries: number;
}

/**
 * Checks the publish batches older than the sweeper's grace: every delivery must have left the
 * row publish wrote (its first attempt, or a pause, moved it). One that did not lost its
 * message or never got one (a publish that stopped half-way, a purged queue): it is put in the
 * sweeper's view, due now, and enqueued; a row that was never written is written from the
 * stored event. Then the manifest goes. The sender takes the happy path only for a message
 * younger than the grace less a claim lease (send.ts), so a message still on its way when this
 * runs is claimed, never attempted unclaimed beside this one.
 */
export async function finishPublishes(deps: FinishPublishDeps, beforeIso: string, limit: number): Promise<FinishReport> {
  const manifests = await deps.ingestManifests.listBefore(beforeIso, limit);
  let deliveries = 0;
  for (const manifest of manifests) {
    const rows = await deps.deliveries.getMany(manifest.deliveryIds);
    const nowIso = iso(deps.clock.now());
    const messages: DeliveryMessage[] = [];
    for (const row of rows.filter(untouchedSincePublish)) {
      if (await deps.deliveries.reschedule(row.id, row.nextAttemptAt, nowIso, nowIso)) messages.push({ deliveryId: row.id, subscriptionId: row.subscriptionId });
    }
    const written = new Set(rows.map((d) => d.id));
    if (written.size < new Set(manifest.deliveryIds).size) messages.push(...(await writeMissing(deps, manifest.eventIds, written)));
    await deps.queue.enqueue(messages);
    await deps.ingestManifests.delete(manifest);
    deliveries += messages.length;
  }
  return { manifests: manifests.length, deliveries };
}

/** Rows publish never wrote, from the events it stored (an event not stored was never accepted). */
async function writeMissing(deps: FinishPublishDeps, eventIds: readonly string[], written: ReadonlySet<string>): Promise<DeliveryMessage[]> {
  const messages: DeliveryMessage[] = [];
  const events = (await Promise.all(eventIds.map((id) => deps.events.get(id)))).filter((e): e is EventRecord => e !== undefined);
  for (const event of events) {
    for (const [i, deliveryId] of event.deliveryIds.entries()) {
      if (written.has(deliveryId)) continue;
      const sub = await deps.subscriptions.get(event.subscriptionIds[i]!);
      if (!sub) continue;
      const policy = sub.retryPolicy ?? deps.defaultRetryPolicy;
      const delivery = firstDelivery(event, sub, Date.parse(event.createdAt) + policy.deadlineSeconds * 1000, deps.clock.now());
      if (await deps.deliveries.create(delivery)) messages.push({ deliveryId, subscriptionId: sub.id });
    }
  }
  return messages;
}
