import type { ArchivePolicy } from '#domain/archive.ts';
import type { AutoPausePolicy } from '#domain/auto-pause.ts';
import type { RateLimit } from '#domain/rate-limit.ts';
import type { ReplayPolicy } from '#domain/replay.ts';
import type { RetentionPolicy } from '#domain/retention.ts';
import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { Archive, ArchiveManifestStore } from '#ports/archive.ts';
import type { RateLimiter } from '#ports/rate-limiter.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import type { ReplayStore } from '#ports/replay-store.ts';
import type { ServiceDeps } from './deps.ts';

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
