import { mkdtempSync, rmSync } from 'node:fs';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METRICS } from '#config/topology.ts';
import { startRuntime, type Runtime, type RuntimeOptions } from '#local/runtime.ts';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { InvocationMeter } from './invocation-meter.ts';
import { LogMeter } from './log-meter.ts';
import { SdkMeter } from './sdk-meter.ts';
import { SinkReceiver, type SinkAnswer } from './sink-receiver.ts';
import { pool } from './stats.ts';

/** A 1 KB JSON payload (the size the cost figures are quoted for). */
export const PAYLOAD_1KB = { pad: 'a'.repeat(1010) };

/** A figure this build cannot produce (a route not there yet): the report says why instead of failing the run. */
export class NotMeasured extends Error {
  override readonly name = 'NotMeasured';
}

export interface BenchStack {
  readonly runtime: Runtime;
  readonly api: ApiClient;
  readonly receiver: SinkReceiver;
  /** Present when started with `meter: true` (it adds reads around every indexed write, so speed runs go without). */
  readonly sdk: SdkMeter;
  readonly lambdas: InvocationMeter;
  /** With `meter: true`: what the handlers log at the stack's default level, counted, not printed. */
  readonly logs: LogMeter;
  /** `count` subscriptions to the sink, all for `eventType`. */
  subscribe(count: number, eventType: string, retryPolicy?: Record<string, number>): Promise<string[]>;
  /** Publishes `count` events through POST /v1/events, `concurrency` at a time. */
  publishHttp(
    count: number,
    concurrency: number,
    type: string,
    onPublished?: (i: number, startedAt: number, deliveryIds: string[]) => void,
  ): Promise<void>;
  /**
   * Publishes `count` events through POST /v1/events/batch, `perRequest` per request, one request
   * at a time; returns each request body's size in bytes. NotMeasured when the route is not there.
   */
  publishBatch(count: number, perRequest: number, type: string): Promise<number[]>;
  /** Publishes `count` events to the ingest queue as a producer batching them would, 10 per SendMessageBatch. */
  publishIngest(count: number, type: string): Promise<void>;
  /** Waits until the runtime has recorded `n` deliveries as delivered (bounded by `timeoutMs`). */
  waitDelivered(n: number, timeoutMs: number): Promise<number>;
  /** Waits until the runtime's counter `metric` (a METRICS name) reaches `n` (bounded by `timeoutMs`). */
  waitCount(metric: string, n: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

/** The real local runtime on a fresh data folder, metered, with a sink receiver. */
export async function startBenchStack(
  options: {
    answer?: (id: string, attempt: number) => SinkAnswer;
    senderConcurrency?: number;
    meter?: boolean;
    /** More handler settings (the notices scenario's seconds-long periods). */
    env?: Readonly<Record<string, string>>;
    scheduleIntervalMs?: RuntimeOptions['scheduleIntervalMs'];
  } = {},
): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookline-bench-'));
  const lambdas = new InvocationMeter();
  const receiver = await new SinkReceiver(options.answer).start();
  const logs = new LogMeter();
  const runtime = await startRuntime({
    dataDir,
    port: 0,
    // Metered runs log at the stack's level into the meter; speed runs log nothing.
    ...(options.meter ? { logger: logs } : { logLevel: 'SILENT' as const }),
    scheduleIntervalMs: { sweeper: 3_600_000, notifier: 3_600_000, ...options.scheduleIntervalMs },
    env: { HOOKLINE_SENDER_TIMEOUT_MS: '5000', ...options.env },
    wrapHandler: lambdas.wrap,
    // As on Lambda: the sender and fan-out serve a subscription from a 5 s container cache (the subscriptions are made before the meter starts).
    subscriptionCacheMs: 5000,
    ...(options.senderConcurrency ? { senderConcurrency: options.senderConcurrency } : {}),
  });
  const sdk = new SdkMeter(runtime.endpoints.dynamodb);
  if (options.meter) sdk.attach(runtime.clients.dynamodb, runtime.clients.sqs);
  const api = apiClient(runtime.url, runtime.adminKey);
  const waitCount = async (metric: string, n: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while ((runtime.metrics.counts[metric] ?? 0) < n) {
      if (Date.now() > deadline)
        throw new Error(`only ${runtime.metrics.counts[metric] ?? 0} of ${n} ${metric} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.timeOrigin + performance.now();
  };
  return {
    runtime,
    api,
    receiver,
    sdk,
    lambdas,
    logs,
    async subscribe(count, eventType, retryPolicy) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await api.post('/v1/subscriptions', {
          url: `${receiver.url}/s${i}`,
          eventTypes: [eventType],
          ...(retryPolicy ? { retryPolicy } : {}),
        });
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
    async publishBatch(count, perRequest, type) {
      const sizes: number[] = [];
      for (let i = 0; i < count; i += perRequest) {
        const body = JSON.stringify({
          events: Array.from({ length: Math.min(perRequest, count - i) }, () => ({ type, payload: PAYLOAD_1KB })),
        });
        const res = await api.post('/v1/events/batch', body);
        // 404/405: the route is not in this build (the router answers 404 for a path it does not know).
        if (res.status === 404 || res.status === 405)
          throw new NotMeasured(
            `POST /v1/events/batch answered ${res.status} (the batch endpoint is not in this build)`,
          );
        const items = (res.body as { items?: { kind?: string }[] } | undefined)?.items;
        if (
          res.status !== 200 ||
          items?.length !== Math.min(perRequest, count - i) ||
          items.some((it) => it.kind !== 'accepted')
        ) {
          throw new Error(`batch publish failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        }
        sizes.push(Buffer.byteLength(body));
      }
      return sizes;
    },
    async publishIngest(count, type) {
      for (let i = 0; i < count; i += 10) {
        const entries = Array.from({ length: Math.min(10, count - i) }, (_, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify({ type, payload: PAYLOAD_1KB }),
        }));
        await runtime.clients.sqs.send(
          new SendMessageBatchCommand({ QueueUrl: runtime.queues.urls.ingest, Entries: entries }),
        );
      }
    },
    waitDelivered: (n, timeoutMs) => waitCount(METRICS.succeeded, n, timeoutMs),
    waitCount,
    async stop() {
      await runtime.stop();
      await receiver.stop();
      sdk.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
