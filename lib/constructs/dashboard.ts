import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { METRICS, type FunctionKey, type QueueKey } from '../../lambdas/config/topology.ts';
import { hooklineMetric, type ApiRequestMetrics } from './alarms.ts';
import type { HooklineQueue } from './queues.ts';

/** What the API row of the dashboard plots; HooklineApi gives it for either API type. */
export interface ApiDashboardMetrics extends ApiRequestMetrics {
  metricClientError(props?: cloudwatch.MetricOptions): cloudwatch.IMetric;
  metricLatency(props?: cloudwatch.MetricOptions): cloudwatch.IMetric;
}

export interface HooklineDashboardProps {
  readonly dashboardName: string;
  readonly queues: Readonly<Record<QueueKey, HooklineQueue>>;
  readonly functions: Readonly<Partial<Record<FunctionKey, lambda.IFunction>>>;
  readonly api: ApiDashboardMetrics;
  readonly alarms: readonly cloudwatch.IAlarm[];
}

const MINUTE = Duration.minutes(1);
const WIDTH = 12;

/**
 * One CloudWatch dashboard for the whole pipeline, in the order an on-call engineer reads it:
 * is traffic flowing and succeeding, is anything piling up, are the functions healthy, is the
 * API answering, which alarms are firing. Per-subscription figures are not here on purpose:
 * they come from the store (GET /v1/subscriptions/{id}/stats) and Logs Insights, not from
 * metric dimensions whose cardinality would grow with the customer count.
 */
export class HooklineDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: HooklineDashboardProps) {
    super(scope, id);
    const count = (name: (typeof METRICS)[keyof typeof METRICS], label: string) =>
      hooklineMetric(name, MINUTE).with({ label });
    const delivered = count(METRICS.succeeded, 'succeeded (2xx)');
    const deadLettered = count(METRICS.deadLettered, 'dead-lettered');
    const successRate = new cloudwatch.MathExpression({
      expression: 'IF(delivered + deadLettered > 0, 100 * delivered / (delivered + deadLettered), 100)',
      usingMetrics: { delivered, deadLettered },
      label: 'success rate (%)',
      period: MINUTE,
    });
    const latency = (stat: string) =>
      hooklineMetric(METRICS.attemptLatency, MINUTE, stat).with({ label: `attempt latency ${stat}` });
    const queueWidgets = Object.entries(props.queues).flatMap(([key, pair]) => [
      new cloudwatch.GraphWidget({
        title: `${key} queue: depth and oldest message (s)`,
        width: WIDTH,
        left: [
          pair.queue.metricApproximateNumberOfMessagesVisible({ period: MINUTE, label: 'visible' }),
          pair.queue.metricApproximateNumberOfMessagesNotVisible({
            period: MINUTE,
            label: 'in flight or waiting to retry',
          }),
        ],
        right: [
          pair.queue.metricApproximateAgeOfOldestMessage({
            period: MINUTE,
            statistic: cloudwatch.Stats.MAXIMUM,
            label: 'oldest message (s)',
          }),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: `${key} redrive queue (poison messages)`,
        width: WIDTH,
        left: [
          pair.redriveQueue.metricApproximateNumberOfMessagesVisible({
            period: MINUTE,
            statistic: cloudwatch.Stats.MAXIMUM,
            label: 'messages',
          }),
        ],
      }),
    ]);
    const functions = Object.entries(props.functions) as [FunctionKey, lambda.IFunction][];
    const perFunction = (title: string, metric: (fn: lambda.IFunction, key: FunctionKey) => cloudwatch.IMetric) =>
      new cloudwatch.GraphWidget({ title, width: WIDTH, left: functions.map(([key, fn]) => metric(fn, key)) });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Events and deliveries per minute',
            width: WIDTH,
            left: [
              count(METRICS.eventsPublished, 'published'),
              delivered,
              count(METRICS.retried, 'retried'),
              deadLettered,
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'Success rate (delivered / finished)',
            width: WIDTH,
            left: [successRate],
            leftYAxis: { min: 0, max: 100 },
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Attempt latency (ms)',
            width: WIDTH,
            left: [latency('p50'), latency('p99')],
          }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: WIDTH, alarms: [...props.alarms] }),
        ],
        queueWidgets,
        // How far the fan-out is behind the events table's stream: new events wait this long for their first messages.
        ...(props.functions.ingest
          ? [
              [
                new cloudwatch.GraphWidget({
                  title: "Fan-out: age of the events stream's oldest record (ms)",
                  width: WIDTH,
                  left: [
                    props.functions.ingest.metric('IteratorAge', {
                      period: MINUTE,
                      statistic: cloudwatch.Stats.MAXIMUM,
                      label: 'iterator age (max)',
                    }),
                  ],
                }),
              ],
            ]
          : []),
        [
          perFunction('Lambda errors', (fn, key) => fn.metricErrors({ period: MINUTE, label: key })),
          perFunction('Lambda throttles', (fn, key) => fn.metricThrottles({ period: MINUTE, label: key })),
        ],
        [
          perFunction('Lambda duration p99 (ms)', (fn, key) =>
            fn.metricDuration({ period: MINUTE, statistic: 'p99', label: key }),
          ),
          perFunction('Lambda concurrency (max)', (fn, key) =>
            fn.metric('ConcurrentExecutions', { period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM, label: key }),
          ),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'API requests, 4xx and 5xx',
            width: WIDTH,
            left: [
              props.api.metricCount({ period: MINUTE, label: 'requests' }),
              props.api.metricClientError({ period: MINUTE, label: '4xx' }),
              props.api.metricServerError({ period: MINUTE, label: '5xx' }),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'API latency (ms)',
            width: WIDTH,
            left: [
              props.api.metricLatency({ period: MINUTE, statistic: 'p50', label: 'p50' }),
              props.api.metricLatency({ period: MINUTE, statistic: 'p99', label: 'p99' }),
            ],
          }),
        ],
      ],
    });
  }
}
