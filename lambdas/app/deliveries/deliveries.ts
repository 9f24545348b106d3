import { hasLoggedAttempts, inlineRecord, olderInline } from '#domain/attempt-log.ts';
import type { AttemptRecord, Delivery, EventRecord } from '#domain/types.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import { type Principal, visibleDelivery, visibleSubscription } from '#app/access.ts';
import type { DeadLetterQuery, DeliveryListQuery } from '#app/deliveries/delivery-request.ts';
import type { Deps } from '#app/deps.ts';
import { NotFoundError, ValidationError } from '#app/errors.ts';
import { listSubscriptionDeliveries, withEventTypes } from '#app/deliveries/reads.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';

/** One delivery's row by id, whoever owns it (operator paths that act on it); NotFoundError when there is none. */
export async function getDelivery(deps: Pick<Deps, 'deliveries'>, id: string): Promise<Delivery> {
  const delivery = await deps.deliveries.get(id);
  if (!delivery) throw new NotFoundError('delivery', id);
  return delivery;
}

/** How many attempts the detail of a delivery shows: the latest; older ones page through `listAttempts`. */
export const DETAIL_ATTEMPTS = 50;

/** A delivery with what it sent (the event's body) and its latest attempts. */
export interface DeliveryDetail {
  readonly delivery: Delivery;
  readonly event?: EventRecord;
  /** The latest DETAIL_ATTEMPTS attempts, oldest first. */
  readonly attempts: readonly AttemptRecord[];
  /** Leads to the attempts before those (listAttempts); absent when there are none. */
  readonly attemptsNextCursor?: string;
}

/** The detail of a delivery the principal may see; another tenant's is NotFoundError, like one that does not exist. */
export async function getDeliveryDetail(
  deps: UnwrittenDeps & Pick<Deps, 'attempts'>,
  principal: Principal,
  id: string,
): Promise<DeliveryDetail> {
  const delivery = await visibleDelivery(deps, principal, id);
  const [event, attempts] = await Promise.all([
    deps.events.get(delivery.eventId),
    attemptPage(deps, delivery, { limit: DETAIL_ATTEMPTS }),
  ]);
  return {
    // A row an earlier version wrote does not keep its event's type: the event read here says it.
    delivery: delivery.eventType === undefined && event ? { ...delivery, eventType: event.type } : delivery,
    ...(event ? { event } : {}),
    attempts: attempts.items,
    ...(attempts.nextCursor ? { attemptsNextCursor: attempts.nextCursor } : {}),
  };
}

/** A page of a visible delivery's attempt log: the latest before the cursor, oldest first within the page. */
export async function listAttempts(
  deps: UnwrittenDeps & Pick<Deps, 'attempts'>,
  principal: Principal,
  id: string,
  request: PageRequest,
): Promise<Page<AttemptRecord>> {
  return attemptPage(deps, await visibleDelivery(deps, principal, id), request);
}

/** Past the row's inline latest attempt, when a page of one held only it: the table, from its newest. */
const TABLE_CURSOR = 'attempts-table';
/** Before the `n` oldest attempts the row holds (`older-inline:<n>`): they are the log's oldest, so the rest of it is those before `n`. */
const OLDER_INLINE_CURSOR = 'older-inline:';
/** An earlier version's cursor to its rows' inline first attempt: the older inline attempts from the top. */
const FIRST_ATTEMPT_CURSOR = 'first-attempt';

/**
 * A page of the whole attempt log (domain/attempt-log.ts), each page the latest attempts before
 * the cursor, oldest first within it: the row's inline latest attempt ends the first page, the
 * attempts table's pages come before it, and the older attempts the row holds (the log's oldest:
 * `olderInline`) end it. The table is not read when the row holds every attempt.
 */
export async function attemptPage(
  deps: Pick<Deps, 'attempts'>,
  delivery: Delivery,
  request: PageRequest,
): Promise<Page<AttemptRecord>> {
  const latest = inlineRecord(delivery.id, delivery.lastAttempt);
  const older = olderInline(delivery).map((a) => inlineRecord(delivery.id, a)!);
  const olderBefore = (n: number, room: number, after: readonly AttemptRecord[] = []): Page<AttemptRecord> => {
    const from = Math.max(0, n - room);
    const items = [...older.slice(from, n), ...after];
    return from > 0 ? { items, nextCursor: `${OLDER_INLINE_CURSOR}${from}` } : { items };
  };
  if (request.cursor === FIRST_ATTEMPT_CURSOR) return olderBefore(older.length, request.limit);
  if (request.cursor?.startsWith(OLDER_INLINE_CURSOR)) {
    const n = Number(request.cursor.slice(OLDER_INLINE_CURSOR.length));
    return Number.isSafeInteger(n) && n >= 0 ? olderBefore(Math.min(n, older.length), request.limit) : { items: [] };
  }
  const trailing = request.cursor === undefined && latest ? [latest] : [];
  if (trailing.length === request.limit) return { items: trailing, nextCursor: TABLE_CURSOR };
  const cursor = request.cursor === TABLE_CURSOR ? undefined : request.cursor;
  const page = hasLoggedAttempts(delivery)
    ? await deps.attempts.latest(delivery.id, { limit: request.limit - trailing.length, ...(cursor ? { cursor } : {}) })
    : { items: [] };
  const inline = new Set([latest?.seq, ...older.map((a) => a.seq)]);
  const items = [...page.items.filter((a) => !inline.has(a.seq)), ...trailing];
  if (page.nextCursor) return { items, nextCursor: page.nextCursor };
  return olderBefore(older.length, request.limit - items.length, items);
}

/**
 * A page of one subscription's deliveries, optionally filtered, each with its event type. A
 * tenant key must own the subscription (else NotFoundError); the admin key may list any id, and
 * an unknown one is simply an empty page.
 */
export async function listDeliveries(
  deps: UnwrittenDeps,
  principal: Principal,
  query: DeliveryListQuery,
): Promise<Page<Delivery>> {
  if (principal.role === 'tenant') await visibleSubscription(deps, principal, query.subscriptionId);
  const page = await listSubscriptionDeliveries(deps, query);
  return { items: await withEventTypes(deps, page.items), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}

/**
 * A page of dead letters, each with its event type. The admin key may list them across all
 * subscriptions; a tenant key only per subscription, one of its own, since the overall listing
 * is not partitioned by tenant.
 */
export async function listDeadLetters(
  deps: Pick<Deps, 'deliveries' | 'subscriptions' | 'events'>,
  principal: Principal,
  query: DeadLetterQuery,
): Promise<Page<Delivery>> {
  if (principal.role === 'tenant') {
    if (!query.subscriptionId)
      throw new ValidationError(
        'subscriptionId',
        'is required with a tenant key (dead letters are listed per subscription)',
      );
    await visibleSubscription(deps, principal, query.subscriptionId);
  }
  const page = await deps.deliveries.listDeadLetters(query);
  return { ...page, items: await withEventTypes(deps, page.items) };
}
