import type { ChaosOptions } from './run-chaos.ts';

/** Retries every 1-4 s, 8 tries, 2 min deadline: a run's retries play out in seconds. */
export const CHAOS_RETRY_POLICY = { initialDelaySeconds: 1, multiplier: 2, maxDelaySeconds: 4, jitter: 0.2, deadlineSeconds: 120, maxAttempts: 8 };

const common = { fanOut: 2, seed: 20_260_501, senderTimeoutMs: 1000, retryPolicy: CHAOS_RETRY_POLICY, purgeAfterKill: 1 };

/** `npm run chaos`: a few thousand events over a few minutes. */
export const FULL_CHAOS: ChaosOptions = {
  ...common,
  events: 3000,
  publishRate: 25,
  killEveryMs: [3000, 6000],
  maxKills: 60,
  drainTimeoutMs: 240_000,
};

/** The version in `npm test` (test/integration/chaos-smoke.test.ts): well under 90 s. */
export const SMOKE_CHAOS: ChaosOptions = {
  ...common,
  events: 200,
  publishRate: 25,
  killEveryMs: [2000, 3000],
  maxKills: 3,
  drainTimeoutMs: 45_000,
};
