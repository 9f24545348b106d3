import { STATED_DELIVERIES_PER_SECOND, TRAFFIC } from '../bench/traffic.ts';
import type { Behaviour } from './sim/endpoints.ts';

/** What a scenario's receivers do: the plan for receiver `index` at `elapsedMs` into the measured run. */
export type ReceiverPlan = (index: number, elapsedMs: number, random: () => number) => Behaviour;

export interface Scenario {
  readonly key: string;
  readonly title: string;
  /** Subscriptions, one per tenant, each with its own receiver. */
  readonly subscriptions: number;
  /** Events published a second (fan-out 1: deliveries a second). */
  readonly ratePerSecond: number;
  /** 1: single publishes (POST /v1/events); more: POST /v1/events/batch. */
  readonly eventsPerCall: number;
  readonly publishSeconds: number;
  /** Simulated time after publishing stops, for the queue to drain. */
  readonly drainSeconds: number;
  /** Which subscription event `seq` goes to. */
  readonly target: (seq: number, random: () => number) => number;
  readonly receivers: ReceiverPlan;
  /** Some receivers fail or hang: their events may end dead-lettered or still retrying, never lost. */
  readonly failingReceivers?: boolean;
  /** The sender's event source MaximumConcurrency for this run (the construct's `maxConcurrency`). */
  readonly senderMaxConcurrency?: number;
  readonly retryPolicy?: Readonly<Record<string, unknown>>;
  /** Every subscription's `rateLimitPerSecond`. */
  readonly rateLimitPerSecond?: number;
  /** Dead letters made before the measured run and replayed in bulk during it. */
  readonly replayDeadLetters?: number;
  readonly replayWindowSeconds?: number;
  /** Deployment settings for this run (the functions' environment), on top of the defaults. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * A receiver answering in 40 to 200 ms (a typical webhook endpoint: a load balancer and an
 * enqueue), skewed toward the fast end.
 */
export const healthyLatency = (random: () => number) => 40 + 160 * random() ** 2;
const healthy: ReceiverPlan = (_i, _t, random) => ({ kind: 'ok', latencyMs: healthyLatency(random) });
const uniform = (count: number) => (_seq: number, random: () => number) => Math.floor(random() * count);

/** The size: 10 simulated minutes of publishing, a bulk replay of 1,000,000 dead letters. */
export const FULL_PUBLISH_MINUTES = 10;
export const FULL_DEAD_LETTERS = 1_000_000;

/** The scenario that meters a single publish's requests at the cost bench's stated traffic (read by its report). */
export const STATED_TRAFFIC_SCENARIO = 'stated-traffic';

/**
 * The scenarios at full size, and at `scale` (the CI quick run) with rates, counts and
 * times shrunk so the whole set runs in well under a minute while every mechanism still acts.
 */
export function scenarios(
  scale: 'full' | 'quick',
  publishMinutes = FULL_PUBLISH_MINUTES,
  deadLetters = FULL_DEAD_LETTERS,
): readonly Scenario[] {
  const q = scale === 'quick';
  const minutes = (n: number) => (q ? Math.max(10, n * 2) : n * 60);
  const hangingShare = 0.01;
  const hanging: Scenario = {
    key: 'hanging',
    title: `1 % of ${q ? '1,000' : '10,000'} endpoints hanging 15 s, ${q ? '500' : '10,000'} deliveries/s`,
    subscriptions: q ? 1_000 : 10_000,
    ratePerSecond: q ? 500 : 10_000,
    eventsPerCall: 100,
    publishSeconds: minutes(publishMinutes),
    drainSeconds: q ? 20 : 120,
    target: uniform(q ? 1_000 : 10_000),
    failingReceivers: true,
    receivers: (i, t, random) =>
      i < (q ? 1_000 : 10_000) * hangingShare ? { kind: 'hang', ms: 15_000 } : healthy(i, t, random),
    senderMaxConcurrency: q ? 40 : 400,
    // Short, so the hanging share's retries happen inside the run.
    retryPolicy: { maxAttempts: 3, initialDelaySeconds: 5, maxDelaySeconds: 30, deadlineSeconds: 600 },
  };
  const rateLimited: Scenario = {
    key: 'rate-limited',
    title: `one subscription limited to ${q ? '20' : '100'}/s, sent ${q ? '30' : '150'}/s of single publishes`,
    subscriptions: 1,
    ratePerSecond: q ? 30 : 150,
    eventsPerCall: 1,
    publishSeconds: q ? 20 : 60,
    // Long enough for the backlog (a third of what was sent) to drain at the limit.
    drainSeconds: q ? 30 : 60,
    target: () => 0,
    receivers: healthy,
    rateLimitPerSecond: q ? 20 : 100,
  };
  return [
    {
      key: 'spread',
      title: `${q ? '500' : '10,000'} deliveries/s over ${q ? '2,000' : '100,000'} subscriptions`,
      subscriptions: q ? 2_000 : 100_000,
      ratePerSecond: q ? 500 : 10_000,
      eventsPerCall: 100,
      publishSeconds: minutes(publishMinutes),
      drainSeconds: q ? 10 : 60,
      target: uniform(q ? 2_000 : 100_000),
      receivers: healthy,
      senderMaxConcurrency: q ? 40 : 400,
    },
    {
      key: 'one-subscription',
      title: `${q ? '250' : '5,000'} deliveries/s to one subscription`,
      subscriptions: 1,
      ratePerSecond: q ? 250 : 5_000,
      eventsPerCall: 1,
      publishSeconds: minutes(publishMinutes),
      drainSeconds: q ? 10 : 60,
      target: () => 0,
      receivers: healthy,
      senderMaxConcurrency: q ? 20 : 200,
    },
    hanging,
    {
      ...hanging,
      key: 'hanging-one-lane',
      title: `${hanging.title}, without the slow lane (HOOKLINE_SLOW_LANE_AFTER_MS=0)`,
      env: { HOOKLINE_SLOW_LANE_AFTER_MS: '0' },
    },
    rateLimited,
    {
      ...rateLimited,
      key: 'rate-limited-replay',
      title: `one subscription limited to ${q ? '20' : '100'}/s, ${q ? '400' : '6,000'} of its dead letters replayed in bulk at once`,
      ratePerSecond: 0,
      publishSeconds: 0,
      eventsPerCall: 100,
      replayDeadLetters: q ? 400 : 6_000,
      // All due at once: the rate gate alone paces them, so the backlog never runs dry.
      replayWindowSeconds: 0,
      drainSeconds: q ? 30 : 75,
    },
    {
      ...rateLimited,
      key: 'rate-limited-batches',
      title: `${rateLimited.title.replace('single publishes', 'publish batches of 10')}`,
      eventsPerCall: 10,
    },
    {
      key: 'down-an-hour',
      title: `one of 100 endpoints down ${q ? '40 s' : 'for an hour'}, then back; ${q ? '50' : '100'} deliveries/s`,
      subscriptions: 100,
      ratePerSecond: q ? 50 : 100,
      eventsPerCall: 1,
      publishSeconds: q ? 60 : 75 * 60,
      drainSeconds: q ? 60 : 30 * 60,
      target: uniform(100),
      failingReceivers: true,
      receivers: (i, t, random) =>
        i === 0 && t < (q ? 40_000 : 3_600_000)
          ? { kind: 'status', status: 503, latencyMs: 20 }
          : healthy(i, t, random),
    },
    {
      // The cost bench's all-in spreads its fixed costs over this traffic; its requests are
      // metered at its own rate (as fast as its clients go). Here they are metered at this one.
      key: STATED_TRAFFIC_SCENARIO,
      title: `the cost bench's stated traffic: ${(TRAFFIC.deliveriesPerMonth / 1e6).toFixed(0)} million deliveries a month (${STATED_DELIVERIES_PER_SECOND.toFixed(1)}/s), single publishes over ${TRAFFIC.subscriptions.toLocaleString('en-US')} subscriptions`,
      subscriptions: TRAFFIC.subscriptions,
      ratePerSecond: STATED_DELIVERIES_PER_SECOND,
      eventsPerCall: 1,
      publishSeconds: q ? 60 : 600,
      drainSeconds: q ? 10 : 30,
      target: uniform(TRAFFIC.subscriptions),
      receivers: healthy,
    },
    {
      key: 'bulk-replay',
      title: `bulk replay of ${q ? '2,000' : deadLetters.toLocaleString('en-US')} dead letters`,
      subscriptions: 1,
      ratePerSecond: 0,
      eventsPerCall: 100,
      publishSeconds: 0,
      drainSeconds: q ? 60 : 10 * 60,
      target: () => 0,
      receivers: healthy,
      replayDeadLetters: q ? 2_000 : deadLetters,
      // The replay's spread window (the API's windowSeconds): the full run keeps the default 300 s.
      replayWindowSeconds: q ? 20 : 300,
      senderMaxConcurrency: q ? 20 : 200,
    },
  ];
}
