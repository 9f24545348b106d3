import type { DeliveryMetrics } from '#ports/metrics.ts';

/** Local stand-in for EMF: counters the runtime prints and tests read. */
export class MemoryMetrics implements DeliveryMetrics {
  readonly counts: Record<string, number> = {};
  readonly latencies: number[] = [];

  count(name: string, value = 1): void {
    this.counts[name] = (this.counts[name] ?? 0) + value;
  }

  latency(ms: number): void {
    if (this.latencies.length < 100_000) this.latencies.push(ms);
  }
}
