import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS } from '#config/topology.ts';
import type { DeliveryMetrics } from '#ports/metrics.ts';

/** EMF metrics through Powertools: flushed by the logMetrics middleware at the end of each invocation. */
export function powertoolsMetrics(metrics: Metrics): DeliveryMetrics {
  return {
    count: (name, value = 1) => metrics.addMetric(name, MetricUnit.Count, value),
    latency: (ms) => metrics.addMetric(METRICS.attemptLatency, MetricUnit.Milliseconds, ms),
  };
}
