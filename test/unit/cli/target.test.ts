import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { CliError, EXIT, exitCodeForStatus, UnreachableError } from '#cli/errors.ts';
import { dayRange } from '#cli/commands.ts';
import { awsTarget, localTarget } from '#cli/target.ts';
import { parseRuntimeFile } from '#local/runtime-file.ts';

const OUTPUTS = [
  { OutputKey: 'ApiUrl', OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/' },
  { OutputKey: 'AdminKeySecretArn', OutputValue: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:admin-AbCdEf' },
  { OutputKey: 'ReplayFunctionName', OutputValue: 'Hookline-ReplayFn-123' },
  { OutputKey: 'ArchiverFunctionName', OutputValue: 'Hookline-ArchiverFn-456' },
];

describe('CLI target: --aws reads the stack outputs', () => {
  it('takes the API URL, function names and (from Secrets Manager) the admin key from the named stack', async () => {
    const cfn = mockClient(CloudFormationClient);
    const sm = mockClient(SecretsManagerClient);
    cfn.on(DescribeStacksCommand, { StackName: 'HooklineProd' }).resolves({
      Stacks: [
        { StackName: 'HooklineProd', Outputs: OUTPUTS, CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE' },
      ],
    });
    sm.on(GetSecretValueCommand, { SecretId: OUTPUTS[1]!.OutputValue }).resolves({
      SecretString: 'hk_admin_from_secret',
    });
    const target = awsTarget(
      { stack: 'HooklineProd', region: 'eu-west-1' },
      {
        cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
        secretsManager: new SecretsManagerClient({ region: 'eu-west-1' }),
      },
      {},
    );

    assert.deepEqual(await target.api(), {
      url: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
      key: 'hk_admin_from_secret',
    });
    const lambda = await target.lambda();
    assert.deepEqual(
      [lambda.replayFunction, lambda.archiverFunction],
      ['Hookline-ReplayFn-123', 'Hookline-ArchiverFn-456'],
    );
    assert.equal(cfn.commandCalls(DescribeStacksCommand).length, 1, 'outputs are read once');
    cfn.restore();
    sm.restore();
  });

  it('flags win over outputs, and then no AWS call is made', async () => {
    const cfn = mockClient(CloudFormationClient);
    const target = awsTarget(
      { apiUrl: 'https://x/prod', key: 'k', replayFunction: 'r', archiverFunction: 'a', region: 'eu-west-1' },
      { cloudFormation: new CloudFormationClient({}) },
      {},
    );
    assert.deepEqual(await target.api(), { url: 'https://x/prod', key: 'k' });
    assert.deepEqual([(await target.lambda()).replayFunction, (await target.lambda()).archiverFunction], ['r', 'a']);
    assert.equal(cfn.calls().length, 0);
    cfn.restore();
  });

  it('a stack that cannot be read is "unreachable" (exit 7); a missing output names the flag to pass', async () => {
    const cfn = mockClient(CloudFormationClient);
    cfn.on(DescribeStacksCommand).rejects(new Error('Stack with id Nope does not exist'));
    const missing = awsTarget(
      { stack: 'Nope' },
      { cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }) },
      {},
    );
    await assert.rejects(
      missing.lambda(),
      (e: unknown) => e instanceof UnreachableError && e.exitCode === EXIT.unreachable && /stack Nope/.test(e.message),
    );
    cfn.reset();
    cfn.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackName: 'Old', Outputs: [OUTPUTS[0]!], CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE' }],
    });
    const old = awsTarget(
      { stack: 'Old', key: 'k' },
      { cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }) },
      {},
    );
    await assert.rejects(
      old.lambda(),
      (e: unknown) => e instanceof CliError && /ReplayFunctionName output: pass --replay-function/.test(e.message),
    );
    cfn.restore();
  });
});

describe('CLI target: the local runtime', () => {
  it('reads runtime.json and admin-key from the data folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-cli-unit-'));
    writeFileSync(
      join(dir, 'runtime.json'),
      JSON.stringify({ api: 'http://127.0.0.1:4000/', lambda: 'http://127.0.0.1:4001' }),
    );
    writeFileSync(join(dir, 'admin-key'), 'hk_admin_local\n');
    const target = localTarget({ dataDir: dir }, {});
    assert.deepEqual(await target.api(), { url: 'http://127.0.0.1:4000', key: 'hk_admin_local' });
    assert.equal((await target.lambda()).replayFunction, 'replay');
  });

  it('reads a version 2 runtime.json (SQS and S3 endpoints apart) and still a version 1 one (one shared `aws`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-cli-unit-'));
    writeFileSync(join(dir, 'admin-key'), 'k\n');
    const v2 = {
      version: 2,
      api: 'http://127.0.0.1:4000',
      lambda: 'http://127.0.0.1:4001',
      dynamodb: 'http://127.0.0.1:8000',
      sqs: 'http://127.0.0.1:4566',
      s3: 'http://127.0.0.1:4567',
      resourcePrefix: 'ci-1',
      pid: 1,
    };
    writeFileSync(join(dir, 'runtime.json'), JSON.stringify(v2));
    assert.equal((await localTarget({ dataDir: dir }, {}).api()).url, 'http://127.0.0.1:4000');
    assert.deepEqual(parseRuntimeFile(JSON.stringify(v2), 'runtime.json'), v2);

    const v1 = {
      api: 'http://127.0.0.1:5000',
      lambda: 'http://127.0.0.1:5001',
      aws: 'http://127.0.0.1:5002',
      dynamodb: 'http://127.0.0.1:5003',
      pid: 2,
    };
    writeFileSync(join(dir, 'runtime.json'), JSON.stringify(v1));
    assert.equal((await localTarget({ dataDir: dir }, {}).api()).url, 'http://127.0.0.1:5000');
    const read = parseRuntimeFile(JSON.stringify(v1), 'runtime.json');
    assert.deepEqual([read.version, read.sqs, read.s3, read.resourcePrefix], [2, v1.aws, v1.aws, '']);
  });

  it('refuses a runtime.json of an unknown version or not JSON, saying which file and why (exit 7)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-cli-unit-'));
    writeFileSync(join(dir, 'runtime.json'), JSON.stringify({ version: 3, api: 'http://127.0.0.1:4000' }));
    await assert.rejects(
      localTarget({ dataDir: dir }, {}).lambda(),
      (e: unknown) =>
        e instanceof UnreachableError &&
        e.exitCode === EXIT.unreachable &&
        /runtime\.json has version 3, which this code does not know/.test(e.message),
    );
    writeFileSync(join(dir, 'runtime.json'), '{"api": ');
    await assert.rejects(
      localTarget({ dataDir: dir }, {}).api(),
      (e: unknown) => e instanceof UnreachableError && /runtime\.json is not valid JSON/.test(e.message),
    );
  });

  it('without a runtime.json it says how to start one (exit 7)', async () => {
    const target = localTarget({ dataDir: join(tmpdir(), 'hookline-no-such-dir') }, {});
    await assert.rejects(target.api(), (e: unknown) => e instanceof UnreachableError && /npm start/.test(e.message));
  });
});

describe('CLI exit codes and day ranges', () => {
  it('maps statuses to documented exit codes', () => {
    const table: [number, number][] = [
      [400, 2],
      [401, 6],
      [403, 6],
      [404, 3],
      [409, 4],
      [429, 5],
      [500, 1],
      [502, 1],
    ];
    for (const [status, code] of table) assert.equal(exitCodeForStatus(status), code, String(status));
  });

  it('expands restore ranges day by day and refuses bad ones', () => {
    assert.deepEqual(dayRange('2024-02-28', '2024-03-01'), ['2024-02-28', '2024-02-29', '2024-03-01']);
    assert.throws(() => dayRange('2024-03-02', '2024-03-01'), /before/);
    assert.throws(() => dayRange('2024-3-1', '2024-03-01'), /YYYY-MM-DD/);
    assert.throws(() => dayRange('2020-01-01', '2024-01-01'), /366/);
  });
});
