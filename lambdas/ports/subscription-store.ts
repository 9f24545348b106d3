import type { Subscription, SubscriptionState } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

export interface SubscriptionStore {
  create(subscription: Subscription): Promise<void>;
  get(id: string): Promise<Subscription | undefined>;
  list(request: PageRequest & { readonly tenantId?: string }): Promise<Page<Subscription>>;
  /** Every subscription (active, paused and disabled) for fan-out; may be served from a short cache. */
  all(): Promise<readonly Subscription[]>;
  /** Changes the state and says why; returns the updated subscription, or undefined if unknown. */
  setState(id: string, state: SubscriptionState, reason: string, nowIso: string): Promise<Subscription | undefined>;
}
