import { startBenchStack } from './bench-stack.ts';
import { percentile, sleep } from './stats.ts';

export interface ThroughputRun {
  readonly fanOut: number;
  readonly senderConcurrency: number;
  readonly deliveries: number;
  /** Deliveries recorded delivered per second, first publish to last delivery recorded. */
  readonly perSecond: number;
}

export interface LatencyRun {
  readonly offeredPerSecond: number;
  readonly events: number;
  /** Publishes the API answered per second (below the offered rate when the API itself saturates). */
  readonly acceptedPerSecond: number;
  /** Publish request start → the receiver has the request, in ms. */
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** Publishes as fast as `concurrency` allows and times until every delivery is recorded delivered. */
export async function measureThroughput(
  deliveries: number,
  fanOut: number,
  senderConcurrency = 4,
): Promise<ThroughputRun> {
  const stack = await startBenchStack({ senderConcurrency });
  try {
    await stack.subscribe(fanOut, 'bench.e2e');
    const events = Math.ceil(deliveries / fanOut);
    const started = performance.timeOrigin + performance.now();
    await stack.publishHttp(events, 32, 'bench.e2e');
    const done = await stack.waitDelivered(events * fanOut, 600_000);
    return {
      fanOut,
      senderConcurrency,
      deliveries: events * fanOut,
      perSecond: (events * fanOut) / ((done - started) / 1000),
    };
  } finally {
    await stack.stop();
  }
}

/**
 * Open-loop publishing at a fixed offered rate for `seconds` (fan-out 1): each event is sent on
 * schedule whether or not earlier ones have finished; latency is publish start → receiver.
 */
export async function measureLatency(offeredPerSecond: number, seconds: number): Promise<LatencyRun> {
  const stack = await startBenchStack();
  try {
    await stack.subscribe(1, 'bench.latency');
    const events = Math.round(offeredPerSecond * seconds);
    const sentAt = new Map<string, number>();
    const t0 = performance.now() + 50;
    let answered = 0;
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < events; i++) {
      await sleep(Math.max(0, t0 + (i * 1000) / offeredPerSecond - performance.now()));
      const startedAt = performance.timeOrigin + performance.now();
      inFlight.push(
        stack.api.post('/v1/events', { type: 'bench.latency', payload: { i } }).then((res) => {
          if (res.status !== 202) throw new Error(`publish failed: ${res.status}`);
          answered++;
          sentAt.set(res.body.eventId, startedAt);
        }),
      );
    }
    await Promise.all(inFlight);
    const publishSeconds = (performance.now() - t0) / 1000;
    await stack.waitDelivered(events, 300_000);
    const latencies = [...sentAt].map(([id, at]) => stack.receiver.firstSeen.get(id)! - at);
    return {
      offeredPerSecond,
      events,
      acceptedPerSecond: answered / publishSeconds,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
    };
  } finally {
    await stack.stop();
  }
}
