import type { ListedSubscription, SealedSecrets, Subscription, SubscriptionState } from '#domain/types.ts';

/** The fields an owner may change after creation (PATCH), and a rotation's secrets. */
export const EDITABLE_FIELDS = [
  'url',
  'eventTypes',
  'description',
  'retryPolicy',
  'metadata',
  'headers',
  'rateLimitPerSecond',
  'contactEmails',
] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

/** A rotation's result: the sealed list (newest first) with what stays plain beside it. */
export interface RotatedSecrets {
  readonly sealed: SealedSecrets;
  readonly expiry: readonly (string | null)[];
  readonly publicKeys?: readonly string[];
}

/** A change to the editable fields: an absent field stays as it is, `null` removes it. */
export type SubscriptionChange = { readonly [K in EditableField]?: Subscription[K] | null };
import type { Page, PageRequest } from './page.ts';

export interface SubscriptionStore {
  /** Stores a new subscription; its secrets are sealed (the type has no room for plain text). */
  create(subscription: Subscription & { readonly secrets: SealedSecrets }): Promise<void>;
  get(id: string): Promise<Subscription | undefined>;
  /**
   * The same, possibly from a per-container cache a few seconds old: a first attempt and a
   * retry read nothing else, so a pause, a resume or a secret rotation reaches it within that time.
   */
  getCached(id: string): Promise<Subscription | undefined>;
  /** A tenant's subscriptions newest first, a query of its key; without a tenant, every subscription, in no order. What a listing shows only. */
  list(request: PageRequest & { readonly tenantId?: string }): Promise<Page<ListedSubscription>>;
  /** A page of every subscription, whole rows, in no order: for a walk of the table (the routing index's build). */
  scanPage(request: PageRequest): Promise<Page<Subscription>>;
  /**
   * Every subscription, read whole: for the periodic jobs that walk them all (notices, archival,
   * a bulk replay by tenant). Fan-out never calls it: it reads the routing index (RouteStore).
   */
  all(): Promise<readonly Subscription[]>;
  /**
   * Creation, `setState` and `update` count `routeVersion` up (and `update` adds new event types
   * to `routedPatterns`): the routing index is written from the row they return
   * (app/subscriptions/routing.ts). This removes patterns whose entries are tombstones now,
   * only while the row is still at `routeVersion` (a newer change prunes for itself); false when it was not.
   */
  pruneRoutedPatterns(id: string, routeVersion: number, patterns: readonly string[]): Promise<boolean>;
  /**
   * A row written before the routing index: counts it as routed at version 1 with its event types
   * as its patterns, and returns it, for its entries to be written. Undefined when it is gone or
   * already routed (a change counted it meanwhile).
   */
  adoptRouting(id: string): Promise<Subscription | undefined>;
  /**
   * Changes the state and says why; returns the updated subscription, or undefined if unknown
   * (or, with `onlyFrom`, not in that state: an auto-pause never overrides a manual pause or a disable).
   */
  setState(
    id: string,
    state: SubscriptionState,
    reason: string,
    nowIso: string,
    onlyFrom?: SubscriptionState,
  ): Promise<Subscription | undefined>;
  /**
   * Applies `change` in one conditional write; undefined when the subscription is unknown or
   * deleted (a deleted subscription's row is history, never edited).
   */
  update(id: string, change: SubscriptionChange, nowIso: string): Promise<Subscription | undefined>;
  /**
   * Replaces the signing secrets, their expiry and (v1a) public keys, and counts one more
   * `secretsVersion`: a rotation. Undefined when unknown, deleted, or its secrets were replaced
   * since the read whose `secretsVersion` is `expectedSecretsVersion` (two rotations at once
   * must not drop each other's new secret).
   */
  replaceSecrets(
    id: string,
    secrets: RotatedSecrets,
    nowIso: string,
    expectedSecretsVersion: number | undefined,
  ): Promise<Subscription | undefined>;
  /** Removes a deleted subscription's row (archived first); false when it is not there or not deleted. */
  removeDeleted(id: string): Promise<boolean>;
  /** Adds a dead letter to the subscription's current streak (starting one if none); returns the subscription as updated. */
  noteDeadLetter(id: string, nowIso: string): Promise<Subscription | undefined>;
  /** Ends the dead-letter streak (a delivery succeeded, or the subscription was resumed). */
  clearDeadLetterStreak(id: string): Promise<void>;
  /**
   * Puts the subscription in the slow lane until `untilIso` (domain/slow-lane.ts), unless it is
   * gone or already marked until then or later: two senders marking at once write the later mark.
   */
  markSlow(id: string, untilIso: string): Promise<void>;
  /**
   * Marks a Retry now of one of its deliveries at `atIso` (`retriedNowAt`), unless it is gone or
   * already marked then or later: the retry messages made before it read their rows first
   * (domain/retry-now.ts). Changes nothing else (not `updatedAt`, not the routing).
   */
  markRetriedNow(id: string, atIso: string): Promise<void>;
  /**
   * Replaces a row's plain-text secrets (written before sealing) with their sealed form; false
   * when the row is gone or already sealed, so racing migrations write once.
   */
  sealPlainSecrets(id: string, sealed: SealedSecrets): Promise<boolean>;
}
