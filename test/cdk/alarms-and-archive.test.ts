import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Capture, Match, Template } from 'aws-cdk-lib/assertions';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  DEAD_LETTER_ALARM_PRESETS,
  HooklineAlarms,
  resolveDeadLetterSettings,
  type HooklineAlarmsProps,
} from '../../lib/constructs/alarms.ts';
import { ArchiveBucket } from '../../lib/constructs/archive.ts';
import { ARCHIVE_LIFECYCLE_DEFAULTS } from '../../lambdas/config/topology.ts';
import { HooklineQueues } from '../../lib/constructs/queues.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import type { TemplateJson } from '../../lib/topology-metadata.ts';
import { bareStack, defaultHookline, resourcesOfType } from './helpers/synth.ts';

function alarmsTemplate(
  props: Partial<Omit<HooklineAlarmsProps, 'queues' | 'sender' | 'sweeper' | 'fanOut' | 'api'>> = {},
) {
  const stack = bareStack('Alarms');
  const queues = new HooklineQueues(stack, 'Queues');
  const inline = (id: string) =>
    new lambda.Function(stack, id, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('export const handler = async () => {}'),
    });
  const sender = inline('Sender');
  const sweeper = inline('Sweeper');
  const fanOut = inline('FanOut');
  const restApi = new apigw.RestApi(stack, 'Api', { deploy: true });
  restApi.root.addMethod('GET', new apigw.MockIntegration());
  const alarms = new HooklineAlarms(stack, 'Alarms', {
    queues: queues.all,
    sender,
    sweeper,
    fanOut,
    api: restApi,
    ...props,
  });
  const template = Template.fromStack(stack);
  return {
    stack,
    alarms,
    template,
    json: template.toJSON() as TemplateJson,
    ids: {
      topic: stack.getLogicalId(alarms.topic.node.defaultChild as never),
      sender: stack.getLogicalId(sender.node.defaultChild as never),
      sweeper: stack.getLogicalId(sweeper.node.defaultChild as never),
      fanOut: stack.getLogicalId(fanOut.node.defaultChild as never),
      deliveryQueue: stack.getLogicalId(queues.delivery.queue.node.defaultChild as never),
      ingestRedrive: stack.getLogicalId(queues.ingest.redriveQueue.node.defaultChild as never),
      deliveryRedrive: stack.getLogicalId(queues.delivery.redriveQueue.node.defaultChild as never),
    },
  };
}

describe('alarms: WebhookDLQRateHigh', () => {
  test('default: more than 10 dead letters/s averaged over 5 min (Sum > 3000 per 300 s), sustained 10 min', () => {
    const { template, ids } = alarmsTemplate();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Alarms-WebhookDLQRateHigh',
      Namespace: 'Hookline',
      MetricName: 'DeadLettered',
      Dimensions: [{ Name: 'service', Value: 'hookline' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 3000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: ids.topic }],
    });
  });

  test('low-volume preset: more than 20 dead letters in one hour', () => {
    const { template } = alarmsTemplate({ deadLetterAlarm: { preset: 'low-volume' } });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'DeadLettered',
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 20,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
    });
  });

  test('threshold, period and evaluation are configurable', () => {
    const { template } = alarmsTemplate({
      deadLetterAlarm: { threshold: 120, period: Duration.minutes(1), evaluationPeriods: 3 },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'DeadLettered',
      Period: 60,
      Threshold: 120,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  const cases: [string, Parameters<typeof resolveDeadLetterSettings>[0], RegExp | undefined][] = [
    ['default preset', {}, undefined],
    ['low-volume preset', { preset: 'low-volume' }, undefined],
    ['override keeps "all periods breach"', { evaluationPeriods: 4 }, undefined],
    ['unknown preset', { preset: 'loud' as never }, /preset/],
    ['negative threshold', { threshold: -1 }, /threshold/],
    ['datapoints above evaluation periods', { evaluationPeriods: 2, datapointsToAlarm: 3 }, /datapointsToAlarm/],
    ['longer than a day', { period: Duration.hours(6), evaluationPeriods: 5 }, /one day/],
  ];
  for (const [name, options, error] of cases) {
    test(`settings: ${name}`, () => {
      if (error)
        assert.throws(
          () => resolveDeadLetterSettings(options),
          (e: Error) => e instanceof InvalidPropError && error.test(e.message),
        );
      else assert.ok(resolveDeadLetterSettings(options).threshold >= 0);
    });
  }

  test('presets are data: default pages at 10/s over 5 min, low-volume at 20/h', () => {
    const d = DEAD_LETTER_ALARM_PRESETS.default;
    assert.equal(d.threshold / d.period.toSeconds(), 10);
    assert.equal(d.period.toSeconds() * d.evaluationPeriods, 600);
    assert.deepEqual(
      {
        ...DEAD_LETTER_ALARM_PRESETS['low-volume'],
        period: DEAD_LETTER_ALARM_PRESETS['low-volume'].period.toSeconds(),
      },
      { threshold: 20, period: 3600, evaluationPeriods: 1, datapointsToAlarm: 1 },
    );
  });
});

describe('alarms: redrive queues, sender errors and throttles', () => {
  const { template, json, ids } = alarmsTemplate();

  for (const key of ['ingestRedrive', 'deliveryRedrive'] as const) {
    test(`${key} not empty: ApproximateNumberOfMessagesVisible > 0`, () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids[key], 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: ids.topic }],
      });
    });
  }

  test('sender errors: at least 5 in 5 minutes', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.sender } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: ids.topic }],
    });
  });

  test('sender throttles: any, in 2 consecutive 5-minute periods', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.sender } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: ids.topic }],
    });
  });

  test('every alarm notifies the on-call topic on ALARM and on OK', () => {
    const alarms = resourcesOfType(json, 'AWS::CloudWatch::Alarm');
    assert.equal(alarms.length, 11);
    for (const [id, alarm] of alarms) {
      assert.deepEqual(alarm.Properties!.AlarmActions, [{ Ref: ids.topic }], id);
      assert.deepEqual(alarm.Properties!.OKActions, [{ Ref: ids.topic }], id);
    }
  });

  test('alarm names carry a prefix so two deployments in one account do not collide', () => {
    const names = resourcesOfType(json, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties!.AlarmName as string)
      .sort();
    assert.deepEqual(names, [
      'Alarms-ApiServerErrors',
      'Alarms-DeliveryQueueStuck',
      'Alarms-DeliveryRedriveNotEmpty',
      'Alarms-FanOutBehind',
      'Alarms-IngestRedriveNotEmpty',
      'Alarms-NoticesNotSent',
      'Alarms-SenderErrors',
      'Alarms-SenderThrottles',
      'Alarms-SlowDeliveryRedriveNotEmpty',
      'Alarms-SweeperNotRunning',
      'Alarms-WebhookDLQRateHigh',
    ]);
    const custom = alarmsTemplate({ alarmNamePrefix: 'prod-hooks-' });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'prod-hooks-WebhookDLQRateHigh' });
  });

  test('the stuck-queue and API error thresholds are configurable, and an impossible percentage is refused', () => {
    const custom = alarmsTemplate({ deliveryQueueMaxAge: Duration.minutes(30), apiServerErrorPercent: 1 });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Alarms-DeliveryQueueStuck',
      Threshold: 1800,
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.deliveryQueue, 'QueueName'] } }],
    });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Alarms-ApiServerErrors',
      Threshold: 1,
    });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Alarms-SweeperNotRunning',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.sweeper } }],
    });
    for (const apiServerErrorPercent of [0, 101])
      assert.throws(() => alarmsTemplate({ apiServerErrorPercent }), InvalidPropError);
  });

  test("FanOutBehind: the fan-out's stream iterator age above a minute for 5 minutes, no data counting as fine", () => {
    const { template, ids } = alarmsTemplate();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Alarms-FanOutBehind',
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.fanOut } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 60_000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 5,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: ids.topic }],
    });
  });

  test('sender alarm thresholds are configurable', () => {
    const custom = alarmsTemplate({
      senderErrors: { threshold: 1, period: Duration.minutes(1) },
      senderThrottles: { threshold: 10, evaluationPeriods: 1 },
    });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Threshold: 1, Period: 60 });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Throttles',
      Threshold: 10,
      EvaluationPeriods: 1,
    });
  });
});

describe('alarms: on-call topic', () => {
  test('encrypted with a rotating customer-managed key that CloudWatch may use', () => {
    const { template, json } = alarmsTemplate();
    const key = new Capture();
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] } });
    assert.equal(json.Resources[key.asString()]!.Properties!.EnableKeyRotation, true);
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Effect: 'Allow',
          }),
        ]),
      },
    });
  });

  test('TLS-only publishing, and CloudWatch alarms from this account may publish', () => {
    const { template } = alarmsTemplate();
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } },
          }),
        ]),
      },
    });
  });

  test('no subscription without an on-call email; an email subscription with one', () => {
    alarmsTemplate().template.resourceCountIs('AWS::SNS::Subscription', 0);
    const { template, ids } = alarmsTemplate({ onCallEmail: 'oncall@example.com' });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: ids.topic },
    });
  });

  test('a malformed email is refused at synth time', () => {
    assert.throws(() => alarmsTemplate({ onCallEmail: 'not-an-email' }), InvalidPropError);
  });

  test('the full stack wires every alarm to its own on-call topic', () => {
    const { json } = defaultHookline();
    const topics = resourcesOfType(json, 'AWS::SNS::Topic').map(([id]) => id);
    assert.equal(topics.length, 1);
    const alarms = resourcesOfType(json, 'AWS::CloudWatch::Alarm');
    assert.equal(alarms.length, 11);
    for (const [, alarm] of alarms) assert.deepEqual(alarm.Properties!.AlarmActions, [{ Ref: topics[0] }]);
  });
});

describe('archive bucket', () => {
  function archive(props?: ConstructorParameters<typeof ArchiveBucket>[2]) {
    const stack = bareStack('Archive');
    const a = new ArchiveBucket(stack, 'Archive', props);
    const writer = new iam.Role(stack, 'Writer', { assumedBy: new iam.AccountRootPrincipal() });
    a.grantWrite(writer);
    const template = Template.fromStack(stack);
    return {
      stack,
      a,
      template,
      json: template.toJSON() as TemplateJson,
      archiveId: stack.getLogicalId(a.bucket.node.defaultChild as never),
      logsId: stack.getLogicalId(a.accessLogsBucket.node.defaultChild as never),
      writerId: stack.getLogicalId(writer.node.defaultChild as never),
    };
  }
  const { template, json, archiveId, logsId, writerId } = archive();

  test('both buckets: SSE-S3, all public access blocked, bucket owner enforced, retained', () => {
    template.allResourcesProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    template.allResources('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  test('both buckets deny requests that are not over TLS', () => {
    for (const bucket of [archiveId, logsId]) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucket },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  test('archive: versioned, server access logs to the log bucket', () => {
    const props = json.Resources[archiveId]!.Properties!;
    assert.deepEqual(props.VersioningConfiguration, { Status: 'Enabled' });
    assert.deepEqual(props.LoggingConfiguration, { DestinationBucketName: { Ref: logsId }, LogFilePrefix: 'archive/' });
  });

  test('archive: Glacier Instant Retrieval, then deleted, at the lifecycle defaults; old versions after 30 days, stuck uploads after 7', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Status: 'Enabled',
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: ARCHIVE_LIFECYCLE_DEFAULTS.coldAfterDays }],
            ExpirationInDays: ARCHIVE_LIFECYCLE_DEFAULTS.expireAfterDays,
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          }),
        ]),
      },
    });
  });

  test('access logs expire at their default retention', () => {
    assert.deepEqual(json.Resources[logsId]!.Properties!.LifecycleConfiguration, {
      Rules: [
        {
          ExpirationInDays: ARCHIVE_LIFECYCLE_DEFAULTS.accessLogRetentionDays,
          Id: 'expire-access-logs',
          Status: 'Enabled',
        },
      ],
    });
  });

  test('retention is configurable and checked', () => {
    archive({ coldAfterDays: 10, expireAfterDays: 100 }).template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 10 }],
            ExpirationInDays: 100,
          }),
        ]),
      },
    });
    assert.throws(() => archive({ coldAfterDays: 30, expireAfterDays: 30 }), InvalidPropError);
    assert.throws(() => archive({ expireAfterDays: 0 }), InvalidPropError);
  });

  test('DESTROY is available for test stacks', () => {
    archive({ removalPolicy: RemovalPolicy.DESTROY }).template.allResources('AWS::S3::Bucket', {
      DeletionPolicy: 'Delete',
    });
  });

  test('grantWrite gives put-only access to the archive bucket', () => {
    const policy = resourcesOfType(json, 'AWS::IAM::Policy').find(([, p]) =>
      JSON.stringify(p.Properties!.Roles).includes(writerId),
    )![1];
    const actions = (
      policy.Properties!.PolicyDocument as { Statement: { Action: string | string[] }[] }
    ).Statement.flatMap((s) => s.Action);
    assert.ok(actions.includes('s3:PutObject'));
    assert.ok(!actions.some((a) => /s3:(GetObject|DeleteObject)/.test(a)), String(actions));
  });

  test('the full stack has exactly these two buckets', () => {
    defaultHookline().template.resourceCountIs('AWS::S3::Bucket', 2);
  });
});
