import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  EVENT_SOURCES,
  FUNCTIONS,
  OBSERVABILITY_DEFAULTS,
  TABLES,
  type FunctionKey,
  type TableKey,
} from '../../lambdas/config/topology.ts';
import { TABLE_GRANTS } from '../../lib/constructs/access.ts';
import { connectQueue } from '../../lib/constructs/event-source.ts';
import { DEFAULT_LOG_RETENTION, HooklineFunction } from '../../lib/constructs/hookline-function.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import {
  bareStack,
  defaultHookline,
  everyDeployedFunction,
  gatewayHookline,
  queuesAndFunction,
  resourcesOfType,
  synthHookline,
  type SynthesizedHookline,
} from './helpers/synth.ts';
import { actionsOf, allowedActionsOn, resourcesOf, statementsOf } from './helpers/template.ts';

const FUNCTION_KEYS = Object.keys(FUNCTIONS) as FunctionKey[];
const { template, json, stack } = defaultHookline();
/** The default stack's functions: every FUNCTIONS entry but the authorizer, which only an API Gateway entry has. */
const DEPLOYED_KEYS = Object.keys(stack.delivery.functions) as FunctionKey[];

describe('functions: runtime, packaging, logs', () => {
  test('one Lambda function per FUNCTIONS entry, but the authorizer: the default Function URL entry checks keys in the api', () => {
    assert.deepEqual(DEPLOYED_KEYS.sort(), FUNCTION_KEYS.filter((k) => k !== 'authorizer').sort());
    template.resourceCountIs('AWS::Lambda::Function', DEPLOYED_KEYS.length);
    Template.fromJSON(gatewayHookline().json).resourceCountIs('AWS::Lambda::Function', FUNCTION_KEYS.length);
  });

  test('every function runs Node.js 22 on arm64, untraced by default (OBSERVABILITY_DEFAULTS.tracing)', () => {
    template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      TracingConfig: Match.absent(),
    });
    assert.equal(OBSERVABILITY_DEFAULTS.tracing, false);
  });

  test('JSON records at WARN: Lambda drops its START/END/REPORT lines, Powertools logs what went wrong only', () => {
    template.allResourcesProperties('AWS::Lambda::Function', {
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON', ApplicationLogLevel: 'WARN', SystemLogLevel: 'WARN' }),
      Environment: { Variables: Match.objectLike({ POWERTOOLS_LOG_LEVEL: 'WARN' }) },
    });
  });

  test('logLevel, platformLogLevel and tracing are props: INFO keeps the record per attempt and the platform lines', () => {
    const traced = Template.fromJSON(
      synthHookline({ logLevel: 'INFO', platformLogLevel: 'INFO', tracing: true }, 'HooklineVerbose').json,
    );
    traced.allResourcesProperties('AWS::Lambda::Function', {
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' }),
      Environment: { Variables: Match.objectLike({ POWERTOOLS_LOG_LEVEL: 'INFO' }) },
    });
  });

  for (const {
    key,
    synth: { json, outdir },
  } of everyDeployedFunction()) {
    test(`${key}: bundled locally into a minified ESM file with a source map`, () => {
      const { resource } = findTopologyResource(json, `function/${key}`);
      const assetPath = resource.Metadata?.['aws:asset:path'] as string;
      assert.ok(assetPath, 'asset metadata present');
      const dir = path.isAbsolute(assetPath) ? assetPath : path.join(outdir, assetPath);
      const code = readFileSync(path.join(dir, 'index.mjs'), 'utf8');
      assert.ok(existsSync(path.join(dir, 'index.mjs.map')), 'source map written');
      assert.match(code, /\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      // Minified: a handful of very long lines rather than thousands of short ones.
      const lines = code.split('\n').length;
      assert.ok(lines < 200, `${lines} lines: not minified?`);
      assert.ok(statSync(path.join(dir, 'index.mjs')).size < 5 * 1024 * 1024, 'bundle stays small');
    });

    test(`${key}: logs to its own log group with the default retention`, () => {
      const { properties } = findTopologyResource(json, `function/${key}`);
      const logGroupId = (properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      assert.equal(json.Resources[logGroupId]?.Type, 'AWS::Logs::LogGroup');
      assert.equal(json.Resources[logGroupId]?.Properties?.RetentionInDays, DEFAULT_LOG_RETENTION);
    });

    test(`${key}: has its own role, assumable by Lambda only, with no managed policies`, () => {
      const { properties } = findTopologyResource(json, `function/${key}`);
      const roleId = (properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const role = json.Resources[roleId]!;
      assert.equal(role.Type, 'AWS::IAM::Role');
      assert.equal(role.Properties?.ManagedPolicyArns, undefined);
      assert.deepEqual((role.Properties!.AssumeRolePolicyDocument as { Statement: unknown[] }).Statement, [
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
    });

    test(`${key}: may write logs only to its own log group`, () => {
      const { properties } = findTopologyResource(json, `function/${key}`);
      const logGroupId = (properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const logStatements = statementsOf(json, key).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
      assert.deepEqual(logStatements, [
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
        },
      ]);
    });
  }

  test('every log group in the stack has a retention', () => {
    for (const [id, lg] of resourcesOfType(json, 'AWS::Logs::LogGroup')) {
      assert.equal(typeof lg.Properties?.RetentionInDays, 'number', `${id} keeps logs forever`);
    }
  });

  test('logRetention is a prop of HooklineFunction', () => {
    const stack = bareStack();
    new HooklineFunction(stack, 'Fn', {
      functionKey: 'authorizer',
      environmentValues: {
        HOOKLINE_ADMIN_KEY_SECRET_ID: 'arn:secret',
        API_KEYS_TABLE: 'keys',
        PORTAL_SESSIONS_TABLE: 'portal-sessions',
      },
      logRetention: RetentionDays.ONE_WEEK,
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  test('HooklineFunction refuses to build a function whose environment it cannot fill', () => {
    const stack = bareStack();
    assert.throws(
      () => new HooklineFunction(stack, 'Fn', { functionKey: 'authorizer', environmentValues: {} }),
      /HOOKLINE_ADMIN_KEY_SECRET_ID/,
    );
  });
});

describe('functions: least-privilege IAM', () => {
  const policies = resourcesOfType(json, 'AWS::IAM::Policy');

  test('no identity policy in the stack allows a wildcard action', () => {
    for (const [id, policy] of policies) {
      for (const s of (policy.Properties!.PolicyDocument as { Statement: Parameters<typeof actionsOf>[0][] })
        .Statement) {
        for (const action of actionsOf(s)) assert.ok(!action.includes('*'), `${id} allows ${action}`);
      }
    }
  });

  test('Resource "*" appears only for X-Ray and the stream listing, which have no resource-level permissions', () => {
    const wildcards: string[][] = [];
    for (const [id, policy] of policies) {
      for (const s of (policy.Properties!.PolicyDocument as { Statement: Parameters<typeof actionsOf>[0][] })
        .Statement) {
        if (resourcesOf(s).includes('*')) {
          wildcards.push(actionsOf(s).sort());
          assert.ok(
            actionsOf(s).every((a) =>
              ['xray:PutTelemetryRecords', 'xray:PutTraceSegments', 'dynamodb:ListStreams'].includes(a),
            ),
            `${id}: ${JSON.stringify(s)}`,
          );
        }
      }
    }
    // The ingest function reads the events table's stream: Lambda's mapping lists the streams first.
    assert.ok(wildcards.some((a) => a.includes('dynamodb:ListStreams')));
  });

  const tableIdsOf = (json: SynthesizedHookline['json']) =>
    Object.fromEntries(
      (Object.keys(TABLES) as TableKey[]).map((k) => [k, findTopologyResource(json, `table/${k}`).logicalId]),
    ) as Record<TableKey, string>;
  const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
  const reads = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:BatchGetItem'];

  // Pinned here rather than read from TABLE_GRANTS, so widening a grant is a visible test change.
  const EXPECTED_ACCESS: Record<FunctionKey, Partial<Record<TableKey, 'read' | 'write' | 'readWrite'>>> = {
    // routes: every subscription change writes its routing entries; a 410 disables (sender); the sweeper repairs and builds.
    api: {
      subscriptions: 'readWrite',
      routes: 'readWrite',
      events: 'readWrite',
      deliveries: 'readWrite',
      // A replay or a Retry now moves the TTL of the attempt log out.
      attempts: 'readWrite',
      replays: 'readWrite',
      apiKeys: 'readWrite',
      rateLimits: 'write',
      ingestManifests: 'readWrite',
      idempotencyKeys: 'readWrite',
      portalSessions: 'readWrite',
      eventTypes: 'readWrite',
      keyring: 'readWrite',
    },
    authorizer: { apiKeys: 'read', portalSessions: 'read' },
    // No deliveries: publish writes no delivery row (a delivery's first attempt does).
    // The event-type catalog: read only, for the warn and refuse checks.
    ingest: {
      subscriptions: 'read',
      routes: 'read',
      events: 'readWrite',
      ingestManifests: 'write',
      eventTypes: 'read',
    },
    sender: {
      subscriptions: 'readWrite',
      routes: 'readWrite',
      events: 'readWrite',
      deliveries: 'readWrite',
      attempts: 'write',
      rateLimits: 'write',
    },
    sweeper: {
      subscriptions: 'readWrite',
      routes: 'readWrite',
      events: 'readWrite',
      deliveries: 'readWrite',
      ingestManifests: 'readWrite',
    },
    replay: {
      subscriptions: 'read',
      events: 'write',
      attempts: 'readWrite',
      deliveries: 'readWrite',
      replays: 'readWrite',
    },
    archiver: {
      subscriptions: 'read',
      events: 'readWrite',
      deliveries: 'readWrite',
      attempts: 'readWrite',
      archiveBatches: 'readWrite',
    },
    notifier: {
      subscriptions: 'read',
      routes: 'read',
      events: 'readWrite',
      deliveries: 'readWrite',
      attempts: 'read',
      ingestManifests: 'write',
      replays: 'read',
      notices: 'readWrite',
    },
  };

  test('TABLE_GRANTS is the pinned least-privilege table', () => {
    assert.deepEqual(TABLE_GRANTS, EXPECTED_ACCESS);
  });

  for (const {
    key,
    synth: { json },
  } of everyDeployedFunction()) {
    const tableIds = tableIdsOf(json);
    test(`${key}: DynamoDB access in the template is exactly ${JSON.stringify(EXPECTED_ACCESS[key])}`, () => {
      const grants = EXPECTED_ACCESS[key];
      for (const table of Object.keys(TABLES) as TableKey[]) {
        const actions = allowedActionsOn(json, key, tableIds[table]);
        const access = grants[table];
        if (access === undefined) {
          assert.equal(actions.size, 0, `${key} must not touch ${table}: ${[...actions]}`);
          continue;
        }
        const canRead = reads.every((a) => actions.has(a));
        const canWrite = writes.every((a) => actions.has(a));
        assert.equal(canRead, access !== 'write', `${key} read on ${table}`);
        assert.equal(canWrite, access !== 'read', `${key} write on ${table}`);
        if (access === 'read') for (const a of writes) assert.ok(!actions.has(a), `${key} has ${a} on ${table}`);
        if (access === 'write') for (const a of reads) assert.ok(!actions.has(a), `${key} has ${a} on ${table}`);
        for (const a of actions)
          assert.ok(
            !/dynamodb:(CreateTable|DeleteTable|UpdateTable|UpdateTimeToLive)/.test(a),
            `${key} manages ${table}`,
          );
      }
    });
  }

  // The signing-secrets key (test/cdk/secrets-key.test.ts has the key policy and the conditions).
  const EXPECTED_KMS: Record<FunctionKey, string[]> = {
    api: ['kms:Decrypt', 'kms:GenerateDataKey'],
    authorizer: [],
    ingest: [],
    sender: ['kms:Decrypt'],
    sweeper: [],
    replay: [],
    archiver: [],
    notifier: [],
  };
  for (const {
    key,
    synth: { json },
  } of everyDeployedFunction()) {
    test(`${key}: KMS actions are exactly ${JSON.stringify(EXPECTED_KMS[key])} (only the api seals secrets; the api, for a rotation or to show them, and the sender open them)`, () => {
      assert.deepEqual(
        statementsOf(json, key)
          .flatMap(actionsOf)
          .filter((a) => a.startsWith('kms:'))
          .sort(),
        EXPECTED_KMS[key],
      );
    });
  }

  const deliveryQueue = findTopologyResource(json, 'queue/delivery').logicalId;
  const ingestQueue = findTopologyResource(json, 'queue/ingest').logicalId;

  for (const key of ['api', 'ingest', 'sender', 'sweeper', 'notifier'] as const) {
    test(`${key}: may send to the delivery queue`, () => {
      assert.ok(allowedActionsOn(json, key, deliveryQueue).has('sqs:SendMessage'));
    });
  }

  test('sender: may change message visibility on the delivery queue (visibility-timeout backoff) and consume it', () => {
    const actions = allowedActionsOn(json, 'sender', deliveryQueue);
    for (const a of ['sqs:ChangeMessageVisibility', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage'])
      assert.ok(actions.has(a), a);
  });

  test('only the sender consumes the delivery queue, only ingest consumes the ingest queue', () => {
    for (const key of DEPLOYED_KEYS) {
      assert.equal(
        allowedActionsOn(json, key, deliveryQueue).has('sqs:ReceiveMessage'),
        key === 'sender',
        `${key} on delivery`,
      );
      assert.equal(
        allowedActionsOn(json, key, ingestQueue).has('sqs:ReceiveMessage'),
        key === 'ingest',
        `${key} on ingest`,
      );
      if (key !== 'ingest')
        assert.equal(allowedActionsOn(json, key, ingestQueue).size, 0, `${key} touches the ingest queue`);
    }
  });

  test('api: behind the Function URL, reads the admin key secret to check bearer keys itself', () => {
    const secretId = resourcesOfType(json, 'AWS::SecretsManager::Secret')[0]![0];
    assert.ok(allowedActionsOn(json, 'api', secretId).has('secretsmanager:GetSecretValue'));
  });

  test('authorizer (API Gateway entry): reads the admin key secret and looks tenant keys up, nothing else of the data plane', () => {
    const { json } = gatewayHookline();
    const tableIds = tableIdsOf(json);
    const secretId = resourcesOfType(json, 'AWS::SecretsManager::Secret')[0]![0];
    assert.equal(
      allowedActionsOn(json, 'api', secretId).size,
      0,
      'behind API Gateway the api never reads the admin key',
    );
    const actions = allowedActionsOn(json, 'authorizer', secretId);
    assert.ok(actions.has('secretsmanager:GetSecretValue'));
    const other = statementsOf(json, 'authorizer')
      .filter((s) => JSON.stringify(s).includes(tableIds.apiKeys) === false)
      .flatMap(actionsOf)
      .filter((a) => !/^(logs|xray|secretsmanager):/.test(a));
    assert.deepEqual(other, []);
  });

  const archiveBucket = findTopologyResource(json, 'bucket/archive').logicalId;
  test('only the archiver touches the archive bucket: put, get, delete under deliveries/ and list that prefix', () => {
    for (const key of DEPLOYED_KEYS) {
      const s3 = statementsOf(json, key).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
      if (key !== 'archiver') {
        assert.deepEqual(s3, [], key);
        continue;
      }
      assert.deepEqual(s3.map((s) => [...actionsOf(s)].sort()).sort(), [
        ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
        ['s3:ListBucket'],
      ]);
      const objects = s3.find((s) => actionsOf(s).includes('s3:PutObject'))!;
      assert.deepEqual(objects.Resource, {
        'Fn::Join': ['', [{ 'Fn::GetAtt': [archiveBucket, 'Arn'] }, '/deliveries/*']],
      });
      const list = s3.find((s) => actionsOf(s).includes('s3:ListBucket')) as { Resource: unknown; Condition: unknown };
      assert.deepEqual(list.Resource, { 'Fn::GetAtt': [archiveBucket, 'Arn'] });
      assert.deepEqual(list.Condition, { StringLike: { 's3:prefix': ['deliveries/*'] } });
    }
  });

  test("only the api invokes another function, and only the archiver (the console's archive runs and restores), by its ARN", () => {
    const archiverId = findTopologyResource(json, 'function/archiver').logicalId;
    for (const key of DEPLOYED_KEYS) {
      const invokes = statementsOf(json, key).filter((s) => actionsOf(s).some((a) => a.startsWith('lambda:')));
      if (key !== 'api') {
        assert.deepEqual(invokes, [], key);
        continue;
      }
      assert.deepEqual(
        invokes.map((s) => [...actionsOf(s)]),
        [['lambda:InvokeFunction']],
      );
      assert.deepEqual(invokes[0]!.Resource, { 'Fn::GetAtt': [archiverId, 'Arn'] });
    }
  });

  test("the api is told the archiver's name", () => {
    const archiverId = findTopologyResource(json, 'function/archiver').logicalId;
    const env = (
      findTopologyResource(json, 'function/api').properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    assert.deepEqual(env.ARCHIVER_FUNCTION_NAME, { Ref: archiverId });
  });

  for (const key of ['replay'] as const) {
    test(`${key}: may send to the delivery queue (replayed deliveries)`, () => {
      assert.ok(allowedActionsOn(json, key, deliveryQueue).has('sqs:SendMessage'));
    });
  }
});

describe('event source mappings', () => {
  for (const source of EVENT_SOURCES) {
    test(`${source.queue} -> ${source.function}: batch ${source.batchSize}, window ${source.maxBatchingWindowSeconds}s, partial batch responses, max concurrency ${source.maxConcurrency}`, () => {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [findTopologyResource(json, `queue/${source.queue}`).logicalId, 'Arn'] },
        FunctionName: { Ref: findTopologyResource(json, `function/${source.function}`).logicalId },
        BatchSize: source.batchSize,
        MaximumBatchingWindowInSeconds: source.maxBatchingWindowSeconds,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: source.maxConcurrency },
      });
    });
  }

  const plainFunction = () => queuesAndFunction();

  test('the sender concurrency cap is overridable', () => {
    const { stack, queues, fn } = plainFunction();
    connectQueue(fn, 'sender', queues.delivery, 50);
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 50 },
    });
  });

  test("a concurrency cap outside Lambda's 2..1000 is refused", () => {
    for (const cap of [0, 1, 1001, 2.5]) {
      const { queues, fn } = plainFunction();
      assert.throws(() => connectQueue(fn, 'sender', queues.delivery, cap), InvalidPropError);
    }
  });

  test('a queue/function pair EVENT_SOURCES does not list is refused', () => {
    const { queues, fn } = plainFunction();
    assert.throws(() => connectQueue(fn, 'sender', queues.ingest), /EVENT_SOURCES has no entry/);
  });
});

describe('schedules', () => {
  test('the sweeper runs every minute from an EventBridge rule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [findTopologyResource(json, 'function/sweeper').logicalId, 'Arn'] } }),
      ],
    });
  });

  test('EventBridge may invoke the sweeper, scoped to that rule', () => {
    const rule = findTopologyResource(json, 'schedule/sweeper/0').logicalId;
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [findTopologyResource(json, 'function/sweeper').logicalId, 'Arn'] },
      SourceArn: { 'Fn::GetAtt': [rule, 'Arn'] },
    });
  });

  test('a failed or stale sweep is not retried: the next tick replaces it', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: findTopologyResource(json, 'function/sweeper').logicalId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: Duration.minutes(1).toSeconds(),
    });
  });
});

describe('stack outputs', () => {
  test('API URL, ingest queue URL, on-call topic, admin key secret ARN and every function name', () => {
    const outputs = Object.keys(json.Outputs ?? {});
    for (const name of [
      'ApiUrl',
      'IngestQueueUrl',
      'OnCallTopicArn',
      'AdminKeySecretArn',
      ...DEPLOYED_KEYS.map((k) => `${k[0]!.toUpperCase()}${k.slice(1)}FunctionName`),
    ]) {
      assert.ok(outputs.includes(name), `missing output ${name}`);
    }
    template.hasOutput('IngestQueueUrl', { Value: { Ref: findTopologyResource(json, 'queue/ingest').logicalId } });
    template.hasOutput('SenderFunctionName', {
      Value: { Ref: findTopologyResource(json, 'function/sender').logicalId },
    });
  });
});
