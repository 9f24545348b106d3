import { COMMON_ENVIRONMENT, type CountMetric } from '#config/topology.ts';

/**
 * The fields that make a JSON log record an Embedded Metric Format document: CloudWatch extracts
 * `metric` (one count, dimension `service`, which the Powertools logger writes at the root of
 * every record) and keeps every other field of the record as a property Logs Insights can
 * filter and group by. So a per-attempt record carries subscriptionId as a property, never as
 * a dimension whose cardinality would grow with the customer count.
 */
export function emfCount(metric: CountMetric, nowMs: number): Record<string, unknown> {
  return {
    _aws: {
      Timestamp: nowMs,
      CloudWatchMetrics: [
        {
          Namespace: COMMON_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
          Dimensions: [['service']],
          Metrics: [{ Name: metric, Unit: 'Count' }],
        },
      ],
    },
    [metric]: 1,
  };
}
