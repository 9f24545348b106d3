import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Template } from 'aws-cdk-lib/assertions';
import { type FunctionKey, TABLES } from '../../lambdas/config/topology.ts';
import type { EventTypeCheck } from '../../lambdas/domain/event-type-catalog.ts';
import { settingsFromContext } from '../../lib/context.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { HooklineStack } from '../../lib/hookline-stack.ts';
import { findTopologyResource, type TemplateJson } from '../../lib/topology-metadata.ts';
import { TEST_ENV, defaultHookline, testApp } from './helpers/synth.ts';
import { allowedActionsOn, assertPlainKeyTable } from './helpers/template.ts';

/** The default stack's functions (every FUNCTIONS entry but the authorizer, which only an API Gateway entry has). */
const FUNCTION_KEYS = Object.keys(defaultHookline().stack.delivery.functions) as FunctionKey[];
const READS = ['dynamodb:GetItem', 'dynamodb:Scan', 'dynamodb:Query', 'dynamodb:BatchGetItem'];
const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

const envOf = (json: TemplateJson, key: FunctionKey) =>
  (findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> })
    .Variables;

/** The stack with `delivery` props, without bundling any function: only its template is looked at. */
function unbundled(eventTypeCheck: EventTypeCheck) {
  const app = testApp({ 'aws:cdk:bundling-stacks': [] });
  const stack = new HooklineStack(app, 'HooklineChecked', { env: TEST_ENV, delivery: { eventTypeCheck } });
  return Template.fromStack(stack).toJSON() as TemplateJson;
}

describe('the event-type catalog table', () => {
  const { template, json } = defaultHookline();
  const table = findTopologyResource(json, 'table/eventTypes');

  test('keyed on the type name alone, on demand, recoverable, protected, with no index or TTL', () => {
    assert.equal(TABLES.eventTypes.partitionKey.name, 'name');
    assertPlainKeyTable(template, json, 'eventTypes');
  });

  test('only the publishing functions know the table and the check (allow by default): the api and ingest', () => {
    for (const key of FUNCTION_KEYS) {
      const env = envOf(json, key);
      if (key === 'api' || key === 'ingest') {
        assert.deepEqual(env.EVENT_TYPES_TABLE, { Ref: table.logicalId }, key);
        assert.equal(env.HOOKLINE_EVENT_TYPE_CHECK, 'allow', key);
      } else {
        assert.equal(env.EVENT_TYPES_TABLE, undefined, key);
        assert.equal(env.HOOKLINE_EVENT_TYPE_CHECK, undefined, key);
      }
    }
  });

  test('least privilege: the api reads and writes it, ingest only reads it, no other function touches it', () => {
    const api = allowedActionsOn(json, 'api', table.logicalId);
    for (const action of [...READS, ...WRITES]) assert.ok(api.has(action), `api: ${action}`);
    const ingest = allowedActionsOn(json, 'ingest', table.logicalId);
    for (const action of READS) assert.ok(ingest.has(action), `ingest: ${action}`);
    for (const action of WRITES) assert.ok(!ingest.has(action), `ingest: ${action}`);
    assert.deepEqual(
      [...ingest].filter(
        (a) => !a.startsWith('dynamodb:Get') && !/Scan|Query|BatchGet|DescribeTable|ConditionCheck/.test(a),
      ),
      [],
      'ingest may not write the catalog',
    );
    for (const key of FUNCTION_KEYS.filter((k) => k !== 'api' && k !== 'ingest'))
      assert.equal(allowedActionsOn(json, key, table.logicalId).size, 0, `${key} must not touch the catalog`);
  });

  test("the api's bundle compiles and applies a JSON Schema (ajv's generated code runs there)", () => {
    const { outdir } = defaultHookline();
    const { resource, properties } = findTopologyResource(json, 'function/api');
    const assetPath = resource.Metadata?.['aws:asset:path'] as string;
    const bundle = path.join(path.isAbsolute(assetPath) ? assetPath : path.join(outdir, assetPath), 'index.mjs');
    // Every variable a plain string: nothing is reached before the refusal (a schema and an example
    // are checked before the catalog is read); the one DynamoDB call at the first request fails fast.
    const env = Object.fromEntries(
      Object.keys((properties.Environment as { Variables: Record<string, unknown> }).Variables).map((name) => [
        name,
        name.startsWith('HOOKLINE_SECRETS_') && name.endsWith('_KEY_ID')
          ? `arn:aws:kms:${TEST_ENV.region}:${TEST_ENV.account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`
          : String((properties.Environment as { Variables: Record<string, unknown> }).Variables[name]),
      ]),
    );
    // As behind API Gateway, whose authorizer admitted the caller (the event's context): no key to check here.
    env.HOOKLINE_API_ADMIN_KEY_SECRET_ID = 'none';
    const event = {
      version: '2.0',
      rawPath: '/v1/event-types/order.created',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      requestContext: { http: { method: 'PUT' }, authorizer: { lambda: { role: 'admin' } } },
      body: JSON.stringify({
        description: 'an order',
        schema: { type: 'object', properties: { amount: { type: 'number' } } },
        example: { amount: 'twelve' },
      }),
      isBase64Encoded: false,
    };
    const script = `const { handler } = await import(${JSON.stringify(`file://${bundle}`)});
const res = await handler(${JSON.stringify(event)}, { getRemainingTimeInMillis: () => 29000, awsRequestId: 'r', functionName: 'api' });
process.stdout.write(JSON.stringify(res));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: TEST_ENV.region,
        AWS_ACCESS_KEY_ID: 'AKIDTEST',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_MAX_ATTEMPTS: '1',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        ...env,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const res = JSON.parse(run.stdout) as { statusCode: number; body: string };
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(JSON.parse(res.body), {
      error: { code: 'invalid_request', message: 'example: does not match the schema: /amount must be number' },
    });
  });

  test("ajv is in the api's and ingest's bundles only", () => {
    const { outdir } = defaultHookline();
    for (const key of FUNCTION_KEYS) {
      const assetPath = findTopologyResource(json, `function/${key}`).resource.Metadata?.['aws:asset:path'] as string;
      const code = readFileSync(
        path.join(path.isAbsolute(assetPath) ? assetPath : path.join(outdir, assetPath), 'index.mjs'),
        'utf8',
      );
      // One of Ajv's own error messages (zod, in every bundle, words its refusals otherwise).
      const carries = code.includes('must NOT have additional properties');
      assert.equal(carries, key === 'api' || key === 'ingest', key);
    }
  });
});

describe('the eventTypeCheck prop and context key', () => {
  test('reaches the api and ingest as HOOKLINE_EVENT_TYPE_CHECK', () => {
    const json = unbundled('refuse');
    assert.equal(envOf(json, 'api').HOOKLINE_EVENT_TYPE_CHECK, 'refuse');
    assert.equal(envOf(json, 'ingest').HOOKLINE_EVENT_TYPE_CHECK, 'refuse');
    assert.equal(envOf(json, 'sender').HOOKLINE_EVENT_TYPE_CHECK, undefined);
  });

  test('a value it does not know fails the synth, naming the prop', () => {
    assert.throws(
      () => unbundled('block' as EventTypeCheck),
      (e: Error) =>
        e instanceof InvalidPropError && /^eventTypeCheck must be one of allow, warn, refuse/.test(e.message),
    );
  });

  test('-c eventTypeCheck=warn sets it; another value is refused', () => {
    assert.equal(
      settingsFromContext((k) => (k === 'eventTypeCheck' ? 'warn' : undefined)).delivery.eventTypeCheck,
      'warn',
    );
    assert.equal(settingsFromContext(() => undefined).delivery.eventTypeCheck, undefined);
    assert.throws(() => settingsFromContext((k) => (k === 'eventTypeCheck' ? 'strict' : undefined)), InvalidPropError);
  });
});
