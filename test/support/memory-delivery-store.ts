/**
 * The one in-memory DeliveryStore, for service unit tests (test/support/fakes.ts) and the
 * benchmark's engine-only run (scripts/bench/memory-ports.ts). Every write is one edge of the
 * domain's state diagram: it holds only from `statesAllowing(action)` and writes
 * `targetOf(action)`, plus the same extra condition the DynamoDB adapter puts on its write, so a
 * service that relies on a condition (a lost claim, a raced reschedule) behaves here as against
 * the table. test/support/delivery-store-contract.ts runs the same cases against both.
 */
import { allows, isDeadLetter, isLive, targetOf, type DeliveryAction, type DeliveryState } from '#domain/states.ts';
import type { Delivery, RecordedAttempt } from '#domain/types.ts';
import { completionAttributes, type ClaimResult, type Completion, type DeliveryPage, type DeliveryStore, type DueDelivery } from '#ports/delivery-store.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { InvalidCursorError, type Page, type PageRequest } from '#ports/page.ts';
import { offsetPage } from './offset-page.ts';

type Update = { readonly [K in keyof Delivery]?: Delivery[K] | undefined };

/**
 * Rows go in and out as copies, like a round trip through a table. A shallow copy (plus the two
 * nested objects) rather than structuredClone: the benchmark measures the engine's own CPU cost
 * through this store, and a deep clone per call would show up in it.
 */
function copyOf(d: Delivery): Delivery {
  return { ...d, headers: { ...d.headers }, ...(d.restored ? { restored: { ...d.restored } } : {}), ...(d.firstAttempt ? { firstAttempt: { ...d.firstAttempt } } : {}) };
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
  /** Fresh rows created with `waiting: false`: out of `listDue`'s view until their first write. */
  private readonly outOfView = new Set<string>();

  constructor(seed: readonly Delivery[] = []) {
    for (const d of seed) this.put(d);
  }

  /** Seeds a delivery as stored, bypassing `create` (so tests can set any state). */
  put(delivery: Delivery): void {
    this.items.set(delivery.id, copyOf(delivery));
  }

  async create(delivery: Delivery, options: { readonly waiting?: boolean } = {}): Promise<boolean> {
    if (this.items.has(delivery.id)) return false;
    this.put(delivery);
    if (options.waiting === false) this.outOfView.add(delivery.id);
    return true;
  }

  async recordFirst(attempted: Delivery, c: Completion): Promise<boolean> {
    const current = this.items.get(attempted.id);
    if (current && !(allows('claim', current.state) && current.attemptSeq === 0)) return false;
    this.items.set(attempted.id, applied(copyOf(attempted), { ...completionAttributes(c), state: targetOf(c.action) }));
    this.outOfView.delete(attempted.id);
    return true;
  }

  async get(id: string): Promise<Delivery | undefined> {
    const d = this.items.get(id);
    return d && copyOf(d);
  }

  async getMany(ids: readonly string[]): Promise<readonly Delivery[]> {
    return [...new Set(ids)].flatMap((id) => {
      const d = this.items.get(id);
      return d ? [copyOf(d)] : [];
    });
  }

  async claim(id: string, nowIso: string, leaseUntilIso: string): Promise<ClaimResult> {
    const claimed = this.transition(id, 'claim', (d) => d.nextAttemptAt <= nowIso && !(d.leaseUntil !== undefined && d.leaseUntil >= nowIso), (d) => ({
      leaseUntil: leaseUntilIso,
      updatedAt: nowIso,
      attempts: d.attempts + 1,
      attemptSeq: d.attemptSeq + 1,
    }));
    if (claimed) return { kind: 'claimed', delivery: claimed };
    const current = this.items.get(id);
    return current ? { kind: 'not_claimable', current: copyOf(current) } : { kind: 'not_claimable' };
  }

  async complete(claimed: Delivery, c: Completion): Promise<boolean> {
    const done = this.transition(claimed.id, c.action, (d) => d.attemptSeq === claimed.attemptSeq, () => completionAttributes(c));
    return done !== undefined;
  }

  async recordUnclaimed(attempted: Delivery, c: Completion, found: RecordedAttempt): Promise<boolean> {
    const done = this.transition(
      attempted.id,
      c.action,
      (d) => d.attemptSeq === found.attemptSeq && d.nextAttemptAt === found.nextAttemptAt,
      () => ({ ...completionAttributes(c), attemptSeq: attempted.attemptSeq }),
      'claim',
    );
    return done !== undefined;
  }

  async reschedule(id: string, expectedNextAttemptAt: string, nextAttemptAt: string, nowIso: string): Promise<boolean> {
    const moved = this.transition(id, 'reschedule', (d) => d.nextAttemptAt === expectedNextAttemptAt, () => ({ nextAttemptAt, updatedAt: nowIso, leaseUntil: undefined }));
    return moved !== undefined;
  }

  async release(id: string, seq: number, nowIso: string): Promise<boolean> {
    const released = this.transition(
      id,
      'release',
      (d) => d.attemptSeq === seq && d.leaseUntil !== undefined && d.leaseUntil < nowIso,
      () => ({ nextAttemptAt: nowIso, updatedAt: nowIso, leaseUntil: undefined, lastError: 'released: the worker holding this attempt stopped answering' }),
    );
    return released !== undefined;
  }

  async expire(delivery: Delivery, reason: string, nowIso: string): Promise<boolean> {
    const expired = this.transition(delivery.id, 'expire', (d) => d.nextAttemptAt === delivery.nextAttemptAt, () => ({ lastError: reason, updatedAt: nowIso }));
    return expired !== undefined;
  }

  async replay(id: string, nowIso: string, giveUpAtIso: string, nextAttemptAtIso = nowIso): Promise<Delivery | undefined> {
    return this.transition(id, 'replay', () => true, () => ({
      attempts: 0,
      nextAttemptAt: nextAttemptAtIso,
      giveUpAt: giveUpAtIso,
      updatedAt: nowIso,
      lastError: undefined,
    }));
  }

  /** Keyset pages like the DynamoDB index's: a cursor is the position (createdAt, id) of the item it continues after. */
  async listBySubscription(request: PageRequest & { subscriptionId: string; state?: DeliveryState; order?: 'newest' | 'oldest' }): Promise<DeliveryPage> {
    const after = request.cursor ? decodeCursor<{ id: string; subscriptionId: string; createdAt: string }>(request.cursor) : undefined;
    if (after && (after.subscriptionId !== request.subscriptionId || typeof after.id !== 'string' || typeof after.createdAt !== 'string')) throw new InvalidCursorError();
    const sign = request.order === 'oldest' ? 1 : -1;
    const compare = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) => sign * (a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const all = [...this.items.values()]
      .filter((d) => d.subscriptionId === request.subscriptionId && (!request.state || d.state === request.state) && (!after || compare(d, after) > 0))
      .sort(compare);
    const items = all.slice(0, request.limit).map(copyOf);
    const itemCursors = items.map((d) => encodeCursor({ id: d.id, subscriptionId: d.subscriptionId, createdAt: d.createdAt })!);
    return all.length > items.length ? { items, itemCursors, nextCursor: itemCursors.at(-1)! } : { items, itemCursors };
  }

  async listDeadLetters(request: PageRequest & { subscriptionId?: string }): Promise<Page<Delivery>> {
    const all = [...this.items.values()]
      .filter((d) => isDeadLetter(d.state) && (!request.subscriptionId || d.subscriptionId === request.subscriptionId))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return offsetPage(all.map(copyOf), request);
  }

  async listDue(beforeIso: string, limit: number): Promise<readonly DueDelivery[]> {
    return [...this.items.values()]
      .filter((d) => isLive(d.state) && d.nextAttemptAt < beforeIso && !this.outOfView.has(d.id))
      .sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt))
      .slice(0, limit)
      .map((d) => ({ id: d.id, nextAttemptAt: d.nextAttemptAt }));
  }

  /**
   * One edge of the diagram: when the stored row is in a state `action` is allowed from and
   * `holds` (the adapter's extra condition), writes `targetOf(action)` with `update`; else
   * changes nothing and returns undefined.
   */
  /** `fromAction`: the edge whose source states the row must be in, when not `action`'s own (an unclaimed attempt's: the claim's). */
  private transition(id: string, action: DeliveryAction, holds: (d: Delivery) => boolean, update: (d: Delivery) => Update, fromAction: DeliveryAction = action): Delivery | undefined {
    const d = this.items.get(id);
    if (!d || !allows(fromAction, d.state) || !holds(d)) return undefined;
    const next = applied(d, { ...update(d), state: targetOf(action) });
    this.items.set(id, next);
    this.outOfView.delete(id);
    return copyOf(next);
  }
}
