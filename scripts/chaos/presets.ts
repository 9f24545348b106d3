import type { ChaosOptions } from './run-chaos.ts';

/**
 * Retries every 1-4 s, 8 tries: a run's retries play out in seconds. The 10-minute deadline is
 * longer than any run, so a dead letter comes from the receiver, never from waiting out a kill.
 */
export const CHAOS_RETRY_POLICY = {
  initialDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 4,
  jitter: 0.2,
  deadlineSeconds: 600,
  maxAttempts: 8,
};

const common = {
  fanOut: 2,
  seed: 20_260_501,
  senderTimeoutMs: 1000,
  retryPolicy: CHAOS_RETRY_POLICY,
  purgeAfterKill: 1,
};

/** `npm run chaos`: a few thousand events over a few minutes. */
export const FULL_CHAOS: ChaosOptions = {
  ...common,
  events: 3000,
  publishRate: 30,
  // Longer than a backlog lasts under load, so the sweeper does not re-enqueue what is merely queued.
  sweepGraceSeconds: 15,
  killEveryMs: [3000, 6000],
  maxKills: 60,
  drainTimeoutMs: 240_000,
};

/** The version in `npm test` (test/integration/chaos-smoke.test.ts): well under 90 s. */
export const SMOKE_CHAOS: ChaosOptions = {
  ...common,
  events: 200,
  publishRate: 25,
  sweepGraceSeconds: 5,
  killEveryMs: [2000, 3000],
  maxKills: 3,
  drainTimeoutMs: 45_000,
};
