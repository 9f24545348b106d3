import type { AutoPausePolicy } from '#domain/auto-pause.ts';
import type { RetryPolicy } from '#domain/retry-policy.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryQueue } from '#ports/delivery-queue.ts';
import type { DeliveryStore } from '#ports/delivery-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { HostResolver } from '#ports/host-resolver.ts';
import type { HttpSender } from '#ports/http-sender.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';
import type { SubscriptionStore } from '#ports/subscription-store.ts';

/** Everything the services use; each wiring point (Lambda entries, local runtime) builds one. */
export interface ServiceDeps {
  readonly subscriptions: SubscriptionStore;
  readonly events: EventStore;
  readonly deliveries: DeliveryStore;
  readonly attempts: AttemptStore;
  readonly queue: DeliveryQueue;
  readonly clock: Clock;
  readonly metrics: DeliveryMetrics;
  readonly defaultRetryPolicy: RetryPolicy;
  readonly allowPrivateTargets: boolean;
  readonly resolver: HostResolver;
}

export interface SenderDeps extends ServiceDeps {
  readonly http: HttpSender;
  readonly attemptTimeoutMs: number;
  /** When a subscription that keeps dead-lettering is paused; DEFAULT_AUTO_PAUSE_POLICY when absent. */
  readonly autoPause?: AutoPausePolicy;
}

export const iso = (ms: number) => new Date(ms).toISOString();
