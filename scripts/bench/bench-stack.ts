import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime, type Runtime } from '#local/runtime.ts';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { InvocationMeter } from './invocation-meter.ts';
import { SdkMeter } from './sdk-meter.ts';
import { SinkReceiver, type SinkAnswer } from './sink-receiver.ts';
import { pool } from './stats.ts';

/** A 1 KB JSON payload (the size the cost figures are quoted for). */
export const PAYLOAD_1KB = { pad: 'a'.repeat(1010) };

export interface BenchStack {
  readonly runtime: Runtime;
  readonly api: ApiClient;
  readonly receiver: SinkReceiver;
  /** Present when started with `meter: true` (it adds reads around every indexed write, so speed runs go without). */
  readonly sdk: SdkMeter;
  readonly lambdas: InvocationMeter;
  /** `count` subscriptions to the sink, all for `eventType`. */
  subscribe(count: number, eventType: string, retryPolicy?: Record<string, number>): Promise<string[]>;
  /** Publishes `count` events through POST /v1/events, `concurrency` at a time. */
  publishHttp(count: number, concurrency: number, type: string, onPublished?: (i: number, startedAt: number, deliveryIds: string[]) => void): Promise<void>;
  /** Waits until the runtime has recorded `n` deliveries as delivered (bounded by `timeoutMs`). */
  waitDelivered(n: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

/** The real local runtime on a fresh data folder, metered, with a sink receiver. */
export async function startBenchStack(
  options: { answer?: (id: string, attempt: number) => SinkAnswer; senderConcurrency?: number; meter?: boolean } = {},
): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookline-bench-'));
  const lambdas = new InvocationMeter();
  const receiver = await new SinkReceiver(options.answer).start();
  const runtime = await startRuntime({
    dataDir,
    port: 0,
    logLevel: 'SILENT',
    scheduleIntervalMs: { sweeper: 3_600_000 },
    env: { HOOKLINE_SENDER_TIMEOUT_MS: '5000' },
    wrapHandler: lambdas.wrap,
    ...(options.senderConcurrency ? { senderConcurrency: options.senderConcurrency } : {}),
  });
  const sdk = new SdkMeter(runtime.endpoints.dynamodb);
  if (options.meter) sdk.attach(runtime.clients.dynamodb, runtime.clients.sqs);
  const api = apiClient(runtime.url, runtime.adminKey);
  return {
    runtime,
    api,
    receiver,
    sdk,
    lambdas,
    async subscribe(count, eventType, retryPolicy) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await api.post('/v1/subscriptions', { url: `${receiver.url}/s${i}`, eventTypes: [eventType], ...(retryPolicy ? { retryPolicy } : {}) });
        if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
        ids.push(res.body.id);
      }
      return ids;
    },
    async publishHttp(count, concurrency, type, onPublished) {
      await pool(count, concurrency, async (i) => {
        const startedAt = performance.timeOrigin + performance.now();
        const res = await api.post('/v1/events', { type, payload: PAYLOAD_1KB });
        if (res.status !== 202) throw new Error(`publish failed: ${res.status} ${JSON.stringify(res.body)}`);
        onPublished?.(i, startedAt, res.body.deliveryIds);
      });
    },
    async waitDelivered(n, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while ((runtime.metrics.counts.DeliveriesSucceeded ?? 0) < n) {
        if (Date.now() > deadline) throw new Error(`only ${runtime.metrics.counts.DeliveriesSucceeded ?? 0} of ${n} delivered within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return performance.timeOrigin + performance.now();
    },
    async stop() {
      await runtime.stop();
      await receiver.stop();
      sdk.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
