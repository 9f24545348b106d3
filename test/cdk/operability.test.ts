import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Match } from 'aws-cdk-lib/assertions';
import { InvalidPropError } from '../../lib/errors.ts';
import { METRICS } from '../../lambdas/config/topology.ts';
import { defaultHookline, gatewayHookline, resourcesOfType, synthHookline } from './helpers/synth.ts';

/** The dashboard body is a JSON document CloudFormation assembles with Fn::Join; its literal parts are enough to read. */
function dashboardBody(json: ReturnType<typeof defaultHookline>['json']): string {
  const [[, dashboard]] = resourcesOfType(json, 'AWS::CloudWatch::Dashboard') as unknown as [
    [string, { Properties: { DashboardBody: unknown } }],
  ];
  return JSON.stringify(dashboard.Properties.DashboardBody);
}

describe('the CloudWatch dashboard', () => {
  const { template, json } = defaultHookline();

  test('one dashboard, named after the stack and given as an output', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Hookline-Hookline' });
    template.hasOutput('DashboardName', { Value: Match.objectLike({ Ref: Match.stringLikeRegexp('Dashboard') }) });
  });

  test("shows the pipeline: every delivery metric, success rate, latency percentiles, queues and redrive queues, the fan-out's lag behind the events stream, Lambda health, the API and the alarms", () => {
    const body = dashboardBody(json);
    for (const name of [
      METRICS.eventsPublished,
      METRICS.succeeded,
      METRICS.retried,
      METRICS.deadLettered,
      METRICS.attemptLatency,
    ])
      assert.ok(body.includes(name), name);
    for (const needle of [
      'success rate',
      'p50',
      'p99',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      'redrive queue',
      'Errors',
      'Throttles',
      'Duration',
      'ConcurrentExecutions',
      'IteratorAge',
      'Latency',
      'alarm',
    ]) {
      assert.ok(body.includes(needle), needle);
    }
  });

  // The two API types name their metrics differently; the dashboard plots whichever is deployed.
  const apiMetrics = (b: string) => [...b.matchAll(/AWS\/ApiGateway\\",\\"([A-Za-z0-9]+)\\"/g)].map((m) => m[1]).sort();
  const urlMetrics = (b: string) => [...b.matchAll(/AWS\/Lambda\\",\\"(Url[A-Za-z0-9]+)\\"/g)].map((m) => m[1]).sort();
  test("plots the Function URL's (the default) requests, 4xx, 5xx and latency, Lambda's Url metrics", () => {
    assert.deepEqual(urlMetrics(dashboardBody(json)), [
      'Url4xxCount',
      'Url5xxCount',
      'UrlRequestCount',
      'UrlRequestLatency',
      'UrlRequestLatency',
    ]);
    assert.deepEqual(apiMetrics(dashboardBody(json)), []);
  });

  test("plots the HTTP API's requests, 4xx, 5xx and latency with apiType: 'http'", () => {
    assert.deepEqual(apiMetrics(dashboardBody(gatewayHookline().json)), ['4xx', '5xx', 'Count', 'Latency', 'Latency']);
  });

  test("plots the REST API's metrics with apiType: 'rest'", () => {
    assert.deepEqual(apiMetrics(dashboardBody(synthHookline({ apiType: 'rest' }, 'HooklineRest').json)), [
      '4XXError',
      '5XXError',
      'Count',
      'Latency',
      'Latency',
    ]);
  });
});

describe('alarms for a stuck pipeline, API errors and a silent sweeper', () => {
  const { template } = defaultHookline();

  test('DeliveryQueueStuck: the delivery queue oldest message over 15 minutes for 5 minutes', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Hookline-DeliveryQueueStuck',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Threshold: 900,
      EvaluationPeriods: 5,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  test('ApiServerErrors: a 5xx share above 5 % in 2 periods, ignoring periods under 20 requests', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Hookline-ApiServerErrors',
      Threshold: 5,
      EvaluationPeriods: 2,
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'IF(requests >= 20, 100 * errors / requests, 0)' })]),
    });
  });

  test('SweeperNotRunning: fewer than 1 invocation a minute for 3 minutes, no data counting as breaching', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Hookline-SweeperNotRunning',
      MetricName: 'Invocations',
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      TreatMissingData: 'breaching',
    });
  });
});

describe('producers: outputs and a publish-only managed policy', () => {
  test('the stack outputs the ingest queue URL and ARN, the API URL and the producer policy', () => {
    const { template } = defaultHookline();
    for (const name of ['IngestQueueUrl', 'IngestQueueArn', 'ApiUrl', 'ProducerPolicyArn'])
      template.hasOutput(name, {});
  });

  test('with bearer auth the policy is SendMessage on the ingest queue and nothing else', () => {
    const { template } = defaultHookline();
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: [
          {
            Action: 'sqs:SendMessage',
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('QueuesIngest'), 'Arn'] },
          },
        ],
      },
    });
  });
});

describe('static egress', () => {
  test('off by default: no VPC, no NAT gateway, the sender outside any VPC', () => {
    const { template, json } = defaultHookline();
    template.resourceCountIs('AWS::EC2::VPC', 0);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    for (const [, fn] of resourcesOfType(json, 'AWS::Lambda::Function'))
      assert.equal(fn.Properties?.VpcConfig, undefined);
  });

  const egress = synthHookline({ staticEgress: { natGateways: 2 }, apiType: 'http', apiAuth: 'iam' }, 'HooklineEgress');

  test('on: NAT gateways each with an Elastic IP, the IPs as an output, DynamoDB through a gateway endpoint', () => {
    egress.template.resourceCountIs('AWS::EC2::VPC', 1);
    egress.template.resourceCountIs('AWS::EC2::NatGateway', 2);
    egress.template.resourceCountIs('AWS::EC2::EIP', 2);
    egress.template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: Match.objectLike({
        'Fn::Join': Match.arrayWith([Match.arrayWith([Match.stringLikeRegexp('dynamodb')])]),
      }),
    });
    const output = egress.json.Outputs?.EgressIps?.Value as { 'Fn::Join': [string, { Ref: string }[]] };
    assert.equal(output['Fn::Join'][0], ',');
    assert.equal(output['Fn::Join'][1].length, 2);
    for (const ref of output['Fn::Join'][1]) assert.equal(egress.json.Resources[ref.Ref]?.Type, 'AWS::EC2::EIP');
  });

  test('on: only the sender runs in the VPC, in its private subnets, with an outbound-only security group', () => {
    const inVpc = resourcesOfType(egress.json, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties?.VpcConfig !== undefined,
    );
    assert.equal(inVpc.length, 1);
    assert.match(inVpc[0]![0], /Sender/);
    egress.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupEgress: [Match.objectLike({ CidrIp: '0.0.0.0/0' })],
      SecurityGroupIngress: Match.absent(),
    });
  });

  test('with IAM auth behind API Gateway the producer policy also allows POST /v1/events on the API, and nothing else', () => {
    const [[, policy]] = resourcesOfType(egress.json, 'AWS::IAM::ManagedPolicy') as unknown as [
      [string, { Properties: { PolicyDocument: { Statement: { Action: string }[] } } }],
    ];
    assert.deepEqual(
      policy.Properties.PolicyDocument.Statement.map((s) => s.Action),
      ['sqs:SendMessage', 'execute-api:Invoke'],
    );
    const invoke = JSON.stringify(policy.Properties.PolicyDocument.Statement[1]);
    assert.match(invoke, /\/POST\/v1\/events"/);
    assert.doesNotMatch(invoke, /\*/, 'no wildcard route');
  });

  test('refuses a NAT gateway count it cannot build', () => {
    for (const natGateways of [0, 4, 1.5])
      assert.throws(
        () =>
          synthHookline({ staticEgress: { natGateways } }, `HooklineBadEgress${String(natGateways).replace('.', '')}`),
        InvalidPropError,
      );
  });
});
