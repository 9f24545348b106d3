import { baseDelaySeconds } from '#domain/backoff.ts';
import type { RetryPolicy } from '#domain/retry-policy.ts';
import { startBenchStack } from './bench-stack.ts';

export const TIMING_POLICY: RetryPolicy = {
  initialDelaySeconds: 1,
  multiplier: 2,
  maxDelaySeconds: 8,
  jitter: 0.2,
  deadlineSeconds: 300,
};

export interface RetryTimingRun {
  readonly deliveries: number;
  readonly failuresFirst: number;
  /** Every retry's actual start minus its scheduled nextAttemptAt, in ms. */
  readonly lateness: readonly number[];
  /** Retries that started before their scheduled time (must be 0). */
  readonly early: number;
  /** Gaps between attempts outside the policy's delay ± jitter (+1 s for whole-second rounding and lateness). */
  readonly outsideJitterBounds: number;
}

/**
 * A receiver that fails each delivery `failuresFirst` times, then answers 200. The scheduled time
 * of every retry is read from the delivery as the sender writes it (nextAttemptAt after a
 * failure); the actual time is the attempt's startedAt in the attempt log.
 */
export async function measureRetryTiming(deliveries: number, failuresFirst: number): Promise<RetryTimingRun> {
  const stack = await startBenchStack({
    meter: true,
    answer: (_id, attempt) => ({ status: attempt <= failuresFirst ? 500 : 200 }),
  });
  const scheduled = new Map<string, number>();
  stack.sdk.onIndexedWrite = (table, item) => {
    if (table === 'deliveries' && item.state?.S === 'pending' && Number(item.attempts?.N ?? 0) > 0) {
      scheduled.set(`${item.id!.S} ${Number(item.attempts!.N) + 1}`, Date.parse(item.nextAttemptAt!.S!));
    }
  };
  try {
    await stack.subscribe(1, 'bench.retry', { ...TIMING_POLICY });
    const ids: string[] = [];
    await stack.publishHttp(deliveries, 4, 'bench.retry', (_i, _at, deliveryIds) => ids.push(...deliveryIds));
    await stack.waitDelivered(deliveries, 120_000);
    const lateness: number[] = [];
    let outside = 0;
    for (const id of ids) {
      const log = (await stack.api.get(`/v1/deliveries/${id}`)).body.attemptLog as {
        attempt: number;
        startedAt: string;
      }[];
      for (const a of log.filter((x) => x.attempt > 1)) {
        const due = scheduled.get(`${id} ${a.attempt}`);
        if (due === undefined) throw new Error(`no scheduled time recorded for ${id} attempt ${a.attempt}`);
        lateness.push(Date.parse(a.startedAt) - due);
        const previous = log.find((x) => x.attempt === a.attempt - 1)!;
        const gap = (Date.parse(a.startedAt) - Date.parse(previous.startedAt)) / 1000;
        const base = baseDelaySeconds(TIMING_POLICY, a.attempt - 1);
        if (gap < base * (1 - TIMING_POLICY.jitter) - 0.5 || gap > base * (1 + TIMING_POLICY.jitter) + 1.5) outside++;
      }
    }
    return {
      deliveries,
      failuresFirst,
      lateness,
      early: lateness.filter((ms) => ms < 0).length,
      outsideJitterBounds: outside,
    };
  } finally {
    await stack.stop();
  }
}
