import type { DeliveryFilter } from '#domain/delivery-filter.ts';
import type { DeliveryAction } from '#domain/states.ts';
import type { Delivery, Expectation } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

/** A page of deliveries with, for each one, the cursor that continues right after it. */
export interface DeliveryPage extends Page<Delivery> {
  /** `itemCursors[i]` lists what comes after `items[i]`: a caller that stopped part-way through a page resumes there. */
  readonly itemCursors: readonly string[];
}

/** A page of one subscription's deliveries, in creation order, optionally filtered. */
export interface SubscriptionPageRequest extends PageRequest, DeliveryFilter {
  readonly subscriptionId: string;
  readonly order?: 'newest' | 'oldest';
}

/** A delivery the sweeper may have to look at: its id, which the sweeper reads the row by. */
export interface DueDelivery {
  readonly id: string;
}

/** The actions `write` takes: every one from the waiting state, the row's next state their target (domain/states.ts). */
export type RowAction = Exclude<DeliveryAction, 'replay' | 'release'>;

/**
 * What `write` sets on a row it finds (every store alike; the rest of the row stays, a restore's
 * marker included): an outcome its attempt's fields (its earlier attempts when it carries them),
 * a reschedule its due time, a Retry now its due time, attempt count and deadline, an expiry its
 * reason, and each its `updatedAt`. An outcome's inline attempt replaces the response an earlier
 * version stored beside it, and any write ends an earlier version's hold (`leaseUntil`).
 * `undefined` removes the attribute.
 */
export function writtenFields(
  action: RowAction,
  row: Delivery,
): { readonly [K in keyof Delivery]?: Delivery[K] | undefined } {
  const common = { updatedAt: row.updatedAt, leaseUntil: undefined };
  if (action === 'reschedule') return { ...common, nextAttemptAt: row.nextAttemptAt };
  if (action === 'retry_now')
    return { ...common, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt, giveUpAt: row.giveUpAt };
  if (action === 'expire') return { ...common, lastError: row.lastError };
  const { attempts, attemptSeq, nextAttemptAt, lastStatus, lastError, lastAttempt, earlierAttempts, url } = row;
  return {
    ...common,
    // Only ever longer: a writer that does not carry them (an earlier version's message) leaves them as they are.
    ...(earlierAttempts ? { earlierAttempts } : {}),
    attempts,
    attemptSeq,
    nextAttemptAt,
    lastStatus,
    lastError,
    lastAttempt,
    url,
    lastResponse: undefined,
  };
}

export interface DeliveryStore {
  /**
   * The one write of every attempt, wait and expiry: `row` as `action` leaves it (its state is
   * `targetOf(action)`), only if the stored row is as `expect` says (no attempt yet; or pending
   * at that attempt number: domain/types.ts). False when it is not: another copy of the
   * delivery, a drain or the sweeper wrote it first, and nothing changed. Writing the whole row or only
   * what an attempt changes is the adapter's choice; what a row holds that the writer did not
   * know (a restore's marker) stays.
   */
  write(action: RowAction, row: Delivery, expect: Expectation): Promise<boolean>;
  get(id: string): Promise<Delivery | undefined>;
  /**
   * The rows of `ids` that exist, in the order asked. `eventual` reads at half the price and
   * may miss a write of the last second or so: for a caller whose every action on what it read
   * is a conditional write (the sweeper's manifest check), a stale read costs a refused write.
   */
  getMany(ids: readonly string[], read?: 'consistent' | 'eventual'): Promise<readonly Delivery[]>;
  /**
   * `replay`: failed | expired | delivered → pending with attempts 0 and a fresh deadline; undefined when not
   * replayable. `nextAttemptAtIso` (default: now) lets a bulk replay spread its re-attempts.
   */
  replay(id: string, nowIso: string, giveUpAtIso: string, nextAttemptAtIso?: string): Promise<Delivery | undefined>;
  /** `release`: a row an earlier version left claimed (in_flight), its lease run out → pending, due now. */
  release(id: string, seq: number, nowIso: string): Promise<boolean>;
  /**
   * One subscription's deliveries by creation: newest first, or with `order: 'oldest'` oldest
   * first, which is publish order (a consumer reconciling what it should have received).
   * Optionally filtered: the deliveries `filterVerdict` (domain/delivery-filter.ts) lets in,
   * and those it cannot tell (an earlier version's rows, without their event type), every
   * page but the last full. A cursor of another subscription's listing is refused.
   */
  listBySubscription(request: SubscriptionPageRequest): Promise<DeliveryPage>;
  /** failed and expired, newest `updatedAt` first. */
  listDeadLetters(request: PageRequest & { readonly subscriptionId?: string }): Promise<Page<Delivery>>;
  /**
   * Live deliveries whose `nextAttemptAt` (a row an earlier version claimed: its lease's start)
   * falls in a minute (ACTIVE_DUE_BUCKET_SECONDS) that started before `beforeIso`: every one due
   * before it, and maybe some due within the minute after it. The caller reads each row and
   * leaves those not due yet.
   */
  listDue(beforeIso: string, limit: number): Promise<readonly DueDelivery[]>;
}
