/** Latencies in a log-spaced histogram (2 % buckets from 1 ms): percentiles of millions of deliveries in a few KB. */
export class LatencyHistogram {
  private readonly counts = new Float64Array(1200);
  total = 0;

  add(ms: number): void {
    const bucket = Math.min(
      this.counts.length - 1,
      Math.max(0, Math.floor(Math.log(Math.max(1, ms)) / Math.log(1.02))),
    );
    this.counts[bucket]!++;
    this.total++;
  }

  percentile(p: number): number {
    if (this.total === 0) return 0;
    const want = p * this.total;
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= want) return Math.round(1.02 ** (i + 1));
    }
    return Math.round(1.02 ** this.counts.length);
  }
}

/** What one simulated second looked like. */
export interface SecondSample {
  readonly second: number;
  readonly delivered: number;
  readonly published: number;
  readonly queueAgeSeconds: number;
  readonly inFlight: number;
  readonly senderConcurrency: number;
}

export interface RateLimitFigures {
  readonly limit: number;
  readonly drainRate: number;
  readonly mostInOneSecond: number;
}

/**
 * A rate-limited run's figures from when each POST began (ms, in order): the mean rate from the
 * first to the last (the backlog never ran dry in between: the scenario sends over the limit)
 * and the most that began in any window of 1 s, sliding, not only whole seconds.
 */
export function rateLimitFigures(limit: number, times: readonly number[]): RateLimitFigures {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  const spanSeconds = times.length > 1 ? (times.at(-1)! - times[0]!) / 1000 : 0;
  return { limit, drainRate: spanSeconds > 0 ? (times.length - 1) / spanSeconds : 0, mostInOneSecond: most };
}
