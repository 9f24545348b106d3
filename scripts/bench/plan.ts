import type { CostScenario } from './scenario.ts';
import type { RoutingPlan } from './routing.ts';

/** How much each benchmark does: the full run (~11 minutes on 2 cores) or `--quick` (~3 minutes). */
export interface BenchPlan {
  readonly runs: number;
  readonly cost: readonly CostScenario[];
  /** Deliveries the archiver, sweeper and notifier runs are measured over. */
  readonly backgroundEvents: number;
  readonly overheadCount: number;
  readonly throughputDeliveries: number;
  readonly latencySeconds: number;
  readonly latencyRates: readonly number[];
  readonly retryDeliveries: number;
  readonly retryFailures: number;
  readonly coldStartRuns: number;
  /** Deliveries of the failing-endpoint scenario that measures the failure notices' bookkeeping writes. */
  readonly noticeDeliveries: number;
  /** Events in the rate-limit burst (one run: at 20/s it drains for events / 20 seconds). */
  readonly rateLimitEvents: number;
  /** The routing index at scale (one run: its figures are read units, the same every run). */
  readonly routing: RoutingPlan;
}

/** Events per POST /v1/events/batch request in the batch scenario (the endpoint's maximum). */
export const BATCH_SIZE = 100;

const scenarios = (fo1: number, fo10: number, retry: number, batch: number): CostScenario[] => [
  {
    id: 'fo1-http',
    name: 'first try, fan-out 1, published over HTTP',
    fanOut: 1,
    events: fo1,
    publish: 'http',
    failuresFirst: 0,
    finalStatus: 200,
  },
  {
    id: 'fo1-http-batch',
    name: `first try, fan-out 1, batch published over HTTP (${BATCH_SIZE} events per request)`,
    fanOut: 1,
    events: batch,
    publish: 'http-batch',
    eventsPerRequest: BATCH_SIZE,
    failuresFirst: 0,
    finalStatus: 200,
  },
  {
    id: 'fo1-sqs',
    name: 'first try, fan-out 1, published to the ingest queue',
    fanOut: 1,
    events: fo1,
    publish: 'sqs',
    failuresFirst: 0,
    finalStatus: 200,
  },
  {
    id: 'fo10-http',
    name: 'first try, fan-out 10, published over HTTP',
    fanOut: 10,
    events: fo10,
    publish: 'http',
    failuresFirst: 0,
    finalStatus: 200,
  },
  {
    id: 'fo10-sqs',
    name: 'first try, fan-out 10, published to the ingest queue',
    fanOut: 10,
    events: fo10,
    publish: 'sqs',
    failuresFirst: 0,
    finalStatus: 200,
  },
  {
    id: 'retry-http',
    name: '3 attempts (500, 500, 200), fan-out 1, over HTTP',
    fanOut: 1,
    events: retry,
    publish: 'http',
    failuresFirst: 2,
    finalStatus: 200,
  },
  {
    id: 'retry-sqs',
    name: '3 attempts (500, 500, 200), fan-out 1, ingest queue',
    fanOut: 1,
    events: retry,
    publish: 'sqs',
    failuresFirst: 2,
    finalStatus: 200,
  },
  {
    id: 'dlq-sqs',
    name: 'permanent 400 → dead letter, fan-out 1, ingest queue',
    fanOut: 1,
    events: fo1,
    publish: 'sqs',
    failuresFirst: 0,
    finalStatus: 400,
  },
  {
    // The retry preset tenSecondsToThirtyMinutes gives up after 6 attempts: here 1 s apart.
    id: 'down-sqs',
    name: 'endpoint down for the whole deadline (6 attempts of 500, then expired), fan-out 1, ingest queue',
    fanOut: 1,
    events: retry,
    publish: 'sqs',
    failuresFirst: 6,
    finalStatus: 500,
    maxAttempts: 6,
  },
];

export const FULL_PLAN: BenchPlan = {
  runs: 3,
  cost: scenarios(200, 30, 60, 3 * BATCH_SIZE),
  backgroundEvents: 200,
  overheadCount: 1500,
  throughputDeliveries: 1000,
  latencySeconds: 10,
  latencyRates: [25, 100],
  retryDeliveries: 10,
  retryFailures: 3,
  coldStartRuns: 5,
  noticeDeliveries: 500,
  rateLimitEvents: 1000,
  // The scale: 100,000 subscriptions over 1,000 tenants (about 3 minutes, most of it seeding).
  routing: { subscriptions: 100_000, tenants: 1000, events: 200 },
};

export const QUICK_PLAN: BenchPlan = {
  runs: 1,
  cost: scenarios(30, 4, 10, BATCH_SIZE),
  backgroundEvents: 30,
  overheadCount: 300,
  throughputDeliveries: 200,
  latencySeconds: 3,
  latencyRates: [25, 100],
  retryDeliveries: 4,
  retryFailures: 2,
  coldStartRuns: 2,
  noticeDeliveries: 300,
  rateLimitEvents: 200,
  // The same 100 subscriptions a tenant at a tenth of the scale.
  routing: { subscriptions: 10_000, tenants: 100, events: 100 },
};
