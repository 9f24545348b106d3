import { STATED_TRAFFIC_SCENARIO } from '../scale-model/scenarios.ts';
import { type StoredResult, storedResults } from '../scale-model/stored-results.ts';
import { TRAFFIC } from './traffic.ts';
import { usd } from './stats.ts';

/** The recorded `stated-traffic` run, if there is one. */
export const statedTrafficRun = (): StoredResult | undefined => storedResults([STATED_TRAFFIC_SCENARIO])[0];

/**
 * The single publish's requests at the stated traffic itself, beside this run's. The cost bench
 * publishes as fast as its clients go, so a stream batch, an SQS receive and a sender invocation
 * are shared there by many deliveries; at a few a second they are shared by none, and the
 * routing index and subscription caches find nothing warm. The scale model meters that rate
 * (its `stated-traffic` run); this states what it changes. Empty when that run is not recorded.
 */
export function atStatedTraffic(
  here: { readonly requests: number; readonly allIn: number },
  stored: StoredResult | undefined,
): string[] {
  const q = stored?.result.requests;
  if (!stored || !q) return [];
  const atRate = q.dollarsPerMillion.total;
  const invocations = Object.values(q.invocations).reduce((a, b) => a + b, 0);
  return [
    `**At the stated traffic itself** (single publishes, fan-out 1, first try): this run's requests are metered at its own rate, ` +
      `as fast as its clients go, where many deliveries share a stream batch, an SQS receive and a sender invocation. At ` +
      `${stored.result.meanDeliveriesPerSecond.toFixed(1)} a second over ${TRAFFIC.subscriptions.toLocaleString('en-US')} subscriptions ` +
      `the scale model's \`${STATED_TRAFFIC_SCENARIO}\` run (${stored.run.date}, ${stored.run.commit}; BENCHMARKS.md's scale model area) metered ` +
      `${q.eventsPerFanOut?.toFixed(2) ?? 'no'} event a fan-out batch and, a delivery, ${invocations.toFixed(2)} invocations, ` +
      `${q.sqsRequests.toFixed(2)} SQS requests, ${q.wru.toFixed(2)} WRU and ${q.rru.toFixed(2)} RRU (the routing index read by each publish and ` +
      `the subscription by each attempt: no cache is warm at one event per subscription every few minutes): **${usd(atRate)}** a million in requests ` +
      `where this run's are ${usd(here.requests)}. The single publish's all-in there is at least **${usd(here.allIn - here.requests + atRate)}** ` +
      `(this run's ${usd(here.allIn)} with those requests; more invocations also log and run more).`,
    '',
  ];
}
