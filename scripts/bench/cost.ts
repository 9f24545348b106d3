import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { PAYLOAD_1KB, startBenchStack } from './bench-stack.ts';
import { perDelivery, type PerDelivery } from './cost-model.ts';
import type { Usage } from './sdk-meter.ts';
import { sleep } from './stats.ts';

export interface CostScenario {
  readonly name: string;
  readonly fanOut: number;
  readonly events: number;
  readonly publish: 'http' | 'sqs';
  /** The receiver answers 500 this many times per delivery before a 200. */
  readonly failuresFirst: number;
}

export interface CostRun {
  readonly scenario: CostScenario;
  readonly perDelivery: PerDelivery;
  readonly usage: Usage;
}

const RETRY_EVERY_SECOND = { initialDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: 0, deadlineSeconds: 300 };

/**
 * One metered run: subscriptions first (not counted), then `events` 1 KB events published
 * through the API or the ingest queue, until every delivery is recorded delivered.
 */
export async function measureCost(scenario: CostScenario): Promise<CostRun> {
  const stack = await startBenchStack({ meter: true, answer: (_id, attempt) => ({ status: attempt <= scenario.failuresFirst ? 500 : 200 }) });
  try {
    await stack.subscribe(scenario.fanOut, 'bench.cost', RETRY_EVERY_SECOND);
    stack.sdk.reset();
    stack.lambdas.reset();
    const deliveries = scenario.events * scenario.fanOut;
    if (scenario.publish === 'http') {
      await stack.publishHttp(scenario.events, 16, 'bench.cost');
    } else {
      // A producer batching its events into the ingest queue, 10 per request (counted as SQS requests).
      const url = stack.runtime.queues.urls.ingest;
      for (let i = 0; i < scenario.events; i += 10) {
        const entries = Array.from({ length: Math.min(10, scenario.events - i) }, (_, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify({ type: 'bench.cost', payload: PAYLOAD_1KB }),
        }));
        await stack.runtime.clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
      }
    }
    await stack.waitDelivered(deliveries, 120_000 + scenario.failuresFirst * 10_000);
    // Let the pollers delete the last batches before the meter is read.
    await sleep(1500);
    const usage = stack.sdk.reset();
    const lambdas = stack.lambdas.reset();
    return { scenario, usage, perDelivery: perDelivery(usage, lambdas, deliveries, scenario.publish === 'http' ? scenario.events : 0) };
  } finally {
    await stack.stop();
  }
}
