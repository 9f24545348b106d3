import type { CompletionAction, DeliveryState } from '#domain/states.ts';
import type { Delivery, RecordedAttempt } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

export type ClaimResult =
  | { readonly kind: 'claimed'; readonly delivery: Delivery }
  /** Not pending, or pending but not yet due; `current` is what is stored (absent if unknown id). */
  | { readonly kind: 'not_claimable'; readonly current?: Delivery };

/**
 * What an attempt's outcome writes. The store writes the state `targetOf(action)` (domain/states.ts),
 * conditioned on the claim still being held; the caller never names a state.
 */
export interface Completion {
  readonly action: CompletionAction;
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly lastStatus?: number;
  readonly lastError?: string;
  readonly lastResponse?: string;
  /** The URL the attempt went to (the subscription's at that moment): kept on the row when given, never removed. */
  readonly url?: string;
  /**
   * A retry's hold (kept in `leaseUntil`): until then only the recorded retry's message may make
   * the next attempt, unclaimed, and a claim waits (docs/design.md, "Retries without a claim").
   */
  readonly heldUntil?: string;
  readonly updatedAt: string;
}

/**
 * The attributes a completion writes, the same for every store: an attribute absent from the
 * completion is removed (an attempt without a status clears the previous one), and the claim's
 * lease ends (a retry's hold takes its place).
 */
export function completionAttributes(c: Completion) {
  return {
    attempts: c.attempts,
    nextAttemptAt: c.nextAttemptAt,
    lastStatus: c.lastStatus,
    lastError: c.lastError,
    lastResponse: c.lastResponse,
    updatedAt: c.updatedAt,
    leaseUntil: c.heldUntil,
    ...(c.url ? { url: c.url } : {}),
  };
}

/** A page of deliveries with, for each one, the cursor that continues right after it. */
export interface DeliveryPage extends Page<Delivery> {
  /** `itemCursors[i]` lists what comes after `items[i]`: a caller that stopped part-way through a page resumes there. */
  readonly itemCursors: readonly string[];
}

export interface DueDelivery {
  readonly id: string;
  readonly nextAttemptAt: string;
}

export interface DeliveryStore {
  /**
   * Writes a new delivery; false when it already exists (an ingest retried after a crash).
   * `waiting: false` keeps a fresh pending row out of the sweeper's view (`listDue`) while its
   * message is on the way: publish's manifest covers it until then, and the first write that
   * leaves the happy path (a claim, a reschedule, a retry) puts it in view.
   */
  create(delivery: Delivery, options?: { readonly waiting?: boolean }): Promise<boolean>;
  get(id: string): Promise<Delivery | undefined>;
  getMany(ids: readonly string[]): Promise<readonly Delivery[]>;
  /**
   * `claim`: pending, due and not held by a recorded retry (its `leaseUntil` passed) → in_flight
   * with a lease, in one conditional write, so two workers never send the same attempt.
   */
  claim(id: string, nowIso: string, leaseUntilIso: string): Promise<ClaimResult>;
  /** Records an attempt's outcome (`completion.action`); false when the claim was lost (released, and perhaps re-claimed, meanwhile). */
  complete(claimed: Delivery, completion: Completion): Promise<boolean>;
  /**
   * The happy path's one write: the outcome of a first attempt made without a claim (the message
   * said no row exists yet). Writes the whole row, `firstAttempt` inline, in the state
   * `targetOf(completion.action)`, when there is no row yet or the row still waits for its first
   * attempt (a state `claim` is allowed from, attempt number 0: the sweeper or a pause wrote it).
   * `attempted` is the delivery as claimed in memory (attempts and attemptSeq 1). False when
   * another worker's attempt got there first.
   */
  recordFirst(attempted: Delivery, completion: Completion): Promise<boolean>;
  /**
   * A planned retry's outcome, its attempt made without a claim: the claim and the completion in
   * one write. Holds only while the row is still as `found` (a state `claim` is allowed from,
   * the same attemptSeq and nextAttemptAt: no other attempt, reschedule or claim came between),
   * and writes `targetOf(completion.action)` with `attempted`'s attemptSeq. False otherwise.
   */
  recordUnclaimed(attempted: Delivery, completion: Completion, found: RecordedAttempt): Promise<boolean>;
  /**
   * `reschedule`: pushes a pending delivery's next attempt to `nextAttemptAt` (paused
   * subscription, lost message), ending a recorded retry's hold (that message no longer matches
   * the row); false if it moved meanwhile.
   */
  reschedule(id: string, expectedNextAttemptAt: string, nextAttemptAt: string, nowIso: string): Promise<boolean>;
  /** `release`: in_flight of attempt `seq` past its lease → pending, due now. */
  release(id: string, seq: number, nowIso: string): Promise<boolean>;
  /** `expire`: pending, still at the due time the sweeper read → expired (the sweeper checks give_up_at). */
  expire(delivery: Delivery, reason: string, nowIso: string): Promise<boolean>;
  /**
   * `replay`: failed | expired | delivered → pending with attempts 0 and a fresh deadline; undefined when not
   * replayable. `nextAttemptAtIso` (default: now) lets a bulk replay spread its re-attempts.
   */
  replay(id: string, nowIso: string, giveUpAtIso: string, nextAttemptAtIso?: string): Promise<Delivery | undefined>;
  /**
   * One subscription's deliveries by creation: newest first, or with `order: 'oldest'` oldest
   * first, which is publish order (a consumer reconciling what it should have received).
   * Optionally in one state. A cursor of another subscription's listing is refused.
   */
  listBySubscription(
    request: PageRequest & { readonly subscriptionId: string; readonly state?: DeliveryState; readonly order?: 'newest' | 'oldest' },
  ): Promise<DeliveryPage>;
  /** failed and expired, newest `updatedAt` first. */
  listDeadLetters(request: PageRequest & { readonly subscriptionId?: string }): Promise<Page<Delivery>>;
  /** Live deliveries whose `nextAttemptAt` (due time or claim lease) is before `beforeIso`. */
  listDue(beforeIso: string, limit: number): Promise<readonly DueDelivery[]>;
}
