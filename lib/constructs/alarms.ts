import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { COMMON_ENVIRONMENT, METRICS, QUEUES, type QueueKey } from '../../lambdas/config/topology.ts';
import { InvalidPropError } from '../errors.ts';
import type { HooklineQueue } from './queues.ts';

/**
 * The request metrics `ApiServerErrors` divides. HooklineApi gives them for the HTTP and the
 * REST API alike (so do RestApi and HttpApi themselves); their metric names differ per type.
 */
export interface ApiRequestMetrics {
  metricCount(props?: cloudwatch.MetricOptions): cloudwatch.IMetric;
  metricServerError(props?: cloudwatch.MetricOptions): cloudwatch.IMetric;
}

/** Named settings for the `WebhookDLQRateHigh` alarm. */
export type DeadLetterAlarmPreset = 'default' | 'low-volume';

/** How the dead-letter rate alarm decides to page. The threshold is a count of dead letters per period. */
export interface DeadLetterAlarmSettings {
  /** Pages when more than this many dead letters are counted in one period. */
  readonly threshold: number;
  readonly period: Duration;
  /** Consecutive periods looked at. */
  readonly evaluationPeriods: number;
  /** Of those, how many must breach. */
  readonly datapointsToAlarm: number;
}

/**
 * - `default`: more than 10 dead letters per second averaged over 5 minutes (3000 per 5 min),
 *   sustained for 10 minutes (2 of 2 periods). For producers sending thousands a second.
 * - `low-volume`: more than 20 dead letters within one hour.
 */
export const DEAD_LETTER_ALARM_PRESETS: Readonly<Record<DeadLetterAlarmPreset, DeadLetterAlarmSettings>> = {
  default: { threshold: 10 * 300, period: Duration.minutes(5), evaluationPeriods: 2, datapointsToAlarm: 2 },
  'low-volume': { threshold: 20, period: Duration.hours(1), evaluationPeriods: 1, datapointsToAlarm: 1 },
};

/** A preset, optionally with some settings replaced. */
export interface DeadLetterAlarmOptions extends Partial<DeadLetterAlarmSettings> {
  /** @default 'default' */
  readonly preset?: DeadLetterAlarmPreset;
}

/** Settings for the sender errors and throttles alarms. */
export interface LambdaAlarmSettings {
  /** Pages when at least this many are counted in one period. */
  readonly threshold: number;
  readonly period: Duration;
  readonly evaluationPeriods: number;
}

export interface HooklineAlarmsProps {
  readonly queues: Readonly<Record<QueueKey, HooklineQueue>>;
  readonly sender: lambda.IFunction;
  /** Subscribes this address to the on-call topic (it must confirm the subscription). */
  readonly onCallEmail?: string;
  readonly deadLetterAlarm?: DeadLetterAlarmOptions;
  /** @default at least 5 errors in 5 minutes */
  readonly senderErrors?: Partial<LambdaAlarmSettings>;
  /** @default at least 1 throttle in each of 2 consecutive 5-minute periods */
  readonly senderThrottles?: Partial<LambdaAlarmSettings>;
  /** Prepended to every alarm name so two deployments in one account stay apart. @default `${stackName}-` */
  readonly alarmNamePrefix?: string;
  /** The sweeper: the `SweeperNotRunning` alarm watches its invocations. */
  readonly sweeper: lambda.IFunction;
  /** The fan-out (the ingest function, on the events table's stream): the `FanOutBehind` alarm watches its iterator age. */
  readonly fanOut: lambda.IFunction;
  /** The API: the `ApiServerErrors` alarm watches its 5xx rate. */
  readonly api: ApiRequestMetrics;
  /** `DeliveryQueueStuck`: how old the oldest not-yet-retried delivery message may get. @default 15 minutes */
  readonly deliveryQueueMaxAge?: Duration;
  /** `ApiServerErrors`: the 5xx share of requests (%) over 5 minutes, in 2 consecutive periods, that pages. @default 5 */
  readonly apiServerErrorPercent?: number;
  /** For the topic's KMS key. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** The producer-wide metrics the alarms watch, as the handlers emit them with Powertools EMF. */
export function hooklineMetric(
  metricName: (typeof METRICS)[keyof typeof METRICS],
  period: Duration,
  statistic = cloudwatch.Stats.SUM,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: COMMON_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: COMMON_ENVIRONMENT.POWERTOOLS_SERVICE_NAME },
    statistic,
    period,
  });
}

/**
 * On-call paging: an encrypted, TLS-only SNS topic and the producer-wide alarms that notify
 * it (on ALARM and on OK). Per-event failures never page (a single dead letter is normal);
 * these alarms mean something systemic: a producer bug, a network problem, a crashing handler.
 */
export class HooklineAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly topicKey: kms.Key;
  readonly deadLetterRate: cloudwatch.Alarm;
  readonly redriveNotEmpty: Readonly<Record<QueueKey, cloudwatch.Alarm>>;
  readonly senderErrors: cloudwatch.Alarm;
  readonly senderThrottles: cloudwatch.Alarm;
  readonly deliveryQueueStuck: cloudwatch.Alarm;
  readonly apiServerErrors: cloudwatch.Alarm;
  readonly sweeperNotRunning: cloudwatch.Alarm;
  /** The stream's oldest record waits for the fan-out too long: new events are not being sent. */
  readonly fanOutBehind: cloudwatch.Alarm;
  /** Failure notices keep failing to send (SES refusing, the publish failing): customers are not being told. */
  readonly noticesNotSent: cloudwatch.Alarm;
  readonly deadLetterSettings: DeadLetterAlarmSettings;

  constructor(scope: Construct, id: string, props: HooklineAlarmsProps) {
    super(scope, id);
    const prefix = props.alarmNamePrefix ?? `${Stack.of(this).stackName}-`;

    // CloudWatch can only publish to an encrypted topic whose customer-managed key lets it
    // use the key (the key-policy statement AWS documents for alarm actions); the AWS-managed
    // aws/sns key cannot be shared with CloudWatch.
    this.topicKey = new kms.Key(this, 'TopicKey', {
      description: 'Hookline on-call SNS topic encryption',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.topicKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new sns.Topic(this, 'OnCallTopic', {
      displayName: 'Hookline on-call',
      masterKey: this.topicKey,
      enforceSSL: true,
    });
    // The topic policy CDK writes for enforceSSL replaces SNS's default policy, so alarm
    // actions need an explicit allow; the source-account condition stops a confused deputy.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarms',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (props.onCallEmail !== undefined) {
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.onCallEmail)) {
        throw new InvalidPropError('onCallEmail', `is not an email address: '${props.onCallEmail}'`);
      }
      const subscription = new subscriptions.EmailSubscription(props.onCallEmail);
      this.topic.addSubscription(subscription);
      const emailSubscription = this.topic.node.children.find((c) => c instanceof sns.Subscription);
      if (emailSubscription) {
        acknowledgeNag(emailSubscription, [
          {
            id: 'Serverless-SNSRedrivePolicy',
            reason:
              'An email page that SNS cannot deliver would sit unread in a DLQ; the alarm itself stays in ALARM in CloudWatch, and the runbook checks the subscription is confirmed.',
          },
        ]);
      }
    }
    const action = new actions.SnsAction(this.topic);
    const wire = (alarm: cloudwatch.Alarm) => {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    };

    this.deadLetterSettings = resolveDeadLetterSettings(props.deadLetterAlarm);
    const dl = this.deadLetterSettings;
    this.deadLetterRate = wire(
      new cloudwatch.Alarm(this, 'WebhookDLQRateHigh', {
        alarmName: `${prefix}WebhookDLQRateHigh`,
        alarmDescription:
          `More than ${dl.threshold} deliveries dead-lettered per ${dl.period.toHumanString()} in ${dl.datapointsToAlarm} of ${dl.evaluationPeriods} periods, across all subscriptions. ` +
          'Systemic: a producer-side bug or a network problem. Runbook: docs/aws.md#webhookdlqratehigh',
        metric: hooklineMetric(METRICS.deadLettered, dl.period),
        threshold: dl.threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: dl.evaluationPeriods,
        datapointsToAlarm: dl.datapointsToAlarm,
        // No dead letters means no datapoints at all: that is the healthy case.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    const redrive = {} as Record<QueueKey, cloudwatch.Alarm>;
    for (const [key, pair] of Object.entries(props.queues) as [QueueKey, HooklineQueue][]) {
      const name = `${key.charAt(0).toUpperCase()}${key.slice(1)}RedriveNotEmpty`;
      redrive[key] = wire(
        new cloudwatch.Alarm(this, name, {
          alarmName: `${prefix}${name}`,
          alarmDescription: `The ${key} redrive queue holds poison messages: a handler failed on each of them ${QUEUES[key].maxReceiveCount} times and they are no longer processed. Runbook: docs/aws.md#redrivenotempty`,
          metric: pair.redriveQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: cloudwatch.Stats.MAXIMUM,
          }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    this.redriveNotEmpty = redrive;

    const errors = { threshold: 5, period: Duration.minutes(5), evaluationPeriods: 1, ...props.senderErrors };
    this.senderErrors = wire(
      new cloudwatch.Alarm(this, 'SenderErrors', {
        alarmName: `${prefix}SenderErrors`,
        alarmDescription:
          'The sender function is failing whole invocations (not individual deliveries, which are reported as batch item failures). Runbook: docs/aws.md#sendererrors',
        metric: props.sender.metricErrors({ period: errors.period, statistic: cloudwatch.Stats.SUM }),
        threshold: errors.threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: errors.evaluationPeriods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const throttles = { threshold: 1, period: Duration.minutes(5), evaluationPeriods: 2, ...props.senderThrottles };
    this.senderThrottles = wire(
      new cloudwatch.Alarm(this, 'SenderThrottles', {
        alarmName: `${prefix}SenderThrottles`,
        alarmDescription:
          'The sender function is being throttled: account or reserved concurrency is below the event source cap, so deliveries are delayed. Runbook: docs/aws.md#senderthrottles',
        metric: props.sender.metricThrottles({ period: throttles.period, statistic: cloudwatch.Stats.SUM }),
        threshold: throttles.threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: throttles.evaluationPeriods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );

    // SQS leaves a message out of ApproximateAgeOfOldestMessage once it has been received three
    // times, so deliveries waiting in their backoff drop out of it after their second retry:
    // what stays old is a message nobody is receiving (a stuck pipeline).
    const maxAge = props.deliveryQueueMaxAge ?? Duration.minutes(15);
    this.deliveryQueueStuck = wire(
      new cloudwatch.Alarm(this, 'DeliveryQueueStuck', {
        alarmName: `${prefix}DeliveryQueueStuck`,
        alarmDescription: `The oldest delivery message not yet retried twice has waited more than ${maxAge.toHumanString()} for 5 minutes: the sender is not consuming the delivery queue. Runbook: docs/aws.md#deliveryqueuestuck`,
        metric: props.queues.delivery.queue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(1),
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        threshold: maxAge.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    const percent = props.apiServerErrorPercent ?? 5;
    if (!(percent > 0 && percent <= 100))
      throw new InvalidPropError('apiServerErrorPercent', `must be more than 0 and at most 100, got ${percent}`);
    const window = Duration.minutes(5);
    this.apiServerErrors = wire(
      new cloudwatch.Alarm(this, 'ApiServerErrors', {
        alarmName: `${prefix}ApiServerErrors`,
        alarmDescription: `More than ${percent} % of API requests answered 5xx in each of 2 consecutive 5-minute periods (at least 20 requests each). Runbook: docs/aws.md#apiservererrors`,
        // Below 20 requests a period one failure is too loud a signal; such periods count as fine.
        metric: new cloudwatch.MathExpression({
          expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
          usingMetrics: {
            requests: props.api.metricCount({ period: window }),
            errors: props.api.metricServerError({ period: window }),
          },
          period: window,
          label: '5xx (%)',
        }),
        threshold: percent,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    // The sweeper runs every minute; no invocation at all for 3 minutes (missing data) is the failure.
    this.sweeperNotRunning = wire(
      new cloudwatch.Alarm(this, 'SweeperNotRunning', {
        alarmName: `${prefix}SweeperNotRunning`,
        alarmDescription:
          'The sweeper has not run for 3 minutes: lost delivery messages are not re-enqueued and past-deadline deliveries are not expired. Runbook: docs/aws.md#sweepernotrunning',
        metric: props.sweeper.metricInvocations({ period: Duration.minutes(1), statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      }),
    );
    // The stream's records reach the fan-out within a second or two; a minute behind for five is a
    // fan-out failing or throttled, and past the sweeper's grace (2 minutes) the sweeper sends the
    // events' deliveries instead, slower and a read each.
    this.fanOutBehind = wire(
      new cloudwatch.Alarm(this, 'FanOutBehind', {
        alarmName: `${prefix}FanOutBehind`,
        alarmDescription:
          "The events table's stream holds records older than a minute, for 5 minutes: the fan-out (the ingest function) is failing or throttled, so new events wait for the sweeper. Runbook: docs/aws.md#fanoutbehind",
        metric: new cloudwatch.Metric({
          namespace: 'AWS/Lambda',
          metricName: 'IteratorAge',
          dimensionsMap: { FunctionName: props.fanOut.functionName },
          period: Duration.minutes(1),
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        threshold: 60_000,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    // Each failed notice is tried again at the next notifier run (every 5 minutes): three failures in
    // 15 minutes is one notice failing run after run, or several at once, not a passing blip.
    this.noticesNotSent = wire(
      new cloudwatch.Alarm(this, 'NoticesNotSent', {
        alarmName: `${prefix}NoticesNotSent`,
        alarmDescription:
          'Failure notices (email through SES, operational webhooks) failed to send at least 3 times in 15 minutes: customers whose endpoints fail are not being told. ' +
          'The notifier logs each failure as "notice not sent" with the error. Runbook: docs/aws.md#noticesnotsent',
        metric: hooklineMetric(METRICS.noticeSendFailures, Duration.minutes(15)),
        threshold: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        // No failures means no datapoints: the healthy case.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** Every alarm this construct owns. */
  get alarms(): readonly cloudwatch.Alarm[] {
    return [
      this.deadLetterRate,
      ...Object.values(this.redriveNotEmpty),
      this.senderErrors,
      this.senderThrottles,
      this.deliveryQueueStuck,
      this.apiServerErrors,
      this.sweeperNotRunning,
      this.noticesNotSent,
    ];
  }
}

/** The preset's settings with any explicit overrides applied, checked against CloudWatch's limits. */
export function resolveDeadLetterSettings(options: DeadLetterAlarmOptions = {}): DeadLetterAlarmSettings {
  const { preset = 'default', ...overrides } = options;
  const base = DEAD_LETTER_ALARM_PRESETS[preset];
  if (!base)
    throw new InvalidPropError(
      'deadLetterAlarm.preset',
      `must be one of ${Object.keys(DEAD_LETTER_ALARM_PRESETS).join(', ')}`,
    );
  const defined = Object.fromEntries(
    Object.entries(overrides).filter(([, v]) => v !== undefined),
  ) as Partial<DeadLetterAlarmSettings>;
  // Changing how many periods are looked at keeps the preset's meaning: all of them must breach.
  const datapointsToAlarm =
    defined.datapointsToAlarm ??
    (defined.evaluationPeriods !== undefined && base.datapointsToAlarm === base.evaluationPeriods
      ? defined.evaluationPeriods
      : base.datapointsToAlarm);
  const settings: DeadLetterAlarmSettings = { ...base, ...defined, datapointsToAlarm };
  if (!(settings.threshold >= 0))
    throw new InvalidPropError('deadLetterAlarm.threshold', 'must be a non-negative number');
  if (!Number.isInteger(settings.evaluationPeriods) || settings.evaluationPeriods < 1) {
    throw new InvalidPropError('deadLetterAlarm.evaluationPeriods', 'must be a positive integer');
  }
  if (
    !Number.isInteger(settings.datapointsToAlarm) ||
    settings.datapointsToAlarm < 1 ||
    settings.datapointsToAlarm > settings.evaluationPeriods
  ) {
    throw new InvalidPropError('deadLetterAlarm.datapointsToAlarm', 'must be between 1 and evaluationPeriods');
  }
  if (settings.period.toSeconds() * settings.evaluationPeriods > 86_400) {
    throw new InvalidPropError(
      'deadLetterAlarm',
      'period x evaluationPeriods must not exceed one day (CloudWatch limit)',
    );
  }
  return settings;
}
