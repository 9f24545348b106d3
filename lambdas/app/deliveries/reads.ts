import { filterVerdict } from '#domain/delivery-filter.ts';
import type { Delivery } from '#domain/types.ts';
import { STATE } from '#domain/states.ts';
import type { DeliveryPage, SubscriptionPageRequest } from '#ports/delivery-store.ts';
import type { Deps } from '#app/deps.ts';
import { decodeCursor, encodeCursor, InvalidCursorError } from '#ports/page.ts';
import { idOfListKey, isDeliveryOf, listKeyOf } from '#domain/ids.ts';
import { unwrittenByIds, unwrittenOfSubscription, type UnwrittenDeps } from './unwritten.ts';

/**
 * How the API, the portal and the event views read deliveries: the rows, and the deliveries
 * published but not yet written (unwritten.ts) as the rows they will be, so a delivery is
 * listed and readable by id from the moment publish answers, exactly as if publish had
 * written it. The sender, the sweeper and the drains read the rows alone: what they act on
 * must have a row to act on.
 */

/** One delivery by id: its row, or, not yet written, the row it will be. */
export async function readDelivery(deps: UnwrittenDeps, id: string): Promise<Delivery | undefined> {
  return (await readDeliveries(deps, [id]))[0];
}

/**
 * Each known id's delivery once, in the order first asked. The rows first: one that exists is
 * one key lookup. Only ids without a row are looked for in the manifests not yet checked, and
 * those found in neither are read once more: the sweeper writes a manifest's missing rows
 * before it marks the manifest checked, so a delivery written between the two reads (and its
 * manifest checked) is its row by then, never neither.
 */
export async function readDeliveries(deps: UnwrittenDeps, ids: readonly string[]): Promise<readonly Delivery[]> {
  const found = new Map((await deps.deliveries.getMany(ids)).map((d) => [d.id, d]));
  const missing = (from: readonly string[]) => [...new Set(from)].filter((id) => !found.has(id));
  if (missing(ids).length > 0) for (const d of await unwrittenByIds(deps, missing(ids))) found.set(d.id, d);
  if (missing(ids).length > 0) for (const d of await deps.deliveries.getMany(missing(ids))) found.set(d.id, d);
  return [...new Set(ids)].flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
}

/**
 * `deliveries` with their event type. A row an earlier version wrote does not keep it: it is
 * read from the events of those rows alone, in one batch (none at all for rows that keep it),
 * and stays absent where the event is gone.
 */
export async function withEventTypes(
  deps: Pick<Deps, 'events'>,
  deliveries: readonly Delivery[],
): Promise<readonly Delivery[]> {
  const untyped = [...new Set(deliveries.filter((d) => d.eventType === undefined).map((d) => d.eventId))];
  if (untyped.length === 0) return deliveries;
  const types = new Map((await deps.events.getSummaries(untyped)).map((e) => [e.id, e.type]));
  return deliveries.map((d) => {
    const eventType = d.eventType ?? types.get(d.eventId);
    return eventType === d.eventType ? d : { ...d, eventType };
  });
}

/**
 * Where a merged listing stands: after the delivery at `k` (its listKeyOf), the rows read
 * from the store up to its cursor `c`. Deliveries at or before `k` were handed out, as rows or
 * not yet written; a row written since at such a place is one of them.
 */
interface Position {
  readonly c?: string;
  readonly k: string;
}

const encode = (p: Position): string => encodeCursor(p)!;

/** Sorts after every listing key: where a newest-first walk starts ('' starts an oldest-first one). */
const PAST_EVERY_KEY = '\uffff';

function decode(cursor: string | undefined): Position | undefined {
  const value = decodeCursor<{ c?: unknown; k?: unknown }>(cursor);
  if (value === undefined) return undefined;
  const { c, k } = value;
  if (typeof k !== 'string' || (c !== undefined && typeof c !== 'string')) throw new InvalidCursorError();
  return c === undefined ? { k } : { c, k };
}

/**
 * A page of one subscription's deliveries, newest first or oldest first, optionally filtered
 * (domain/delivery-filter.ts): the store's rows merged with the deliveries not yet written (all
 * pending). Those are read first, then the rows; one written meanwhile is listed once, as its
 * row. A row the store could not tell (an earlier version's, without its event type) is
 * settled from its event here; one that is out leaves its page a row short rather than read
 * on, so a page with a next cursor may hold fewer than `limit` (even none), never a row twice.
 */
export async function listSubscriptionDeliveries(
  deps: UnwrittenDeps,
  request: SubscriptionPageRequest,
): Promise<DeliveryPage> {
  const at = decode(request.cursor);
  // A place a delivery not yet written gave carries no store cursor for the store to refuse:
  // its key must be one of this subscription's (or a page's start, past every key).
  if (
    at &&
    at.c === undefined &&
    at.k !== '' &&
    at.k !== PAST_EVERY_KEY &&
    !isDeliveryOf(idOfListKey(at.k), request.subscriptionId)
  )
    throw new InvalidCursorError();
  const newest = request.order !== 'oldest';
  const inOrder = (a: string, b: string) => (newest ? a > b : a < b);
  const afterCursor = (key: string) => at === undefined || inOrder(at.k, key);
  const unwritten =
    request.state === undefined || request.state === STATE.pending
      ? await unwrittenOfSubscription(deps, request.subscriptionId)
      : [];
  const page = await deps.deliveries.listBySubscription({
    ...request,
    ...(at?.c !== undefined ? { cursor: at.c } : { cursor: undefined }),
  });
  const rows = request.eventType === undefined ? page.items : await withEventTypes(deps, page.items);
  const rowIds = new Set(page.items.map((d) => d.id));
  // With more rows to come, a delivery not yet written that sorts after this page's last row waits for a later page.
  const lastRow = page.items.at(-1);
  const within = (key: string) => !page.nextCursor || lastRow === undefined || !inOrder(listKeyOf(lastRow), key);
  type Entry = { readonly delivery: Delivery; readonly key: string; readonly storeCursor?: string };
  const entries = [
    ...rows.map((delivery, i): Entry => ({ delivery, key: listKeyOf(delivery), storeCursor: page.itemCursors[i]! })),
    ...unwritten.filter((d) => !rowIds.has(d.id)).map((delivery): Entry => ({ delivery, key: listKeyOf(delivery) })),
  ]
    // Settled now: a row whose event is gone has no type to match, so a filter by type leaves it out.
    .filter((e) => filterVerdict(e.delivery, request) === 'in')
    .filter((e) => afterCursor(e.key) && (e.storeCursor !== undefined || within(e.key)))
    .sort((a, b) => (inOrder(a.key, b.key) ? -1 : 1));
  const taken = entries.slice(0, request.limit);
  const items: Delivery[] = [];
  const itemCursors: string[] = [];
  let storeCursor = at?.c;
  for (const e of taken) {
    if (e.storeCursor !== undefined) storeCursor = e.storeCursor;
    items.push(e.delivery);
    itemCursors.push(encode({ ...(storeCursor !== undefined ? { c: storeCursor } : {}), k: e.key }));
  }
  // With no more rows, every delivery not yet written after the cursor is among the entries.
  if (page.nextCursor === undefined && entries.length === taken.length) return { items, itemCursors };
  // Nothing handed out (every row here was handed out before, as not yet written): go on from the store's next page.
  const next =
    itemCursors.at(-1) ??
    encode({
      ...(page.nextCursor !== undefined ? { c: page.nextCursor } : {}),
      k: at?.k ?? (newest ? PAST_EVERY_KEY : ''),
    });
  return { items, itemCursors, nextCursor: next };
}
