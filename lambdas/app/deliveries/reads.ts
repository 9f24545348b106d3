import type { Delivery } from '#domain/types.ts';
import { STATE, type DeliveryState } from '#domain/states.ts';
import type { DeliveryPage } from '#ports/delivery-store.ts';
import { decodeCursor, encodeCursor, InvalidCursorError, type PageRequest } from '#ports/page.ts';
import { listKeyOf } from '#domain/ids.ts';
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

export interface SubscriptionListing extends PageRequest {
  readonly subscriptionId: string;
  readonly state?: DeliveryState;
  readonly order?: 'newest' | 'oldest';
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

function decode(cursor: string | undefined): Position | undefined {
  const value = decodeCursor<{ c?: unknown; k?: unknown }>(cursor);
  if (value === undefined) return undefined;
  const { c, k } = value;
  if (typeof k !== 'string' || (c !== undefined && typeof c !== 'string')) throw new InvalidCursorError();
  return c === undefined ? { k } : { c, k };
}

/**
 * A page of one subscription's deliveries, newest first or oldest first, optionally in one
 * state: the store's rows merged with the deliveries not yet written (all pending). Those are
 * read first, then the rows; one written meanwhile is listed once, as its row.
 */
export async function listSubscriptionDeliveries(
  deps: UnwrittenDeps,
  request: SubscriptionListing,
): Promise<DeliveryPage> {
  const at = decode(request.cursor);
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
  const rowIds = new Set(page.items.map((d) => d.id));
  // With more rows to come, a delivery not yet written that sorts after this page's last row waits for a later page.
  const lastRow = page.items.at(-1);
  const within = (key: string) => !page.nextCursor || lastRow === undefined || !inOrder(listKeyOf(lastRow), key);
  type Entry = { readonly delivery: Delivery; readonly key: string; readonly storeCursor?: string };
  const entries = [
    ...page.items.map(
      (delivery, i): Entry => ({ delivery, key: listKeyOf(delivery), storeCursor: page.itemCursors[i]! }),
    ),
    ...unwritten.filter((d) => !rowIds.has(d.id)).map((delivery): Entry => ({ delivery, key: listKeyOf(delivery) })),
  ]
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
    encode({ ...(page.nextCursor !== undefined ? { c: page.nextCursor } : {}), k: at?.k ?? (newest ? '\uffff' : '') });
  return { items, itemCursors, nextCursor: next };
}
