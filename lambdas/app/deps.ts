import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { Archive, ArchiveManifestStore } from '#ports/archive.ts';
import type { ArchivePolicy } from '#domain/archive.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import type { AutoPausePolicy } from '#domain/auto-pause.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';
import type { DeliveryQueue } from '#ports/delivery-queue.ts';
import type { DeliveryStore } from '#ports/delivery-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { HostResolver } from '#ports/host-resolver.ts';
import type { HttpSender } from '#ports/http-sender.ts';
import type { RateLimit } from '#domain/rate-limit.ts';
import type { RateLimiter } from '#ports/rate-limiter.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import type { ReplayPolicy } from '#domain/replay.ts';
import type { ReplayStore } from '#ports/replay-store.ts';
import type { RetentionPolicy } from '#domain/retention.ts';
import type { RetryPolicy } from '#domain/retry-policy.ts';
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

/** The recovery and retention policies, each configuration with a documented default (topology ENV_DEFAULTS). */
export interface RecoveryPolicies {
  readonly replay: ReplayPolicy;
  readonly customerReplayLimit: RateLimit;
  readonly autoPause: AutoPausePolicy;
  readonly retention: RetentionPolicy;
  readonly archive: ArchivePolicy;
}

/** What replay, tenant access, auto-pause and archival add to the delivery engine's dependencies. */
export interface RecoveryDeps {
  readonly replays: ReplayStore;
  readonly recovery: RecoveryStore;
  readonly rateLimiter: RateLimiter;
  readonly apiKeys: ApiKeyStore;
  readonly archive: Archive;
  readonly manifests: ArchiveManifestStore;
  readonly policies: RecoveryPolicies;
}

/** The API, replay and archiver functions get both. */
export type OperatorDeps = ServiceDeps & RecoveryDeps;
