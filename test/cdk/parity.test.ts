import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  BUCKETS,
  COMMON_ENVIRONMENT,
  ENV_DEFAULTS,
  EVENT_SOURCES,
  FUNCTIONS,
  QUEUES,
  SCHEDULES,
  STREAM_SOURCES,
  TABLES,
  type BucketKey,
  type EnvName,
  type FunctionKey,
  type KeyDef,
  type QueueKey,
  type TableKey,
} from '../../lambdas/config/topology.ts';
import { TABLE_GRANTS } from '../../lib/constructs/access.ts';
import { findTopologyResource, TOPOLOGY_METADATA_KEY } from '../../lib/topology-metadata.ts';
import {
  defaultHookline,
  everyDeployedFunction,
  resourcesOfType,
  TEST_ENV,
  type SynthesizedHookline,
} from './helpers/synth.ts';

/**
 * topology.ts is the one description of tables, indexes, queues, event source mappings,
 * schedules and function environments; the local runtime builds from it, and this file
 * proves the synthesized template says exactly the same thing. Resources are found by
 * their `hookline:topology` metadata, not by logical id.
 */
const { json, outdir } = defaultHookline();
const TABLE_KEYS = Object.keys(TABLES) as TableKey[];
const QUEUE_KEYS = Object.keys(QUEUES) as QueueKey[];
const FUNCTION_KEYS = Object.keys(FUNCTIONS) as FunctionKey[];
const BUCKET_KEYS = Object.keys(BUCKETS) as BucketKey[];

const keySchema = (pk: KeyDef, sk?: KeyDef) => [
  { AttributeName: pk.name, KeyType: 'HASH' },
  ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' }] : []),
];
const sortByName = <T extends Record<string, unknown>>(items: T[], key: keyof T) =>
  [...items].sort((a, b) => String(a[key]).localeCompare(String(b[key])));

test('covers the failure notices too: the notices table, the notifier function and its schedule are in the topology the checks below walk', () => {
  assert.ok(TABLE_KEYS.includes('notices'));
  assert.ok(FUNCTION_KEYS.includes('notifier'));
  assert.ok(SCHEDULES.some((s) => s.function === 'notifier'));
  assert.equal(findTopologyResource(json, 'table/notices').resource.Type, 'AWS::DynamoDB::Table');
  assert.equal(findTopologyResource(json, 'function/notifier').resource.Type, 'AWS::Lambda::Function');
});

describe('parity: tables and indexes', () => {
  test('the template holds exactly the TABLES tables', () => {
    const marked = resourcesOfType(json, 'AWS::DynamoDB::Table').map(([, r]) => r.Metadata?.[TOPOLOGY_METADATA_KEY]);
    assert.deepEqual(marked.sort(), TABLE_KEYS.map((k) => `table/${k}`).sort());
  });

  for (const key of TABLE_KEYS) {
    const def = TABLES[key];
    test(`${key}: keys, attribute types, indexes and TTL match topology.ts`, () => {
      const { properties: p } = findTopologyResource(json, `table/${key}`);
      assert.deepEqual(p.KeySchema, keySchema(def.partitionKey, def.sortKey));

      const keyDefs: KeyDef[] = [def.partitionKey, ...(def.sortKey ? [def.sortKey] : [])];
      for (const index of def.indexes) keyDefs.push(index.partitionKey, ...(index.sortKey ? [index.sortKey] : []));
      const expectedAttributes = [
        ...new Map(keyDefs.map((k) => [k.name, { AttributeName: k.name, AttributeType: k.type }])).values(),
      ];
      assert.deepEqual(
        sortByName(p.AttributeDefinitions as Record<string, unknown>[], 'AttributeName'),
        sortByName(expectedAttributes, 'AttributeName'),
      );

      const expectedIndexes = def.indexes.map((i) => ({
        IndexName: i.indexName,
        KeySchema: keySchema(i.partitionKey, i.sortKey),
        Projection: {
          ProjectionType: i.projection,
          ...(i.nonKeyAttributes ? { NonKeyAttributes: [...i.nonKeyAttributes] } : {}),
        },
      }));
      assert.deepEqual(
        sortByName((p.GlobalSecondaryIndexes ?? []) as Record<string, unknown>[], 'IndexName'),
        sortByName(expectedIndexes, 'IndexName'),
      );
      assert.equal(p.LocalSecondaryIndexes, undefined);

      assert.deepEqual(
        p.TimeToLiveSpecification,
        def.ttlAttribute ? { AttributeName: def.ttlAttribute, Enabled: true } : undefined,
      );
      assert.deepEqual(
        p.StreamSpecification,
        'stream' in def ? { StreamViewType: def.stream } : undefined,
        'a stream only where the topology asks for one',
      );
    });
  }
});

describe('parity: queues', () => {
  test('the template holds exactly the QUEUES queues and their redrive queues', () => {
    const marked = resourcesOfType(json, 'AWS::SQS::Queue').map(([, r]) => r.Metadata?.[TOPOLOGY_METADATA_KEY]);
    assert.deepEqual(marked.sort(), QUEUE_KEYS.flatMap((k) => [`queue/${k}`, `redrive/${k}`]).sort());
  });

  for (const key of QUEUE_KEYS) {
    const def = QUEUES[key];
    test(`${key}: visibility ${def.visibilityTimeoutSeconds}s, retention ${def.retentionSeconds}s, redrive after ${def.maxReceiveCount} to a ${def.redrive.retentionSeconds}s queue`, () => {
      const queue = findTopologyResource(json, `queue/${key}`);
      const redrive = findTopologyResource(json, `redrive/${key}`);
      assert.equal(queue.properties.VisibilityTimeout, def.visibilityTimeoutSeconds);
      assert.equal(queue.properties.MessageRetentionPeriod, def.retentionSeconds);
      assert.deepEqual(queue.properties.RedrivePolicy, {
        deadLetterTargetArn: { 'Fn::GetAtt': [redrive.logicalId, 'Arn'] },
        maxReceiveCount: def.maxReceiveCount,
      });
      assert.equal(redrive.properties.MessageRetentionPeriod, def.redrive.retentionSeconds);
    });
  }
});

describe('parity: event source mappings', () => {
  test('one mapping per EVENT_SOURCES and STREAM_SOURCES entry, nothing else', () => {
    const marked = resourcesOfType(json, 'AWS::Lambda::EventSourceMapping').map(
      ([, r]) => r.Metadata?.[TOPOLOGY_METADATA_KEY],
    );
    assert.deepEqual(
      marked.sort(),
      [
        ...EVENT_SOURCES.map((s) => `event-source/${s.queue}`),
        ...STREAM_SOURCES.map((s) => `stream-source/${s.table}`),
      ].sort(),
    );
  });

  for (const source of STREAM_SOURCES) {
    test(`${source.table}'s stream -> ${source.function}: exactly the topology settings, its ${source.eventName} records only`, () => {
      const { properties: p } = findTopologyResource(json, `stream-source/${source.table}`);
      assert.deepEqual(p, {
        EventSourceArn: { 'Fn::GetAtt': [findTopologyResource(json, `table/${source.table}`).logicalId, 'StreamArn'] },
        FunctionName: { Ref: findTopologyResource(json, `function/${source.function}`).logicalId },
        BatchSize: source.batchSize,
        MaximumBatchingWindowInSeconds: source.maxBatchingWindowSeconds,
        BisectBatchOnFunctionError: source.bisectBatchOnError,
        MaximumRetryAttempts: source.retryAttempts,
        StartingPosition: 'TRIM_HORIZON',
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: [source.eventName] }) }] },
      });
    });
  }

  for (const source of EVENT_SOURCES) {
    test(`${source.queue} -> ${source.function}: exactly the topology settings`, () => {
      const { properties: p } = findTopologyResource(json, `event-source/${source.queue}`);
      assert.deepEqual(p, {
        EventSourceArn: { 'Fn::GetAtt': [findTopologyResource(json, `queue/${source.queue}`).logicalId, 'Arn'] },
        FunctionName: { Ref: findTopologyResource(json, `function/${source.function}`).logicalId },
        BatchSize: source.batchSize,
        MaximumBatchingWindowInSeconds: source.maxBatchingWindowSeconds,
        FunctionResponseTypes: source.reportBatchItemFailures ? ['ReportBatchItemFailures'] : undefined,
        ScalingConfig: { MaximumConcurrency: source.maxConcurrency },
      });
    });
  }
});

/** EventBridge's rate() for a number of minutes, in the largest whole unit (as CloudFormation receives it from the CDK). */
function rateExpression(minutes: number): string {
  const [value, unit] =
    minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
  return `rate(${value} ${value === 1 ? unit : `${unit}s`})`;
}

describe('parity: buckets', () => {
  test('every BUCKETS entry is one bucket in the template', () => {
    for (const key of BUCKET_KEYS)
      assert.equal(findTopologyResource(json, `bucket/${key}`).resource.Type, 'AWS::S3::Bucket');
  });
});

describe('parity: schedules', () => {
  test('one rule per SCHEDULES entry, nothing else', () => {
    assert.equal(resourcesOfType(json, 'AWS::Events::Rule').length, SCHEDULES.length);
  });

  SCHEDULES.forEach((schedule, index) => {
    test(`${schedule.function} every ${schedule.rateMinutes} minute(s)`, () => {
      const { properties: p } = findTopologyResource(json, `schedule/${schedule.function}/${index}`);
      assert.equal(p.ScheduleExpression, rateExpression(schedule.rateMinutes));
      assert.equal(p.State, 'ENABLED');
      const targets = p.Targets as { Arn: unknown }[];
      assert.deepEqual(
        targets.map((t) => t.Arn),
        [{ 'Fn::GetAtt': [findTopologyResource(json, `function/${schedule.function}`).logicalId, 'Arn'] }],
      );
    });
  });
});

describe('parity: functions and their environment', () => {
  test('the template holds exactly the FUNCTIONS functions, but the authorizer, which only an API Gateway entry has', () => {
    const marked = resourcesOfType(json, 'AWS::Lambda::Function').map(([, r]) => r.Metadata?.[TOPOLOGY_METADATA_KEY]);
    assert.deepEqual(
      marked.sort(),
      FUNCTION_KEYS.filter((k) => k !== 'authorizer')
        .map((k) => `function/${k}`)
        .sort(),
    );
  });

  const tableIdByEnv = Object.fromEntries(
    TABLE_KEYS.map((k) => [TABLES[k].envVar, findTopologyResource(json, `table/${k}`).logicalId]),
  );
  const queueIdByEnv = Object.fromEntries(
    QUEUE_KEYS.map((k) => [QUEUES[k].envVar, findTopologyResource(json, `queue/${k}`).logicalId]),
  );
  const bucketIdByEnv = Object.fromEntries(
    BUCKET_KEYS.map((k) => [BUCKETS[k].envVar, findTopologyResource(json, `bucket/${k}`).logicalId]),
  );

  for (const { key, synth } of everyDeployedFunction()) {
    const def = FUNCTIONS[key];
    const declared = def.environment as readonly EnvName[];
    const { json } = synth;

    test(`${key}: timeout ${def.timeoutSeconds}s, ${def.memorySize} MB, description`, () => {
      const { properties: p } = findTopologyResource(json, `function/${key}`);
      assert.equal(p.Timeout, def.timeoutSeconds);
      assert.equal(p.MemorySize, def.memorySize);
      assert.equal(p.Description, def.description);
    });

    test(`${key}: Environment.Variables keys are exactly FUNCTIONS.${key}.environment + COMMON_ENVIRONMENT + the log level`, () => {
      const vars = (
        findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      assert.deepEqual(
        Object.keys(vars).sort(),
        // POWERTOOLS_LOG_LEVEL is the logLevel prop's (HooklineFunction), not a constant.
        [...new Set([...declared, ...Object.keys(COMMON_ENVIRONMENT), 'POWERTOOLS_LOG_LEVEL'])].sort(),
      );
    });

    test(`${key}: every value is the deployed resource or the topology default`, () => {
      const vars = (
        findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      for (const [name, value] of Object.entries(COMMON_ENVIRONMENT)) assert.equal(vars[name], value, name);
      for (const name of declared) {
        if (tableIdByEnv[name]) assert.deepEqual(vars[name], { Ref: tableIdByEnv[name] }, name);
        else if (queueIdByEnv[name]) assert.deepEqual(vars[name], { Ref: queueIdByEnv[name] }, name);
        // The admin key: the authorizer's, or the api's own behind the default Function URL.
        else if (name === 'HOOKLINE_ADMIN_KEY_SECRET_ID' || name === 'HOOKLINE_API_ADMIN_KEY_SECRET_ID')
          assert.deepEqual(vars[name], { Ref: resourcesOfType(json, 'AWS::SecretsManager::Secret')[0]![0] });
        else if (name === 'HOOKLINE_SECRETS_SEAL_KEY_ID' || name === 'HOOKLINE_SECRETS_OPEN_KEY_ID')
          assert.equal(
            json.Resources[(vars[name] as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]]?.Type,
            'AWS::KMS::Key',
            name,
          );
        else if (bucketIdByEnv[name]) assert.deepEqual(vars[name], { Ref: bucketIdByEnv[name] }, name);
        // The notifier links to the dashboard the API serves (its stage URL + `dashboard`); the api itself cannot name its own URL (a cycle), so it keeps the default.
        else if (name === 'HOOKLINE_CONSOLE_URL' && key === 'notifier')
          assert.match(
            JSON.stringify(vars[name]),
            new RegExp(
              `"Fn::GetAtt":\\["${resourcesOfType(json, 'AWS::Lambda::Url')[0]![0]}","FunctionUrl"\\].*dashboard`,
            ),
            name,
          );
        // The api invokes the archiver for the console's archive runs and restores.
        else if (name === 'ARCHIVER_FUNCTION_NAME')
          assert.deepEqual(vars[name], { Ref: findTopologyResource(json, 'function/archiver').logicalId }, name);
        else assert.equal(vars[name], ENV_DEFAULTS[name], `${name} should be the default with default props`);
      }
    });

    test(`${key}: table grants cover exactly the tables its environment names`, () => {
      const named = TABLE_KEYS.filter((t) => declared.includes(TABLES[t].envVar)).sort();
      assert.deepEqual(Object.keys(TABLE_GRANTS[key]).sort(), named);
    });
  }
});

/**
 * The strongest form of "a handler that needs a variable the stack does not set fails here":
 * load each bundle exactly as Lambda would, with exactly the environment the template gives
 * it (tokens replaced by plausible values) and nothing else. Handlers read and validate their
 * configuration at module scope, so a missing or malformed variable throws at import.
 */
describe('parity: every bundle loads with the environment the stack gives it', () => {
  function fakeValue(json: SynthesizedHookline['json'], name: string, value: unknown): string {
    if (typeof value === 'string') return value;
    if (name === 'HOOKLINE_CONSOLE_URL') return `https://abc123.execute-api.${TEST_ENV.region}.amazonaws.com/dashboard`;
    const id =
      (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: [string] })['Fn::GetAtt']?.[0] ?? 'Unknown';
    const type = json.Resources[id]?.Type;
    if (type === 'AWS::DynamoDB::Table') return `hookline-test-${name.toLowerCase()}`;
    if (type === 'AWS::SQS::Queue') return `https://sqs.${TEST_ENV.region}.amazonaws.com/${TEST_ENV.account}/${id}`;
    if (type === 'AWS::S3::Bucket') return `hookline-test-${id.toLowerCase()}`;
    if (type === 'AWS::KMS::Key')
      return `arn:aws:kms:${TEST_ENV.region}:${TEST_ENV.account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
    if (type === 'AWS::Lambda::Function') return `hookline-test-${id.toLowerCase()}`;
    if (type === 'AWS::SecretsManager::Secret')
      return `arn:aws:secretsmanager:${TEST_ENV.region}:${TEST_ENV.account}:secret:${id}-AbCdEf`;
    throw new Error(`no fake value for ${name} -> ${JSON.stringify(value)} (${type})`);
  }

  for (const { key, synth } of everyDeployedFunction()) {
    const { json, outdir } = synth;
    test(`${key}: index.mjs imports and exports a handler function`, () => {
      const { resource, properties } = findTopologyResource(json, `function/${key}`);
      const assetPath = resource.Metadata!['aws:asset:path'] as string;
      const bundle = path.join(path.isAbsolute(assetPath) ? assetPath : path.join(outdir, assetPath), 'index.mjs');
      const vars = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        AWS_REGION: TEST_ENV.region,
        AWS_DEFAULT_REGION: TEST_ENV.region,
        AWS_ACCESS_KEY_ID: 'AKIDTEST',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_LAMBDA_FUNCTION_NAME: `hookline-${key}`,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(properties.MemorySize),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        // Anything that tries the network at import time fails fast instead of hanging.
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        ...Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, fakeValue(json, name, value)])),
      };
      const script = `const m = await import(${JSON.stringify(`file://${bundle}`)}); if (typeof m.handler !== 'function') { console.error('handler is ' + typeof m.handler); process.exit(3); }`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 0, `import failed:\n${run.stderr}`);
    });
  }

  test('the same check catches a missing variable (negative control)', () => {
    const key: FunctionKey = 'sender';
    const { resource, properties } = findTopologyResource(json, `function/${key}`);
    const bundle = path.join(outdir, resource.Metadata!['aws:asset:path'] as string, 'index.mjs');
    const vars = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const env = {
      PATH: process.env.PATH ?? '',
      AWS_REGION: TEST_ENV.region,
      ...Object.fromEntries(
        Object.entries(vars)
          .filter(([n]) => n !== 'DELIVERIES_TABLE')
          .map(([n, v]) => [n, fakeValue(json, n, v)]),
      ),
    };
    const run = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(`file://${bundle}`)})`],
      { env, encoding: 'utf8', timeout: 30_000 },
    );
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /DELIVERIES_TABLE/);
  });
});
