import type { CountMetric } from '#config/topology.ts';

/** What the services report; the AWS side writes EMF through Powertools. */
export interface DeliveryMetrics {
  /** `name` is one of topology.ts's METRICS, which the alarms and dashboards match. */
  count(name: CountMetric, value?: number): void;
  latency(ms: number): void;
}

export const noMetrics: DeliveryMetrics = { count: () => {}, latency: () => {} };
