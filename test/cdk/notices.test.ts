import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { ENV_DEFAULTS, METRICS, SCHEDULES } from '../../lambdas/config/topology.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { noticeEnvironment } from '../../lib/webhook-delivery.ts';
import { defaultHookline, synthHookline, TEST_ENV } from './helpers/synth.ts';
import { actionsOf, resourcesOf, statementsOf } from './helpers/template.ts';

/** The failure notices' pieces of the stack: the notifier, its schedule, its SES permission, its alarm. */
const withEmail = synthHookline(
  {
    notices: {
      emailIdentity: 'example.com',
      supportEmail: 'support@example.com',
      consoleUrl: 'https://console.example.com',
      firstAfter: Duration.minutes(30),
      recovered: false,
    },
  },
  'HooklineNotices',
);
const variablesOf = (s: typeof withEmail) =>
  (findTopologyResource(s.json, 'function/notifier').properties.Environment as { Variables: Record<string, unknown> })
    .Variables;
const IDENTITY_ARN = `arn:aws:ses:${TEST_ENV.region}:${TEST_ENV.account}:identity/example.com`;

describe('the notifier function', () => {
  test('runs on its topology schedule (every 5 minutes); a failed tick is not retried, the next one replaces it', () => {
    const { template, json } = defaultHookline();
    const notifier = findTopologyResource(json, 'function/notifier').logicalId;
    assert.deepEqual(
      SCHEDULES.find((s) => s.function === 'notifier'),
      { function: 'notifier', rateMinutes: 5 },
    );
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [notifier, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: notifier },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
    });
  });

  test("default props: no email (no SES identity), no support address, links to the dashboard the API serves; the domain's periods", () => {
    const { json } = defaultHookline();
    const vars = variablesOf(defaultHookline() as typeof withEmail);
    assert.deepEqual(
      [
        vars.HOOKLINE_MAIL_TRANSPORT,
        vars.HOOKLINE_MAIL_FROM,
        vars.HOOKLINE_NOTICE_SUPPORT_EMAIL,
        vars.HOOKLINE_NOTICE_FIRST_SECONDS,
        vars.HOOKLINE_NOTICE_RECOVERED,
      ],
      ['off', ENV_DEFAULTS.HOOKLINE_MAIL_FROM, 'none', '3600', '1'],
    );
    const url = Object.entries(json.Resources).find(([, r]) => r.Type === 'AWS::Lambda::Url')![0];
    assert.deepEqual(vars.HOOKLINE_CONSOLE_URL, {
      'Fn::Join': ['', [{ 'Fn::GetAtt': [url, 'FunctionUrl'] }, 'dashboard']],
    });
  });

  test('the api: portal links go to its own dashboard by default (it cannot name its own URL), to notices.consoleUrl when given', () => {
    const apiVariables = (s: typeof withEmail) =>
      (findTopologyResource(s.json, 'function/api').properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
    assert.equal(apiVariables(defaultHookline() as typeof withEmail).HOOKLINE_CONSOLE_URL, 'none');
    assert.equal(apiVariables(withEmail).HOOKLINE_CONSOLE_URL, 'https://console.example.com');
  });

  test('no SES permission at all without an identity', () => {
    const ses = statementsOf(defaultHookline().json, 'notifier').filter((s) =>
      actionsOf(s).some((a) => a.startsWith('ses:')),
    );
    assert.deepEqual(ses, []);
  });

  test('with an identity: email through SES from notices@<domain>, the props as its environment', () => {
    const vars = variablesOf(withEmail);
    assert.deepEqual(
      [
        vars.HOOKLINE_MAIL_TRANSPORT,
        vars.HOOKLINE_MAIL_FROM,
        vars.HOOKLINE_NOTICE_SUPPORT_EMAIL,
        vars.HOOKLINE_CONSOLE_URL,
        vars.HOOKLINE_NOTICE_FIRST_SECONDS,
        vars.HOOKLINE_NOTICE_RECOVERED,
        vars.HOOKLINE_NOTICE_SECOND_SECONDS,
      ],
      [
        'ses',
        'notices@example.com',
        'support@example.com',
        'https://console.example.com',
        '1800',
        '0',
        ENV_DEFAULTS.HOOKLINE_NOTICE_SECOND_SECONDS,
      ],
    );
  });

  test('ses:SendEmail on that identity only: one statement, one action, one ARN, no wildcard', () => {
    const ses = statementsOf(withEmail.json, 'notifier').filter((s) => actionsOf(s).some((a) => a.startsWith('ses:')));
    assert.equal(ses.length, 1);
    assert.deepEqual(actionsOf(ses[0]!), ['ses:SendEmail']);
    const [resource] = resourcesOf(ses[0]!);
    const joined = (resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
    const text = joined
      ? joined[1]
          .map((p) => (typeof p === 'string' ? p : (p as { Ref: string }).Ref === 'AWS::Partition' ? 'aws' : '?'))
          .join('')
      : resource;
    assert.equal(text, IDENTITY_ARN);
    for (const other of statementsOf(withEmail.json, 'notifier'))
      if (other !== ses[0]) assert.ok(!actionsOf(other).some((a) => a.startsWith('ses:')));
  });

  test('cdk-nag: zero unacknowledged findings with email on (the SES grant needs no acknowledgement)', () => {
    for (const pack of withEmail.nagPacks) {
      const report = pack.validateScope(withEmail.stack);
      assert.deepEqual(
        report.violations.map((v) => `${v.ruleName} @ ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
        [],
        pack.readPackName,
      );
    }
  });
});

describe('NoticesNotSent', () => {
  test('pages when notices failed to send at least 3 times in 15 minutes (a notice failing run after run); quiet without data', () => {
    const { template } = defaultHookline();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Hookline-NoticesNotSent',
      MetricName: METRICS.noticeSendFailures,
      Namespace: 'Hookline',
      Dimensions: [{ Name: 'service', Value: 'hookline' }],
      Statistic: 'Sum',
      Period: 900,
      Threshold: 3,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmDescription: Match.stringLikeRegexp('Runbook: docs/aws.md#noticesnotsent'),
      AlarmActions: [Match.anyValue()],
      OKActions: [Match.anyValue()],
    });
  });
});

describe('notice props are checked at synth time', () => {
  const refused = (props: Parameters<typeof noticeEnvironment>[0], name: string, pattern: RegExp) =>
    assert.throws(
      () => noticeEnvironment(props),
      (e: unknown) => e instanceof InvalidPropError && e.message.startsWith(name) && pattern.test(e.message),
    );

  test('an identity is a domain or an address; the From address must belong to it', () => {
    assert.deepEqual(noticeEnvironment({ emailIdentity: 'alerts@example.com' }), {
      HOOKLINE_MAIL_TRANSPORT: 'ses',
      HOOKLINE_MAIL_FROM: 'alerts@example.com',
    });
    assert.deepEqual(
      noticeEnvironment({ emailIdentity: 'example.com', fromAddress: 'webhooks@example.com' }).HOOKLINE_MAIL_FROM,
      'webhooks@example.com',
    );
    refused({ emailIdentity: 'not a domain' }, 'notices.emailIdentity', /neither a domain nor an email address/);
    refused(
      { emailIdentity: 'example.com', fromAddress: 'webhooks@other.com' },
      'notices.fromAddress',
      /must be an address of the SES identity example\.com/,
    );
    refused({ fromAddress: 'webhooks@example.com' }, 'notices.fromAddress', /needs notices\.emailIdentity/);
  });

  test("addresses, the dashboard URL and the periods by the handlers' own rules", () => {
    refused({ supportEmail: 'support' }, 'notices.supportEmail', /not an email address/);
    refused({ consoleUrl: 'http://console.example.com' }, 'notices.consoleUrl', /https URL/);
    refused({ firstAfter: Duration.hours(30) }, 'notices.secondAfter', /longer than firstAfterSeconds/);
    refused({ beforeExpiry: Duration.days(20) }, 'notices.beforeExpiry', /between 1 and/);
    assert.deepEqual(
      noticeEnvironment({
        secondAfter: Duration.hours(12),
        beforeExpiry: Duration.hours(3),
        lostAfter: Duration.hours(2),
      }),
      {
        HOOKLINE_NOTICE_SECOND_SECONDS: '43200',
        HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS: '10800',
        HOOKLINE_NOTICE_LOST_AFTER_SECONDS: '7200',
      },
    );
  });
});
