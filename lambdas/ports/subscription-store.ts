import type { SealedSecrets, Subscription, SubscriptionState } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

export interface SubscriptionStore {
  /** Stores a new subscription; its secrets are sealed (the type has no room for plain text). */
  create(subscription: Subscription & { readonly secrets: SealedSecrets }): Promise<void>;
  get(id: string): Promise<Subscription | undefined>;
  /**
   * The same, possibly from a per-container cache a few seconds old: the sender's happy path
   * reads nothing else, so a pause, a resume or a secret rotation reaches it within that time.
   */
  getCached(id: string): Promise<Subscription | undefined>;
  list(request: PageRequest & { readonly tenantId?: string }): Promise<Page<Subscription>>;
  /** Every subscription (active, paused and disabled) for fan-out; may be served from a short cache. */
  all(): Promise<readonly Subscription[]>;
  /**
   * Changes the state and says why; returns the updated subscription, or undefined if unknown
   * (or, with `onlyFrom`, not in that state: an auto-pause never overrides a manual pause or a disable).
   */
  setState(id: string, state: SubscriptionState, reason: string, nowIso: string, onlyFrom?: SubscriptionState): Promise<Subscription | undefined>;
  /** Adds a dead letter to the subscription's current streak (starting one if none); returns the subscription as updated. */
  noteDeadLetter(id: string, nowIso: string): Promise<Subscription | undefined>;
  /** Ends the dead-letter streak (a delivery succeeded, or the subscription was resumed). */
  clearDeadLetterStreak(id: string): Promise<void>;
  /**
   * Replaces a row's plain-text secrets (written before sealing) with their sealed form; false
   * when the row is gone or already sealed, so racing migrations write once.
   */
  sealPlainSecrets(id: string, sealed: SealedSecrets): Promise<boolean>;
}
