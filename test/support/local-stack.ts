import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime, type Runtime, type RuntimeOptions } from '#local/runtime.ts';
import { apiClient, type ApiClient } from './api-client.ts';
import { TestReceiver } from './receiver.ts';
import { testResourcePrefix } from './resource-prefix.ts';
import { waitFor } from './wait.ts';

/** Retries every second, no jitter, 30 s deadline: retry behaviour in seconds, not hours. */
export const FAST_RETRY_POLICY = {
  initialDelaySeconds: 1,
  multiplier: 1,
  maxDelaySeconds: 1,
  jitter: 0,
  deadlineSeconds: 30,
};

/** How a delivery's latest attempt ended, for a timeout's message: its status or its error. */
function lastAttempt(log: readonly { status: number | null; error: string | null }[] | undefined): string {
  const a = log?.at(-1);
  return a ? (a.error ?? `HTTP ${a.status}`) : 'none';
}

export interface LocalStack {
  readonly runtime: Runtime;
  readonly api: ApiClient;
  readonly receiver: TestReceiver;
  /** Creates a subscription to `path` on the receiver and registers its secret for verification. */
  subscribe(path: string, extra?: Record<string, unknown>): Promise<{ id: string; secret: string }>;
  /** `audience`: the event's `tenantId`, `audience: 'all'` or `subscriptionIds` (default: none, the producer's own subscriptions). */
  publish(
    type: string,
    payload: unknown,
    id?: string,
    audience?: { tenantId?: string; audience?: 'all'; subscriptionIds?: string[] },
  ): Promise<{ eventId: string; deliveryIds: string[] }>;
  delivery(id: string): Promise<any>;
  /** The id of an event's delivery to a subscription, once the event is stored (one published through the ingest queue, say). */
  deliveryIdOf(eventId: string, subscriptionId: string): Promise<string>;
  waitForState(id: string, states: readonly string[], timeoutMs?: number): Promise<any>;
  stop(): Promise<void>;
}

/**
 * The real local runtime (dynalite + fauxqs over HTTP, or the AWS_ENDPOINT_URL_* endpoints; real
 * handlers) on a fresh data folder, plus a receiver.
 */
export async function startLocalStack(options: Partial<RuntimeOptions> = {}): Promise<LocalStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hookline-test-'));
  const runtime = await startRuntime({
    port: 0,
    logLevel: 'SILENT',
    scheduleIntervalMs: { sweeper: 3_600_000 },
    resourcePrefix: testResourcePrefix(dataDir),
    ...options,
    dataDir,
    // A grace long enough that a first attempt's message goes without reading its row (younger than
    // the grace less one message's longest handling, 9 s here), as in production; the sweeper's own tests shorten it.
    env: { HOOKLINE_SENDER_TIMEOUT_MS: '2000', HOOKLINE_SWEEP_GRACE_SECONDS: '30', ...options.env },
  });
  const receiver = await new TestReceiver().start();
  const api = apiClient(runtime.url, runtime.adminKey);
  const stack: LocalStack = {
    runtime,
    api,
    receiver,
    async subscribe(path, extra = {}) {
      const res = await api.post('/v1/subscriptions', {
        url: `${receiver.url}${path}`,
        retryPolicy: FAST_RETRY_POLICY,
        ...extra,
      });
      if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
      receiver.expectSecret(path, res.body.secret);
      return { id: res.body.id, secret: res.body.secret };
    },
    async publish(type, payload, id, audience = {}) {
      const res = await api.post('/v1/events', { type, payload, ...(id ? { id } : {}), ...audience });
      if (res.status !== 202 && res.status !== 200)
        throw new Error(`publish failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async delivery(id) {
      return (await api.get(`/v1/deliveries/${id}`)).body;
    },
    deliveryIdOf(eventId, subscriptionId) {
      return waitFor(`event ${eventId} to be stored`, async () => {
        const res = await api.get(`/v1/events/${encodeURIComponent(eventId)}`);
        return res.status === 200
          ? res.body.deliveries.find((d: { subscriptionId: string }) => d.subscriptionId === subscriptionId)?.deliveryId
          : undefined;
      });
    },
    waitForState(id, states, timeoutMs = 20_000) {
      let last:
        | {
            state?: string;
            attempts?: number;
            nextAttemptAt?: string;
            attemptLog?: { status: number | null; error: string | null }[];
          }
        | undefined;
      // A timeout says where the delivery stood, so a failure on a loaded CI machine can be read.
      return waitFor(
        `${id} to be ${states.join('|')}`,
        async () => {
          const d = await stack.delivery(id);
          last = d;
          return states.includes(d.state) ? d : undefined;
        },
        timeoutMs,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message} (last seen: ${last ? `${last.state}, ${last.attempts} attempts, next ${last.nextAttemptAt}, last attempt ${lastAttempt(last.attemptLog)}` : 'never read'})`,
        );
      });
    },
    async stop() {
      await receiver.stop();
      await runtime.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}
