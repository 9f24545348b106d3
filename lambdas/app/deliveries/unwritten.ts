import { firstDeliveryOf } from '#app/publish/first-delivery.ts';
import type { Deps } from '#app/deps.ts';
import { archiveCutoffs } from '#domain/archive.ts';
import { deliveryIdFor, deliveryIdParts, isDeliveryOf, listKeyOf } from '#domain/ids.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import { INGEST_MANIFEST_SHARDS, UNCHECKED_MANIFESTS_PER_SHARD } from '#config/topology.ts';
import type { IngestManifest } from '#ports/ingest-manifest-store.ts';

/**
 * Deliveries published but not yet written. Publish writes no delivery row: a delivery's first
 * attempt writes it, in its outcome's state, with the attempt inline (a first try's one
 * write). Until then the delivery exists in its publish batch's manifest and in its queue
 * message, and is read from the manifest here, as the row it will be written as (pending, no
 * attempt). Only manifests the sweeper has not checked yet can hold one: the sweeper writes
 * every missing row of a manifest it checks (app/sweep/finish-publish.ts) before its watermark
 * passes it. And only a batch younger than the retention: a row can be gone (archived) only
 * past it, so a delivery of an older batch with no row is gone, not unwritten, whether or not
 * the sweeper got to its manifest.
 */
export type UnwrittenDeps = Pick<
  Deps,
  'deliveries' | 'ingestManifests' | 'events' | 'subscriptions' | 'defaultRetryPolicy' | 'clock' | 'retention'
>;

/**
 * The manifests the sweeper has not checked yet, every shard's; with `createdAt`, only the ones
 * of that instant (a delivery id says when its batch was created). A listing reads them before
 * its rows, and a read by id after the rows and before the rows again (reads.ts), so a delivery
 * written meanwhile shows as its row or as unwritten, never as neither.
 */
async function uncheckedManifests(
  deps: Pick<UnwrittenDeps, 'ingestManifests' | 'clock' | 'retention'>,
  createdAt?: string,
): Promise<readonly IngestManifest[]> {
  const archivable = archiveCutoffs(deps.clock.now(), deps.retention).latest;
  if (createdAt !== undefined && createdAt < archivable) return [];
  const marks = new Map((await deps.ingestManifests.watermarks()).map((w) => [w.shard, w]));
  const shards = await Promise.all(
    Array.from({ length: INGEST_MANIFEST_SHARDS }, async (_, k) => {
      const mark = marks.get(`m${k}`);
      const checked = new Set(mark?.checked ?? []);
      const from = [mark?.checkedBefore ?? '', archivable].reduce((a, b) => (a > b ? a : b));
      // Keys are `<createdAt>#<batch>`: the bare instant sorts just before its own.
      const after = createdAt !== undefined && createdAt > from ? createdAt : from;
      const before = createdAt !== undefined ? `${createdAt}#\uffff` : '\uffff';
      const listed = await deps.ingestManifests.listAfter(`m${k}`, after, before, UNCHECKED_MANIFESTS_PER_SHARD);
      return listed.filter((m) => !checked.has(m.key) && (createdAt === undefined || m.createdAt === createdAt));
    }),
  );
  return shards.flat();
}

/** A delivery of a manifest: its id and the event it is of. */
interface Listed {
  readonly id: string;
  readonly eventId: string;
  readonly createdAt: string;
  readonly subscriptionId: string;
}

/** The deliveries of `manifests` that `wanted` picks, each paired with its event (its id is derived from the event's). */
function listedIn(manifests: readonly IngestManifest[], wanted: (id: string) => boolean): Listed[] {
  const out: Listed[] = [];
  for (const m of manifests) {
    const ids = new Set(m.deliveryIds.filter(wanted));
    if (ids.size === 0) continue;
    const subscriptions = new Set(
      [...ids].map((id) => deliveryIdParts(id)?.subscriptionId).filter((s): s is string => s !== undefined),
    );
    for (const eventId of m.eventIds) {
      for (const subscriptionId of subscriptions) {
        const id = deliveryIdFor(eventId, subscriptionId, m.createdAt);
        if (ids.has(id)) out.push({ id, eventId, createdAt: m.createdAt, subscriptionId });
      }
    }
  }
  return out;
}

/**
 * Of `listed`, the ones with no row, as the rows they will be written as. An event the publish
 * never stored (it stopped, or the id was taken: a repeat lists ids under its own time) has no
 * delivery, nor has a subscription that is gone.
 */
async function asUnwritten(deps: UnwrittenDeps, listed: readonly Listed[]): Promise<Delivery[]> {
  if (listed.length === 0) return [];
  const rows = new Set((await deps.deliveries.getMany(listed.map((l) => l.id))).map((d) => d.id));
  const missing = listed.filter((l) => !rows.has(l.id));
  if (missing.length === 0) return [];
  const events = new Map(
    (await deps.events.getSummaries([...new Set(missing.map((l) => l.eventId))])).map((e) => [e.id, e]),
  );
  const subscriptions = new Map<string, Subscription | undefined>();
  for (const s of new Set(missing.map((l) => l.subscriptionId))) subscriptions.set(s, await deps.subscriptions.get(s));
  const out: Delivery[] = [];
  for (const l of missing) {
    const event = events.get(l.eventId);
    const subscription = subscriptions.get(l.subscriptionId);
    if (!event || !subscription || event.createdAt !== l.createdAt || !event.deliveryIds.includes(l.id)) continue;
    // The id derives from (event, subscription, createdAt), checked against the stored event above: firstDeliveryOf gives the same.
    out.push(
      firstDeliveryOf(
        { id: l.eventId, type: event.type, createdAt: l.createdAt },
        subscription,
        deps.defaultRetryPolicy,
        Date.parse(l.createdAt),
      ),
    );
  }
  return out;
}

/** One subscription's deliveries not yet written, oldest first. */
export async function unwrittenOfSubscription(
  deps: UnwrittenDeps,
  subscriptionId: string,
): Promise<readonly Delivery[]> {
  const manifests = await uncheckedManifests(deps);
  const found = await asUnwritten(
    deps,
    listedIn(manifests, (id) => isDeliveryOf(id, subscriptionId)),
  );
  return found.sort((a, b) => (listKeyOf(a) < listKeyOf(b) ? -1 : 1));
}

/** Of `ids`, the deliveries with no row that are not yet written. */
export async function unwrittenByIds(deps: UnwrittenDeps, ids: readonly string[]): Promise<readonly Delivery[]> {
  const times = new Set(ids.map((id) => deliveryIdParts(id)?.createdAt).filter((t): t is string => t !== undefined));
  const wanted = new Set(ids);
  const manifests = (await Promise.all([...times].map((t) => uncheckedManifests(deps, t)))).flat();
  return asUnwritten(
    deps,
    listedIn(manifests, (id) => wanted.has(id)),
  );
}
