import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { policiesFrom } from '../../lambdas/adapters/policy-env.ts';
import { parsePositiveInt } from '../../lambdas/config/env.ts';
import {
  DEFAULT_SENDER_TIMEOUT_MS,
  ENV_DEFAULTS,
  type EnvName,
  type FunctionKey,
} from '../../lambdas/config/topology.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { recoveryEnvironment, WebhookDelivery } from '../../lib/webhook-delivery.ts';
import { bareStack, defaultHookline } from './helpers/synth.ts';
import { allowedActionsOn } from './helpers/template.ts';
import { DEFAULT_RETENTION } from '../../lambdas/domain/retention.ts';
import { DOMAIN_POLICY_DEFAULTS } from '../support/policy-defaults.ts';

/** The replay and archiver functions, their schedules and their storage (issue 4's additions to the stack). */
const { template, json } = defaultHookline();
const fn = (key: 'replay' | 'archiver') => findTopologyResource(json, `function/${key}`).logicalId;

describe('replay and archiver functions', () => {
  test('both run up to Lambda’s 15 minutes: they checkpoint and stop before it, and are resumed', () => {
    for (const key of ['replay', 'archiver'] as const) {
      template.hasResourceProperties(
        'AWS::Lambda::Function',
        Match.objectLike({
          Description: Match.stringLikeRegexp(key === 'replay' ? '^Hookline replay' : '^Hookline archiver'),
          Timeout: 900,
          Architectures: ['arm64'],
        }),
      );
      assert.equal(findTopologyResource(json, `function/${key}`).properties.Timeout, 900);
    }
  });

  test('the resume schedule invokes the replay function every minute; the archiver runs daily', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn('replay'), 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 day)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn('archiver'), 'Arn'] } })],
    });
  });

  test('a failed resume tick is not retried (the next one replaces it); a failed archive run is retried twice within 6 h', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn('replay') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn('archiver') },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: Duration.hours(6).toSeconds(),
    });
  });

  test("the archiver gets the bucket name and the retention; the replay function only the retention (it bounds a bulk replay's range)", () => {
    const bucket = findTopologyResource(json, 'bucket/archive').logicalId;
    const archiverEnv = (
      findTopologyResource(json, 'function/archiver').properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    assert.deepEqual(archiverEnv.ARCHIVE_BUCKET, { Ref: bucket });
    assert.equal(archiverEnv.HOOKLINE_RETENTION_DELIVERED_DAYS, String(DEFAULT_RETENTION.deliveredDays));
    assert.equal(archiverEnv.HOOKLINE_RETENTION_DEAD_LETTER_DAYS, String(DEFAULT_RETENTION.deadLetterDays));
    // Delivered rows are not archived by default: TTL deletes them, for free.
    assert.equal(archiverEnv.HOOKLINE_ARCHIVE_DELIVERED, '0');
    const replayEnv = (
      findTopologyResource(json, 'function/replay').properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    assert.equal(replayEnv.ARCHIVE_BUCKET, undefined);
    assert.equal(replayEnv.HOOKLINE_RETENTION_DEAD_LETTER_DAYS, String(DEFAULT_RETENTION.deadLetterDays));
  });

  test('the replay function sends to the delivery queue and nothing else of SQS', () => {
    const delivery = findTopologyResource(json, 'queue/delivery').logicalId;
    const actions = allowedActionsOn(json, 'replay', delivery);
    assert.ok(actions.has('sqs:SendMessage'));
    assert.ok(!actions.has('sqs:ReceiveMessage') && !actions.has('sqs:DeleteMessage'));
  });

  test('new tables: the audit trail with its two indexes, tenant keys, rate-limit counters with TTL, archive manifests', () => {
    const replays = findTopologyResource(json, 'table/replays').properties;
    assert.deepEqual((replays.GlobalSecondaryIndexes as { IndexName: string }[]).map((i) => i.IndexName).sort(), [
      'byStartedAt',
      'running',
    ]);
    assert.deepEqual(findTopologyResource(json, 'table/rateLimits').properties.TimeToLiveSpecification, {
      AttributeName: 'expiresAt',
      Enabled: true,
    });
    for (const key of ['replays', 'apiKeys', 'rateLimits', 'archiveBatches'] as const) {
      const p = findTopologyResource(json, `table/${key}`).properties;
      assert.equal(p.BillingMode, 'PAY_PER_REQUEST', key);
      assert.deepEqual(p.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: true }, key);
      assert.equal(p.DeletionProtectionEnabled, true, key);
    }
  });

  test('operators find everything in the stack outputs', () => {
    const outputs = Object.keys(json.Outputs ?? {});
    for (const name of [
      'ReplayFunctionName',
      'ArchiverFunctionName',
      'ArchiveBucketName',
      'ApiUrl',
      'AdminKeySecretArn',
    ])
      assert.ok(outputs.includes(name), name);
  });
});

/**
 * With default props the stack must hand each function the domain's own defaults. Reading the
 * synthesized environment back through the handlers' parsers catches the CDK resolving a
 * default of its own (a restated number that drifted) rather than the one definition.
 */
describe('default props: the environment parses back to the domain defaults', () => {
  const variablesOf = (key: FunctionKey) =>
    (findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
  const strings = (vars: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(vars).filter(([, v]) => typeof v === 'string')) as Partial<
      Record<EnvName, string>
    >;

  test('every function that declares a recovery variable gets the domain policy for it', () => {
    const expected = DOMAIN_POLICY_DEFAULTS;
    const keys = ['api', 'sender', 'replay', 'archiver'] as const;
    // A variable a function does not declare falls back to ENV_DEFAULTS inside policiesFrom;
    // the declared ones come from the template, and those are what this checks.
    for (const key of keys) assert.deepEqual(policiesFrom(strings(variablesOf(key))), expected, key);
    // Not vacuous: between them the four functions are handed every recovery variable.
    const handed = new Set(keys.flatMap((key) => Object.keys(strings(variablesOf(key)))));
    const recoveryVariables = Object.keys(ENV_DEFAULTS).filter((name) =>
      /^HOOKLINE_(REPLAY|CUSTOMER|AUTO_PAUSE|RETENTION|ARCHIVE|RESTORE)_/.test(name),
    );
    assert.equal(recoveryVariables.length, 12);
    for (const name of recoveryVariables) assert.ok(handed.has(name), name);
  });

  test('the sender and the sweeper get the default per-attempt timeout', () => {
    for (const key of ['sender', 'sweeper'] as const) {
      assert.equal(
        parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', variablesOf(key).HOOKLINE_SENDER_TIMEOUT_MS as string),
        DEFAULT_SENDER_TIMEOUT_MS,
        key,
      );
    }
  });
});

describe('recovery props', () => {
  test("become the handlers' environment, only where set", () => {
    assert.deepEqual(recoveryEnvironment(), {});
    assert.deepEqual(
      recoveryEnvironment({
        replayWindow: Duration.minutes(10),
        customerReplaysPerMinute: 20,
        customerPausesPerHour: 4,
        autoPauseAfter: Duration.hours(12),
        archiveBatchSize: 500,
        restoreHold: Duration.hours(36),
      }),
      {
        HOOKLINE_REPLAY_WINDOW_SECONDS: '600',
        HOOKLINE_CUSTOMER_REPLAY_LIMIT: '20',
        // "Per minute" whatever the domain's default window: the prop pins the window too.
        HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS: '60',
        HOOKLINE_CUSTOMER_PAUSE_LIMIT: '4',
        HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS: '3600',
        HOOKLINE_AUTO_PAUSE_SECONDS: '43200',
        HOOKLINE_ARCHIVE_BATCH_SIZE: '500',
        HOOKLINE_RESTORE_HOLD_DAYS: '1.5',
      },
    );
  });

  test('are checked at synth time with the domain rules', () => {
    const cases: [string, ConstructorParameters<typeof WebhookDelivery>[2]][] = [
      ['recovery.replayWindow', { recovery: { replayWindow: Duration.days(2) } }],
      ['recovery.customerReplaysPerMinute', { recovery: { customerReplaysPerMinute: 0 } }],
      ['recovery.customerPausesPerHour', { recovery: { customerPausesPerHour: 0 } }],
      ['recovery.archiveBatchSize', { recovery: { archiveBatchSize: 5000 } }],
      ['recovery.autoPauseAfter', { recovery: { autoPauseAfter: Duration.days(91) } }],
    ];
    for (const [name, props] of cases) {
      assert.throws(
        () => new WebhookDelivery(bareStack(), 'Hooks', props),
        (e: unknown) => e instanceof InvalidPropError && e.message.includes(name),
        name,
      );
    }
  });
});
