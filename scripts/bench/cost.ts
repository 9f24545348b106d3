import { METRICS } from '#config/topology.ts';
import { startBenchStack } from './bench-stack.ts';
import { perDelivery, type PerDelivery } from './cost-model.ts';
import { type CostScenario, endsDelivered } from './scenario.ts';
import { API_GATEWAY_HTTP_METERING_BYTES } from './prices.ts';
import type { LogUsage } from './log-meter.ts';
import type { Usage } from './sdk-meter.ts';
import { sleep } from './stats.ts';

export interface CostRun {
  readonly scenario: CostScenario;
  readonly perDelivery: PerDelivery;
  readonly usage: Usage;
  /** What the handlers logged at the stack's default level while the meter ran. */
  readonly logs: LogUsage;
  /** This process's CPU time over the metered window (handlers, emulators and receiver alike: an upper bound on the handlers'). */
  readonly cpuMs: number;
}

export const RETRY_EVERY_SECOND = {
  initialDelaySeconds: 1,
  multiplier: 1,
  maxDelaySeconds: 1,
  jitter: 0,
  deadlineSeconds: 300,
};

/**
 * One metered run: subscriptions first (not counted), then `events` 1 KB events published
 * through the API (one per request or in batches) or the ingest queue, until every delivery is
 * recorded delivered (or dead-lettered, when the receiver's final answer is a 4xx).
 */
export async function measureCost(scenario: CostScenario): Promise<CostRun> {
  const answer = (_id: string, attempt: number) => ({
    status: attempt <= scenario.failuresFirst ? 500 : scenario.finalStatus,
  });
  const stack = await startBenchStack({ meter: true, answer });
  try {
    const policy = scenario.maxAttempts
      ? { ...RETRY_EVERY_SECOND, maxAttempts: scenario.maxAttempts }
      : RETRY_EVERY_SECOND;
    await stack.subscribe(scenario.fanOut, 'bench.cost', policy);
    stack.sdk.reset();
    stack.lambdas.reset();
    stack.logs.reset();
    const cpuAtStart = process.cpuUsage();
    const deliveries = scenario.events * scenario.fanOut;
    let apiRequests = 0;
    if (scenario.publish === 'http') {
      await stack.publishHttp(scenario.events, 16, 'bench.cost');
      apiRequests = scenario.events;
    } else if (scenario.publish === 'http-batch') {
      const sizes = await stack.publishBatch(scenario.events, scenario.eventsPerRequest ?? 100, 'bench.cost');
      apiRequests = sizes.reduce((n, bytes) => n + Math.max(1, Math.ceil(bytes / API_GATEWAY_HTTP_METERING_BYTES)), 0);
    } else {
      // A producer batching its events into the ingest queue, 10 per request (counted as SQS requests).
      await stack.publishIngest(scenario.events, 'bench.cost');
    }
    await stack.waitCount(
      endsDelivered(scenario) ? METRICS.succeeded : METRICS.deadLettered,
      deliveries,
      120_000 + Math.min(scenario.failuresFirst, scenario.maxAttempts ?? Infinity) * 10_000,
    );
    // Let the pollers delete the last batches before the meter is read.
    await sleep(1500);
    const usage = stack.sdk.reset();
    const lambdas = stack.lambdas.reset();
    const logs = stack.logs.reset();
    const cpu = process.cpuUsage(cpuAtStart);
    return {
      scenario,
      usage,
      logs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      perDelivery: perDelivery(usage, lambdas, deliveries, apiRequests),
    };
  } finally {
    await stack.stop();
  }
}
