/**
 * The one in-memory DeliveryStore, for service unit tests (test/support/fakes.ts) and the
 * benchmark's engine-only run (scripts/bench/memory-ports.ts). Every write is one edge of the
 * domain's state diagram: it holds only from `statesAllowing(action)` and writes
 * `targetOf(action)`, plus the same extra condition the DynamoDB adapter puts on its write, so a
 * service that relies on a condition (a write another copy got to first, a raced reschedule) behaves here as against
 * the table. test/support/delivery-store-contract.ts runs the same cases against both.
 */
import { allows, isDeadLetter, isLive, STATE, targetOf, type DeliveryAction } from '#domain/states.ts';
import { filterVerdict } from '#domain/delivery-filter.ts';
import type { Delivery, Expectation } from '#domain/types.ts';
import {
  writtenFields,
  type DeliveryPage,
  type DeliveryStore,
  type DueDelivery,
  type RowAction,
  type SubscriptionPageRequest,
} from '#ports/delivery-store.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { InvalidCursorError, type Page, type PageRequest } from '#ports/page.ts';
import { withLastResponse } from '#domain/attempt-log.ts';
import { offsetPage } from './offset-page.ts';
import { activeDueKey } from '#adapters/delivery-keys.ts';

type Update = { readonly [K in keyof Delivery]?: Delivery[K] | undefined };

/**
 * Rows go in and out as copies, like a round trip through a table. A shallow copy (plus the
 * nested objects) rather than structuredClone: the benchmark measures the engine's own CPU cost
 * through this store, and a deep clone per call would show up in it.
 */
function copyOf(d: Delivery): Delivery {
  return {
    ...d,
    headers: { ...d.headers },
    ...(d.restored ? { restored: { ...d.restored } } : {}),
    ...(d.lastAttempt ? { lastAttempt: { ...d.lastAttempt } } : {}),
    ...(d.firstAttempt ? { firstAttempt: { ...d.firstAttempt } } : {}),
    ...(d.earlierAttempts ? { earlierAttempts: d.earlierAttempts.map((a) => ({ ...a })) } : {}),
  };
}

/** SET for defined values, REMOVE for undefined ones: what updateExpression() does in the adapter. */
function applied(d: Delivery, update: Update): Delivery {
  const next: Record<string, unknown> = { ...d };
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  return next as unknown as Delivery;
}

export class InMemoryDeliveryStore implements DeliveryStore {
  readonly items = new Map<string, Delivery>();
  /** Rows an earlier version created out of the sweeper's view (seeded with `putOutOfView`): out of `listDue`'s view until their next write. */
  private readonly outOfView = new Set<string>();

  constructor(seed: readonly Delivery[] = []) {
    for (const d of seed) this.put(d);
  }

  /** Seeds a delivery as stored, bypassing `write` (so tests can set any state). */
  put(delivery: Delivery): void {
    this.items.set(delivery.id, copyOf(delivery));
  }

  /** Seeds a row as an earlier version's first-row write left it: pending, out of the sweeper's index. */
  putOutOfView(delivery: Delivery): void {
    this.put(delivery);
    this.outOfView.add(delivery.id);
  }

  async write(action: RowAction, row: Delivery, expect: Expectation): Promise<boolean> {
    const state = targetOf(action);
    if (expect.row === 'none') {
      const there = this.items.get(row.id);
      if (there && !(there.state === STATE.pending && there.attemptSeq === 0)) return false;
      const { lastResponse: _once, ...stored } = row;
      this.items.set(row.id, copyOf({ ...stored, state }));
      return true;
    }
    const written = this.transition(
      row.id,
      action,
      (d) => d.attemptSeq === expect.attemptSeq,
      () => ({
        ...writtenFields(action, row),
      }),
    );
    return written !== undefined;
  }

  async get(id: string): Promise<Delivery | undefined> {
    const d = this.items.get(id);
    return d && withLastResponse(copyOf(d));
  }

  /** Every read is consistent here: `read` only matters to DynamoDB's price. */
  async getMany(ids: readonly string[], _read?: 'consistent' | 'eventual'): Promise<readonly Delivery[]> {
    return [...new Set(ids)].flatMap((id) => {
      const d = this.items.get(id);
      return d ? [withLastResponse(copyOf(d))] : [];
    });
  }

  /** Only for a row an earlier version left claimed. */
  async release(id: string, seq: number, nowIso: string): Promise<boolean> {
    const released = this.transition(
      id,
      'release',
      (d) => d.attemptSeq === seq && d.leaseUntil !== undefined && d.leaseUntil < nowIso,
      () => ({
        nextAttemptAt: nowIso,
        updatedAt: nowIso,
        leaseUntil: undefined,
        lastError: 'released: the worker holding this attempt stopped answering',
      }),
    );
    return released !== undefined;
  }

  async replay(
    id: string,
    nowIso: string,
    giveUpAtIso: string,
    nextAttemptAtIso = nowIso,
  ): Promise<Delivery | undefined> {
    return this.transition(
      id,
      'replay',
      () => true,
      () => ({
        attempts: 0,
        nextAttemptAt: nextAttemptAtIso,
        giveUpAt: giveUpAtIso,
        updatedAt: nowIso,
        lastError: undefined,
      }),
    );
  }

  /** Keyset pages like the DynamoDB index's: a cursor is the position (createdAt, id) of the item it continues after. */
  async listBySubscription(request: SubscriptionPageRequest): Promise<DeliveryPage> {
    const after = request.cursor
      ? decodeCursor<{ id: string; subscriptionId: string; createdAt: string }>(request.cursor)
      : undefined;
    if (
      after &&
      (after.subscriptionId !== request.subscriptionId ||
        typeof after.id !== 'string' ||
        typeof after.createdAt !== 'string')
    )
      throw new InvalidCursorError();
    const sign = request.order === 'oldest' ? 1 : -1;
    const compare = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
      sign * (a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const all = [...this.items.values()]
      .filter(
        (d) =>
          d.subscriptionId === request.subscriptionId &&
          filterVerdict(d, request) !== 'out' &&
          (!after || compare(d, after) > 0),
      )
      .sort(compare);
    const items = all.slice(0, request.limit).map((d) => withLastResponse(copyOf(d)));
    const itemCursors = items.map(
      (d) => encodeCursor({ id: d.id, subscriptionId: d.subscriptionId, createdAt: d.createdAt })!,
    );
    return all.length > items.length ? { items, itemCursors, nextCursor: itemCursors.at(-1)! } : { items, itemCursors };
  }

  async listDeadLetters(request: PageRequest & { subscriptionId?: string }): Promise<Page<Delivery>> {
    const all = [...this.items.values()]
      .filter((d) => isDeadLetter(d.state) && (!request.subscriptionId || d.subscriptionId === request.subscriptionId))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return offsetPage(
      all.map((d) => withLastResponse(copyOf(d))),
      request,
    );
  }

  async listDue(beforeIso: string, limit: number): Promise<readonly DueDelivery[]> {
    return [...this.items.values()]
      .map((d) => ({ d, listedAt: activeDueKey(d.nextAttemptAt) }))
      .filter(({ d, listedAt }) => isLive(d.state) && listedAt < beforeIso && !this.outOfView.has(d.id))
      .sort((a, b) => a.listedAt.localeCompare(b.listedAt))
      .slice(0, limit)
      .map(({ d }) => ({ id: d.id }));
  }

  /**
   * One edge of the diagram: when the stored row is in a state `action` is allowed from and
   * `holds` (the adapter's extra condition), writes `targetOf(action)` with `update`; else
   * changes nothing and returns undefined.
   */
  private transition(
    id: string,
    action: DeliveryAction,
    holds: (d: Delivery) => boolean,
    update: (d: Delivery) => Update,
  ): Delivery | undefined {
    const d = this.items.get(id);
    if (!d || !allows(action, d.state) || !holds(d)) return undefined;
    const next = applied(d, { ...update(d), state: targetOf(action) });
    this.items.set(id, next);
    this.outOfView.delete(id);
    return copyOf(next);
  }
}
