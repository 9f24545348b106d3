import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { CliError, EXIT } from '#cli/errors.ts';
import { publishBody } from '#cli/publish.ts';
import { awsTarget, dashboardUrl, regionOfUrl } from '#cli/target.ts';

describe('hookline publish: the event body', () => {
  it('splices the payload in as written: numbers, spacing and key order unchanged', () => {
    const data = '{"z": 1.10, "a": [1e2, -0.0], "s": "\\u00e9"}';
    assert.equal(
      publishBody({ type: 'order.created', data, id: 'o-1' }),
      `{"id":"o-1","type":"order.created","payload":${data}}`,
    );
    assert.equal(publishBody({ type: 'x', data: '42' }), '{"type":"x","payload":42}');
  });

  it('carries the audience flags: --tenant, --all-tenants and each --subscription', () => {
    assert.equal(
      publishBody({ type: 'x', data: '{}', tenant: 'acme', subscription: ['sub_a', 'sub_b'] }),
      '{"type":"x","tenantId":"acme","subscriptionIds":["sub_a","sub_b"],"payload":{}}',
    );
    assert.equal(
      publishBody({ type: 'x', data: '{}', allTenants: true }),
      '{"type":"x","audience":"all","payload":{}}',
    );
  });

  it('refuses what the service would refuse, naming the flag (exit 2), before anything is sent', () => {
    const refused = (o: Parameters<typeof publishBody>[0], pattern: RegExp) =>
      assert.throws(
        () => publishBody(o),
        (e: unknown) => e instanceof CliError && e.exitCode === EXIT.usage && pattern.test(e.message),
      );
    refused({ type: 'x', data: '{"n": 9007199254740993}' }, /^--data n: is an integer beyond/);
    refused({ type: 'x', data: '{"a":1,"a":2}' }, /^--data /);
    refused({ type: 'x', data: '{"a":1} trailing' }, /^--data is not valid JSON/);
    refused({ type: 'x', data: '{"a":1}, "id": "smuggled"' }, /^--data is not valid JSON/);
    refused({ type: 'not a type', data: '{}' }, /^--type: must be at most 256 letters/);
    refused({ type: 'x', data: '{}', id: 'has space' }, /^--id: must be 1 to 128 visible ASCII characters/);
    refused({ type: 'x', data: '{}', tenant: 'a b' }, /^--tenant: must be 1 to 128 letters/);
    refused({ type: 'x', data: '{}', tenant: 'acme', allTenants: true }, /^--all-tenants: "all" reaches every tenant/);
    refused(
      { type: 'x', data: '{}', subscription: ['sub_a', 'dlv_b'] },
      /^--subscription: must be an id starting with sub_/,
    );
  });
});

describe('hookline env and publish --sqs with --aws: the stack outputs', () => {
  const outputs = [
    { OutputKey: 'ApiUrl', OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/' },
    { OutputKey: 'IngestQueueUrl', OutputValue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Hookline-Ingest' },
    { OutputKey: 'DashboardName', OutputValue: 'Hookline-Pipeline' },
    { OutputKey: 'ConsoleUrl', OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/dashboard' },
  ];
  const stack = () => {
    const cfn = mockClient(CloudFormationClient);
    cfn.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackName: 'Hookline', Outputs: outputs, CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE' }],
    });
    return cfn;
  };

  it('gives the API URL, the ingest queue URL, the CloudWatch dashboard with its console URL (region from the outputs) and the web dashboard', async () => {
    const cfn = stack();
    const target = awsTarget({}, { cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }) }, {});
    assert.deepEqual(await target.endpoints(), {
      apiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
      ingestQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Hookline-Ingest',
      dashboardName: 'Hookline-Pipeline',
      dashboardUrl:
        'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/Hookline-Pipeline',
      consoleUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/dashboard',
    });
    const queue = await target.queue();
    assert.equal(queue.queueUrl, outputs[1]!.OutputValue);
    assert.equal(
      await queue.client.config.region(),
      'eu-west-1',
      'the region of the queue URL when none is configured',
    );
    cfn.restore();
  });

  it('never takes a loopback URL from the environment (exported from npm start) with --aws; a flag still wins', async () => {
    const cfn = stack();
    const env = {
      HOOKLINE_INGEST_QUEUE_URL: 'http://127.0.0.1:3002/000000000000/hookline-ingest',
      HOOKLINE_API_URL: 'http://localhost:3000',
    };
    const target = awsTarget(
      {},
      {
        cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
        sqs: new SQSClient({ region: 'eu-west-1' }),
      },
      env,
    );
    await assert.rejects(
      target.queue(),
      (e: unknown) =>
        e instanceof CliError &&
        e.exitCode === EXIT.usage &&
        /HOOKLINE_INGEST_QUEUE_URL=http:\/\/127\.0\.0\.1:3002\S* points at this machine/.test(e.message),
    );
    await assert.rejects(target.api(), /HOOKLINE_API_URL=http:\/\/localhost:3000 points at this machine/);
    const flagged = awsTarget(
      { queueUrl: 'http://127.0.0.1:4566/000000000000/q' },
      { sqs: new SQSClient({ region: 'eu-west-1' }) },
      env,
    );
    assert.equal((await flagged.queue()).queueUrl, 'http://127.0.0.1:4566/000000000000/q');
    cfn.restore();
  });

  it('reads regions from AWS URLs and nothing else', () => {
    assert.equal(regionOfUrl('https://sqs.ap-southeast-2.amazonaws.com/1/q'), 'ap-southeast-2');
    assert.equal(regionOfUrl('https://x.execute-api.us-gov-west-1.amazonaws.com/prod'), 'us-gov-west-1');
    assert.equal(regionOfUrl('https://abc123.lambda-url.eu-central-1.on.aws/'), 'eu-central-1');
    assert.equal(regionOfUrl('https://example.com/on.aws'), undefined);
    assert.equal(regionOfUrl('http://127.0.0.1:3002/000000000000/q'), undefined);
    assert.equal(
      dashboardUrl('us-east-1', 'a b'),
      'https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1#dashboards/dashboard/a%20b',
    );
  });
});
