import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { buildDeps } from '#adapters/function-deps.ts';
import { loadLocalSecretsKey } from '#adapters/local-key-secret-cipher.ts';
import { DELIVERY_HEADERS, firstMessage } from '#app/publish/first-delivery.ts';
import { processDelivery, type SendDeps } from '#app/send/send.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';
import { eventTtlFor } from '#domain/retention.ts';
import { formatSecret, signatureHeaders } from '#domain/signing.ts';
import { STATE } from '#domain/states.ts';
import type { Delivery, EventRecord, Subscription } from '#domain/types.ts';
import { noMetrics } from '#ports/metrics.ts';
import { PAYLOAD_1KB, startBenchStack } from './bench-stack.ts';
import { profileShares, type ProfileShare } from './cpu-profile.ts';
import { memorySenderStores } from './memory-ports.ts';
import { pool } from './stats.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { USER_AGENT } from '#adapters/deps/setting-factories.ts';

export interface OverheadRun {
  /** Raw node:http keep-alive POSTs per second to the sink. */
  readonly rawPerSecond: number;
  /**
   * Raw POSTs that carry what every Standard Webhooks request must: the engine's headers, signed
   * afresh each time by the domain's signing code. No engine: the protocol's own cost on top of a raw POST.
   */
  readonly signedRawPerSecond: number;
  /** processDelivery per second with the real DynamoDB adapters against dynalite. */
  readonly emulatorPerSecond: number;
  /** processDelivery per second with in-memory stores: the engine's own cost. */
  readonly memoryPerSecond: number;
  readonly concurrency: number;
  readonly count: number;
  /** Where the in-memory engine run spent its CPU, by file or package. */
  readonly memoryProfile: readonly ProfileShare[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function fixtures(
  subscriptionId: string,
  url: string,
  count: number,
  tag: string,
): { events: EventRecord[]; deliveries: Delivery[] } {
  const now = iso(Date.now() - 1000);
  const events = Array.from({ length: count }, (_, i): EventRecord => {
    const id = `evt_bench${tag}${i}`;
    return {
      id,
      type: 'bench.overhead',
      body: JSON.stringify({ id, type: 'bench.overhead', timestamp: now, data: PAYLOAD_1KB }),
      subscriptionIds: [subscriptionId],
      deliveryIds: [deliveryIdFor(id, subscriptionId, now)],
      createdAt: now,
    };
  });
  const deliveries = events.map(
    (e): Delivery => ({
      id: e.deliveryIds[0]!,
      eventId: e.id,
      subscriptionId,
      url,
      state: STATE.pending,
      attempts: 0,
      attemptSeq: 0,
      nextAttemptAt: now,
      giveUpAt: iso(Date.now() + 3_600_000),
      headers: DELIVERY_HEADERS,
      createdAt: now,
      updatedAt: now,
    }),
  );
  return { events, deliveries };
}

async function timed(count: number, concurrency: number, one: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  await pool(count, concurrency, one);
  return count / ((performance.now() - started) / 1000);
}

/** Each delivery as production sends its first attempt: publish's message, received once, just sent: a first attempt, which reads nothing but the subscription. */
async function deliverAll(
  deps: SendDeps,
  fixture: { events: readonly EventRecord[]; deliveries: readonly Delivery[] },
  concurrency: number,
): Promise<number> {
  return timed(fixture.deliveries.length, concurrency, async (i) => {
    // The bench's subscription has no rate limit: its messages may share a queue message, as publish's do.
    const d = fixture.deliveries[i]!;
    const message = {
      ...firstMessage(fixture.events[i]!, d.subscriptionId, DEFAULT_RETRY_POLICY),
      giveUpAt: d.giveUpAt,
    };
    const outcome = await processDelivery(deps, message, { receiveCount: 1 });
    if (outcome.kind !== 'done' || outcome.note !== 'delivered')
      throw new Error(`not delivered: ${JSON.stringify(outcome)}`);
  });
}

/**
 * The sender's first attempt (sign, POST, classify, one write) against a loopback sink, next to raw
 * keep-alive POSTs to the same sink in the same run, at the same concurrency.
 */
export async function measureOverhead(count: number, concurrency: number, run: number): Promise<OverheadRun> {
  const stack = await startBenchStack();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const [subscriptionId] = await stack.subscribe(1, 'bench.overhead');
    const url = `${stack.receiver.url}/s0`;
    // The same bytes the engine sends: one 1 KB event body.
    const body = fixtures(subscriptionId!, url, 1, 'raw').events[0]!.body;
    const postWith = (headers: () => http.OutgoingHttpHeaders) => () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          url,
          { method: 'POST', agent, headers: { ...headers(), 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const post = postWith(() => ({ 'content-type': 'application/json' }));
    // The engine's header set (delivery headers, signature headers, user agent), signed per request as the engine signs.
    const secrets = [formatSecret(randomBytes(32))];
    let signedCount = 0;
    const signedPost = postWith(() => ({
      ...DELIVERY_HEADERS,
      ...signatureHeaders(secrets, `evt_signed${signedCount++}`, Math.floor(Date.now() / 1000), body),
      'user-agent': USER_AGENT,
    }));

    // Real adapters against the emulator; the events are stored directly and their deliveries never enqueued, so the runtime's own pollers never see them.
    // The runtime's own key file, so the sender opens the secrets the runtime's api sealed.
    const deps = buildDeps(
      'sender',
      stack.runtime.env,
      {
        clients: stack.runtime.clients,
        metrics: noMetrics,
        subscriptionCacheMs: 0,
        localSecretsKey: loadLocalSecretsKey(stack.runtime.dataDir),
      },
      ALL_FACTORIES,
    );
    const subscription = (await deps.subscriptions.get(subscriptionId!)) as Subscription;
    const onEmulator = fixtures(subscriptionId!, url, count, `db${run}`);
    // Publish writes no delivery row: the first attempt's one write makes it.
    await pool(onEmulator.events.length, 16, async (i) => {
      await deps.events.putIfAbsent(onEmulator.events[i]!, eventTtlFor(Date.parse(onEmulator.events[i]!.createdAt)));
    });
    const emulator = await deliverAll(deps, onEmulator, concurrency);

    // Warm both sides alike with as many as the timed run (300 left the engine's first run 10-30 % cold).
    const warm = fixtures(subscriptionId!, url, count, `warm${run}`);
    await deliverAll({ ...deps, ...memorySenderStores(subscription, warm.events) }, warm, concurrency);
    await timed(count, concurrency, post);
    await timed(count, concurrency, signedPost);
    const inMemory = fixtures(subscriptionId!, url, count, `mem${run}`);
    // Raw and signed POSTs right before and after the in-memory engine run: load from elsewhere on the machine hits all alike.
    const rawBefore = await timed(count, concurrency, post);
    const signedBefore = await timed(count, concurrency, signedPost);
    // Timed without the profiler (it slowed the engine's side alone by about 9 %), profiled in a run of its own after.
    const memory = await deliverAll(
      { ...deps, ...memorySenderStores(subscription, inMemory.events) },
      inMemory,
      concurrency,
    );
    const signedAfter = await timed(count, concurrency, signedPost);
    const rawAfter = await timed(count, concurrency, post);
    const profiled = fixtures(subscriptionId!, url, count, `prof${run}`);
    const memoryProfile = await profileShares(
      () => deliverAll({ ...deps, ...memorySenderStores(subscription, profiled.events) }, profiled, concurrency),
      { byFile: true },
    );
    return {
      rawPerSecond: (rawBefore + rawAfter) / 2,
      signedRawPerSecond: (signedBefore + signedAfter) / 2,
      emulatorPerSecond: emulator,
      memoryPerSecond: memory,
      concurrency,
      count,
      memoryProfile,
    };
  } finally {
    agent.destroy();
    await stack.stop();
  }
}
