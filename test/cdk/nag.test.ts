import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { defaultHookline, gatewayHookline, synthHookline, type SynthesizedHookline } from './helpers/synth.ts';

/**
 * cdk-nag (AwsSolutions and Serverless packs) must report nothing the code has not
 * acknowledged with a reason. bin/hookline.ts registers the same packs as validation
 * plugins, so `cdk synth` fails on exactly what these tests fail on.
 */
const variants: [string, () => SynthesizedHookline][] = [
  ['default props', defaultHookline],
  [
    'REST API, IAM auth, WAF, on-call email, low-volume alarm, static egress',
    () =>
      synthHookline(
        {
          apiType: 'rest',
          apiAuth: 'iam',
          onCallEmail: 'oncall@example.com',
          deadLetterAlarm: { preset: 'low-volume' },
          webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/hooks/abc',
          staticEgress: { natGateways: 2 },
        },
        'HooklineVariant',
      ),
  ],
  ['REST API, bearer auth', () => synthHookline({ apiType: 'rest' }, 'HooklineRest')],
  ['HTTP API, bearer auth', gatewayHookline],
  ['HTTP API, IAM auth', () => synthHookline({ apiType: 'http', apiAuth: 'iam' }, 'HooklineHttpIam')],
  ['Function URL, IAM auth', () => synthHookline({ apiAuth: 'iam' }, 'HooklineUrlIam')],
  ['REST API, X-Ray tracing on', () => synthHookline({ apiType: 'rest', tracing: true }, 'HooklineTraced')],
];

/** Every acknowledgement written into the template, as {resource, id, reason}. */
function acknowledgements(synth: SynthesizedHookline) {
  return Object.entries(synth.json.Resources).flatMap(([logicalId, r]) =>
    (
      (r.Metadata?.cdk_nag as { rules_to_suppress?: { id: string; reason: string }[] } | undefined)
        ?.rules_to_suppress ?? []
    ).map((a) => ({ logicalId, type: r.Type, ...a })),
  );
}

for (const [name, synth] of variants) {
  describe(`cdk-nag: ${name}`, () => {
    const s = synth();

    for (const pack of s.nagPacks) {
      test(`${pack.readPackName}: zero unacknowledged findings`, () => {
        const report = pack.validateScope(s.stack);
        const findings = report.violations.map(
          (v) =>
            `${v.ruleName} @ ${v.violatingResources.map((r) => r.constructPath).join(', ')}: ${v.description.slice(0, 160)}`,
        );
        assert.deepEqual(findings, []);
      });
    }

    test('no errors or warnings annotated on the stack', () => {
      assert.deepEqual(Annotations.fromStack(s.stack).findError('*', Match.anyValue()), []);
      assert.deepEqual(Annotations.fromStack(s.stack).findWarning('*', Match.anyValue()), []);
    });

    test('every acknowledgement carries a reason a reviewer can check', () => {
      const acks = acknowledgements(s);
      assert.ok(acks.length > 0);
      for (const a of acks)
        assert.ok(a.reason.length >= 60 && /\s/.test(a.reason), `${a.logicalId} ${a.id}: "${a.reason}"`);
    });
  });
}

test('the set of acknowledged rules is pinned: a new acknowledgement is a visible change', () => {
  const ids = [...new Set(acknowledgements(defaultHookline()).map((a) => a.id.replace(/<[^>]+>/g, '<ref>')))].sort();
  // The default Function URL entry has no API Gateway rule to acknowledge: an HTTP API's open routes
  // need APIG4 (lib/constructs/http-api.ts); APIG2, APIG3, COG4 and the CloudWatch role's IAM4 are
  // REST rules, acknowledged in lib/constructs/rest-api.ts.
  // Resource::* is the ingest function's dynamodb:ListStreams (its events-stream source), which has no resource-level permissions.
  assert.deepEqual(ids, [
    'AwsSolutions-IAM5[Resource::*]',
    'AwsSolutions-IAM5[Resource::<ref>/deliveries/*]',
    'AwsSolutions-IAM5[Resource::<ref>/index/*]',
    'AwsSolutions-L1',
    'AwsSolutions-S1',
    'AwsSolutions-SMG4',
    'AwsSolutions-SQS3',
    'Serverless-EventBusDLQ',
    'Serverless-LambdaAsyncFailureDestination',
    'Serverless-LambdaDLQ',
    'Serverless-LambdaEventSourceMappingDestination',
    'Serverless-LambdaLatestVersion',
    'Serverless-LambdaTracing',
    'Serverless-SQSRedrivePolicy',
  ]);
});

test('IAM5 Resource::* is acknowledged only on policies whose only wildcard resources are X-Ray and the stream listing', () => {
  const s = synthHookline({ tracing: true }, 'HooklineTracedHttp');
  const wildcards = acknowledgements(s).filter((x) => x.id === 'AwsSolutions-IAM5[Resource::*]');
  assert.ok(wildcards.length > 0, 'each traced function acknowledges its X-Ray statement');
  for (const a of wildcards) {
    const statements =
      (
        s.json.Resources[a.logicalId]!.Properties?.PolicyDocument as
          | { Statement: { Action: string[]; Resource: unknown }[] }
          | undefined
      )?.Statement ?? [];
    // CloudFormation merges the statements on "*" of one role (the traced ingest function has both).
    for (const st of statements.filter((x) => x.Resource === '*'))
      assert.ok(
        [st.Action]
          .flat()
          .every((action) =>
            ['xray:PutTelemetryRecords', 'xray:PutTraceSegments', 'dynamodb:ListStreams'].includes(action),
          ),
        `${a.logicalId}: ${JSON.stringify(st)}`,
      );
  }
});
