import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { QUEUES } from '../../lambdas/config/topology.ts';
import { DEFAULT_RETENTION } from '../../lambdas/domain/retention.ts';
import { DEFAULT_RETRY_POLICY, RETRY_PRESETS } from '../../lambdas/domain/retry-policy.ts';
import { CONTEXT_KEYS, settingsFromContext, type ContextKey } from '../../lib/context.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { HooklineStack } from '../../lib/hookline-stack.ts';
import { findTopologyResource, type TemplateJson } from '../../lib/topology-metadata.ts';
import { validateRetryPolicy, WebhookDelivery, worstCaseAttempts } from '../../lib/webhook-delivery.ts';
import { bareStack, resourcesOfType, TEST_ENV, testApp } from './helpers/synth.ts';
import { allowedActionsOn, statementsOf } from './helpers/template.ts';

describe('retry defaults are validated at synth time', () => {
  const cases: [string, object | undefined, RegExp | undefined][] = [
    ['no override: the built-in policy', undefined, undefined],
    ['the "10 s doubling to 30 min, 6 tries" preset', RETRY_PRESETS.tenSecondsToThirtyMinutes, undefined],
    ['a shorter deadline', { deadlineSeconds: 86_400 }, undefined],
    ['an unknown field', { retries: 5 }, /not a retry policy field/],
    ['a fractional delay', { initialDelaySeconds: 1.5 }, /whole number/],
    ['a deadline past SQS retention', { deadlineSeconds: 14 * 86_400 }, /between/],
    [
      'more attempts than the delivery queue allows receives',
      { initialDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: 0, deadlineSeconds: 100_000 },
      /redrives after 1000 receives/,
    ],
    [
      'the same, bounded by maxAttempts',
      {
        initialDelaySeconds: 1,
        multiplier: 1,
        maxDelaySeconds: 1,
        jitter: 0,
        deadlineSeconds: 100_000,
        maxAttempts: 50,
      },
      undefined,
    ],
  ];
  for (const [name, override, error] of cases) {
    test(name, () => {
      if (error)
        assert.throws(
          () => validateRetryPolicy(override as never),
          (e: Error) => e instanceof InvalidPropError && error.test(e.message),
        );
      else assert.ok(validateRetryPolicy(override as never).deadlineSeconds < QUEUES.delivery.retentionSeconds);
    });
  }

  test('worst case for the default policy: about a hundred attempts in 72 h, far below maxReceiveCount', () => {
    const attempts = worstCaseAttempts(DEFAULT_RETRY_POLICY);
    assert.ok(attempts > 50 && attempts < 150, String(attempts));
    assert.equal(worstCaseAttempts(RETRY_PRESETS.tenSecondsToThirtyMinutes), 6);
  });

  test('WebhookDelivery refuses a bad policy before building anything', () => {
    const stack = bareStack();
    assert.throws(() => new WebhookDelivery(stack, 'Hooks', { retryPolicy: { jitter: 2 } }), InvalidPropError);
  });

  test('WebhookDelivery refuses a sender timeout that leaves no time to record the outcome', () => {
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { senderTimeout: Duration.seconds(45) }),
      /senderTimeout/,
    );
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { senderTimeout: Duration.millis(500) }),
      /senderTimeout/,
    );
  });

  test('WebhookDelivery refuses a secrets cache TTL under a second, past a day, or in fractions of a second', () => {
    for (const ttl of [Duration.millis(500), Duration.hours(25), Duration.millis(1500)])
      assert.throws(() => new WebhookDelivery(bareStack(), 'Hooks', { secretsCacheTtl: ttl }), /secretsCacheTtl/);
  });

  test('WebhookDelivery refuses nonsensical retention', () => {
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { retention: { deadLetterDays: 0 } }),
      /retention.deadLetterDays/,
    );
  });
});

describe('WebhookDelivery with every prop set', () => {
  const app = testApp();
  const stack = new HooklineStack(app, 'HooklineCustom', {
    env: TEST_ENV,
    delivery: {
      retryPolicy: { maxDelaySeconds: 1800, maxAttempts: 6 },
      senderMaxConcurrency: 50,
      ingestMaxConcurrency: 3,
      senderTimeout: Duration.seconds(10),
      secretsCacheTtl: Duration.minutes(5),
      logRetention: RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
      onCallEmail: 'oncall@example.com',
      deadLetterAlarm: { preset: 'low-volume' },
      retention: { archiveColdAfterDays: 60, archiveExpireAfterDays: 730, archiveDelivered: true },
      tracing: false,
      alarmNamePrefix: 'hooks-',
    },
  });
  const producer = new iam.Role(stack, 'Producer', { assumedBy: new iam.AccountRootPrincipal() });
  const reporter = new iam.Role(stack, 'Reporter', { assumedBy: new iam.AccountRootPrincipal() });
  const operator = new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() });
  stack.delivery.grantPublish(producer);
  stack.delivery.grantReadDeliveries(reporter);
  stack.delivery.grantReadAdminKey(operator);
  stack.delivery.grantReplay(operator);
  stack.delivery.grantArchiveOperations(operator);
  const template = Template.fromStack(stack);
  const json = template.toJSON() as TemplateJson;
  const envOf = (key: 'api' | 'ingest' | 'sender' | 'sweeper') =>
    (findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
  const policyOf = (role: iam.Role) =>
    JSON.stringify(
      resourcesOfType(json, 'AWS::IAM::Policy').filter(([, p]) =>
        JSON.stringify(p.Properties!.Roles).includes(stack.getLogicalId(role.node.defaultChild as iam.CfnRole)),
      ),
    );

  test('retryPolicy reaches every function that schedules retries as HOOKLINE_DEFAULT_RETRY_POLICY', () => {
    for (const key of ['api', 'ingest', 'sender'] as const)
      assert.deepEqual(JSON.parse(envOf(key).HOOKLINE_DEFAULT_RETRY_POLICY as string), {
        maxDelaySeconds: 1800,
        maxAttempts: 6,
      });
    assert.equal(stack.delivery.retryPolicy.maxAttempts, 6);
  });

  test('senderTimeout reaches the sender and the sweeper', () => {
    assert.equal(envOf('sender').HOOKLINE_SENDER_TIMEOUT_MS, '10000');
    assert.equal(envOf('sweeper').HOOKLINE_SENDER_TIMEOUT_MS, '10000');
  });

  test("retention.archiveDelivered reaches every function that stamps a row's TTL", () => {
    for (const key of ['api', 'ingest', 'sender', 'sweeper'] as const)
      assert.equal(envOf(key).HOOKLINE_ARCHIVE_DELIVERED, '1', key);
  });

  test('secretsCacheTtl reaches the functions that open signing secrets, the sender and the api', () => {
    assert.equal(envOf('sender').HOOKLINE_SECRETS_CACHE_SECONDS, '300');
    assert.equal(envOf('api').HOOKLINE_SECRETS_CACHE_SECONDS, '300');
    assert.equal(envOf('ingest').HOOKLINE_SECRETS_CACHE_SECONDS, undefined);
  });

  test('concurrency caps reach the event source mappings', () => {
    assert.deepEqual(findTopologyResource(json, 'event-source/delivery').properties.ScalingConfig, {
      MaximumConcurrency: 50,
    });
    assert.deepEqual(findTopologyResource(json, 'event-source/ingest').properties.ScalingConfig, {
      MaximumConcurrency: 3,
    });
  });

  test('logRetention applies to every log group', () => {
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  test('DESTROY reaches tables (without deletion protection), buckets, log groups, key and secret', () => {
    template.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    for (const type of [
      'AWS::DynamoDB::Table',
      'AWS::S3::Bucket',
      'AWS::Logs::LogGroup',
      'AWS::KMS::Key',
      'AWS::SecretsManager::Secret',
    ]) {
      template.allResources(type, { DeletionPolicy: 'Delete' });
    }
  });

  test('tracing can be turned off, and then no X-Ray permission is granted', () => {
    for (const [, fn] of resourcesOfType(json, 'AWS::Lambda::Function'))
      assert.notDeepEqual(fn.Properties!.TracingConfig, { Mode: 'Active' });
    assert.ok(!JSON.stringify(statementsOf(json, 'sender')).includes('xray:'));
  });

  test('alarm preset, prefix and email subscription', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'hooks-WebhookDLQRateHigh',
      Period: 3600,
      Threshold: 20,
    });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
  });

  test('archive lifecycle follows retention', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 60 }],
            ExpirationInDays: 730,
          }),
        ]),
      },
    });
    assert.deepEqual(stack.delivery.retention, {
      deliveredDays: DEFAULT_RETENTION.deliveredDays,
      deadLetterDays: DEFAULT_RETENTION.deadLetterDays,
      archiveColdAfterDays: 60,
      archiveExpireAfterDays: 730,
      archiveDelivered: true,
    });
  });

  test('grantPublish: SendMessage on the ingest queue only', () => {
    const ingest = findTopologyResource(json, 'queue/ingest').logicalId;
    const delivery = findTopologyResource(json, 'queue/delivery').logicalId;
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: stack.getLogicalId(producer.node.defaultChild as iam.CfnRole) }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Action: Match.arrayWith(['sqs:SendMessage']),
            Resource: { 'Fn::GetAtt': [ingest, 'Arn'] },
          }),
        ],
      },
    });
    assert.ok(!policyOf(producer).includes(delivery));
    assert.ok(!policyOf(producer).includes('sqs:ReceiveMessage'));
  });

  test('grantReadDeliveries: read-only on deliveries and attempts', () => {
    const p = policyOf(reporter);
    assert.ok(p.includes('dynamodb:Query'));
    assert.ok(!p.includes('dynamodb:PutItem') && !p.includes('dynamodb:UpdateItem'));
    assert.ok(p.includes(findTopologyResource(json, 'table/deliveries').logicalId));
    assert.ok(p.includes(findTopologyResource(json, 'table/attempts').logicalId));
    assert.ok(!p.includes(findTopologyResource(json, 'table/subscriptions').logicalId));
  });

  test('grantReadAdminKey: GetSecretValue on the admin key', () => {
    assert.match(policyOf(operator), /secretsmanager:GetSecretValue/);
  });

  test('grantReplay and grantArchiveOperations: InvokeFunction on the replay and archiver functions only', () => {
    const p = policyOf(operator);
    assert.match(p, /lambda:InvokeFunction/);
    assert.ok(p.includes(findTopologyResource(json, 'function/replay').logicalId));
    assert.ok(p.includes(findTopologyResource(json, 'function/archiver').logicalId));
    for (const other of ['api', 'sender', 'ingest', 'sweeper'] as const)
      assert.ok(!p.includes(findTopologyResource(json, `function/${other}`).logicalId), other);
  });

  test('retention longer than the DynamoDB TTL net is refused (rows would vanish unarchived)', () => {
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { retention: { deadLetterDays: 200 } }),
      /retention.deadLetterDays/,
    );
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { retention: { deliveredDays: 60 } }),
      /retention.deliveredDays/,
    );
    assert.ok(new WebhookDelivery(bareStack(), 'Hooks', { retention: { deliveredDays: 53, deadLetterDays: 113 } }));
  });

  test('exposes queues, tables, functions and topic', () => {
    const d = stack.delivery;
    for (const key of ['api', 'ingest', 'sender', 'sweeper', 'replay', 'archiver', 'notifier'] as const)
      assert.ok(d.functions[key], key);
    // The default Function URL entry checks keys in the api: no authorizer function.
    assert.equal(d.functions.authorizer, undefined);
    assert.ok(
      d.ingestQueue && d.deliveryQueue && d.ingestRedriveQueue && d.deliveryRedriveQueue && d.topic && d.archive.bucket,
    );
    assert.deepEqual(Object.keys(d.tables).sort(), [
      'apiKeys',
      'archiveBatches',
      'attempts',
      'deliveries',
      'eventTypes',
      'events',
      'idempotencyKeys',
      'ingestManifests',
      'keyring',
      'notices',
      'portalSessions',
      'rateLimits',
      'replays',
      'routes',
      'subscriptions',
    ]);
    assert.ok(
      allowedActionsOn(json, 'sender', findTopologyResource(json, 'queue/delivery').logicalId).has(
        'sqs:ChangeMessageVisibility',
      ),
    );
  });
});

describe('bin context: `-c key=value` settings', () => {
  const from = (values: Partial<Record<ContextKey, unknown>>) => settingsFromContext((k) => values[k]);

  test('no context: defaults everywhere', () => {
    const s = from({});
    assert.equal(s.stackName, 'Hookline');
    assert.equal(s.delivery.onCallEmail, undefined);
    assert.equal(s.delivery.removalPolicy, undefined);
    assert.equal(s.delivery.deadLetterAlarm?.preset, undefined);
    assert.equal(s.delivery.apiType, undefined, 'the construct picks the HTTP API');
  });

  test('command-line strings are parsed into typed props', () => {
    const s = from({
      stackName: 'HooklineStaging',
      onCallEmail: 'oncall@example.com',
      alarmPreset: 'low-volume',
      dlqAlarmThreshold: '50',
      dlqAlarmPeriodMinutes: '15',
      apiAuth: 'iam',
      senderMaxConcurrency: '40',
      senderSlowLaneMaxConcurrency: '12',
      senderSlowAfterMs: '0',
      logRetentionDays: '90',
      removalPolicy: 'destroy',
      retryPolicy: '{"maxAttempts":6}',
      senderTimeoutMs: '8000',
      tracing: 'true',
      logLevel: 'INFO',
      platformLogLevel: 'INFO',
      apiAccessLog: 'standard',
      pointInTimeRecovery: 'configuration',
      secretsCacheTtlSeconds: '300',
      archiveDelivered: 'true',
      apiRateLimit: '20',
      apiType: 'rest',
    });
    assert.equal(s.stackName, 'HooklineStaging');
    assert.equal(s.delivery.deadLetterAlarm?.preset, 'low-volume');
    assert.equal(s.delivery.deadLetterAlarm?.threshold, 50);
    assert.equal(s.delivery.deadLetterAlarm?.period?.toMinutes(), 15);
    assert.equal(s.delivery.apiAuth, 'iam');
    assert.equal(s.delivery.apiType, 'rest');
    assert.equal(s.delivery.senderMaxConcurrency, 40);
    assert.equal(s.delivery.senderSlowLaneMaxConcurrency, 12);
    assert.equal(s.delivery.senderSlowAfter?.toMilliseconds(), 0, 'the slow lane turned off');
    assert.equal(s.delivery.logRetention, RetentionDays.THREE_MONTHS);
    assert.equal(s.delivery.removalPolicy, RemovalPolicy.DESTROY);
    assert.deepEqual(s.delivery.retryPolicy, { maxAttempts: 6 });
    assert.equal(s.delivery.senderTimeout?.toMilliseconds(), 8000);
    assert.equal(s.delivery.tracing, true);
    assert.equal(s.delivery.logLevel, 'INFO');
    assert.equal(s.delivery.platformLogLevel, 'INFO');
    assert.equal(s.delivery.apiAccessLog, 'standard');
    assert.equal(s.delivery.pointInTimeRecovery, 'configuration');
    assert.equal(s.delivery.secretsCacheTtl?.toSeconds(), 300);
    assert.equal(s.delivery.retention?.archiveDelivered, true);
    assert.deepEqual(s.delivery.apiThrottling, { rateLimit: 20, burstLimit: 200 });
  });

  const bad: [ContextKey, string][] = [
    ['alarmPreset', 'noisy'],
    ['apiAuth', 'basic'],
    ['apiType', 'websocket'],
    ['senderMaxConcurrency', 'many'],
    ['senderSlowLaneMaxConcurrency', 'ten'],
    ['senderSlowAfterMs', '5s'],
    ['logRetentionDays', '31'],
    ['removalPolicy', 'snapshot'],
    ['retryPolicy', '{nope'],
    ['tracing', 'yes'],
    ['logLevel', 'VERBOSE'],
    ['platformLogLevel', 'ERROR'],
    ['apiAccessLog', 'full'],
    ['pointInTimeRecovery', 'some'],
    ['secretsCacheTtlSeconds', 'an hour'],
  ];
  for (const [key, value] of bad) {
    test(`refuses ${key}=${value}`, () => assert.throws(() => from({ [key]: value }), InvalidPropError));
  }

  test('every context key is documented in docs/aws.md', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../docs/aws.md', import.meta.url), 'utf8');
    for (const key of CONTEXT_KEYS) assert.ok(doc.includes(`\`${key}\``), `docs/aws.md does not mention ${key}`);
  });
});
