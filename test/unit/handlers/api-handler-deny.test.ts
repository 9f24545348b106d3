import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { FunctionDeps } from '#app/deps.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { fakeDeps } from '#test/fakes.ts';

/**
 * Deny by default: without a principal from the authorizer, only GET /health answers; every
 * other request is a 401 before any dependency is touched, whatever else the event carries.
 */

const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'api',
} as unknown as Context;

/** Every route of the HTTP API (docs/api.md), with a body where it takes one. */
const DOCUMENTED_ROUTES: ReadonlyArray<readonly [string, string, string | null]> = [
  ['POST', '/v1/subscriptions', '{"url":"https://example.com/hooks"}'],
  ['GET', '/v1/subscriptions', null],
  ['GET', '/v1/subscriptions/sub_a', null],
  ['POST', '/v1/subscriptions/sub_a/pause', '{"reason":"x"}'],
  ['POST', '/v1/subscriptions/sub_a/resume', null],
  ['POST', '/v1/events', '{"type":"a.b","payload":{}}'],
  ['GET', '/v1/deliveries', null],
  ['GET', '/v1/deliveries/dlv_a', null],
  ['POST', '/v1/deliveries/dlv_a/replay', null],
  ['GET', '/v1/dead-letters', null],
  ['POST', '/v1/replays', '{"createdFrom":"2024-01-01","createdTo":"2024-01-02"}'],
  ['GET', '/v1/replays', null],
  ['GET', '/v1/replays/rpl_a', null],
  ['POST', '/v1/tenants/acme/keys', null],
];

/** Paths that are not routes, or not with this method: an unauthenticated caller must not learn which. */
const OTHER_REQUESTS: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/v1/nothing-here'],
  ['DELETE', '/v1/subscriptions'],
  ['POST', '/health'],
  ['GET', '/v1/subscriptions/sub_a/'],
  ['GET', '/'],
];

/** Dependencies that fail the test if anything so much as looks one up. */
function untouchableDeps(touched: string[]): FunctionDeps<'api'> {
  return new Proxy({} as FunctionDeps<'api'>, {
    get(_target, key) {
      touched.push(String(key));
      throw new Error(`dependency ${String(key)} used without a principal`);
    },
  });
}

function handlerWith(deps: FunctionDeps<'api'>) {
  const logger = new Logger({ logLevel: 'SILENT' });
  const errors: unknown[] = [];
  logger.error = ((...args: unknown[]) => void errors.push(args)) as Logger['error'];
  return { handler: createApiHandler(deps, { logger }), errors };
}

const event = (method: string, path: string, body: string | null, requestContext: unknown): APIGatewayProxyEvent =>
  ({
    httpMethod: method,
    path,
    body,
    isBase64Encoded: false,
    queryStringParameters: { subscriptionId: 'sub_a' },
    multiValueQueryStringParameters: { subscriptionId: ['sub_a'] },
    requestContext,
  }) as unknown as APIGatewayProxyEvent;

/** Request contexts that establish nobody: no authorizer, an empty one, one with an unknown or miscased role, a tenant without its ids. */
const NO_PRINCIPAL: ReadonlyArray<readonly [string, unknown]> = [
  ['no request context', undefined],
  ['no authorizer', {}],
  ['a null authorizer', { authorizer: null }],
  ['an empty authorizer', { authorizer: {} }],
  ['an unknown role', { authorizer: { role: 'root' } }],
  ['a miscased admin role', { authorizer: { role: 'Admin' } }],
  ['a principal id alone', { authorizer: { principalId: 'admin' } }],
  ['a tenant role without a tenant id', { authorizer: { role: 'tenant', keyId: 'k1' } }],
  ['an identity without a user ARN', { identity: { userArn: null, sourceIp: '203.0.113.7' } }],
];

describe('the API handler denies by default', () => {
  for (const [label, requestContext] of NO_PRINCIPAL) {
    it(`answers 401 on every documented route and every other request with ${label}, touching nothing`, async () => {
      const touched: string[] = [];
      const { handler, errors } = handlerWith(untouchableDeps(touched));
      for (const [method, path, body] of [
        ...DOCUMENTED_ROUTES,
        ...OTHER_REQUESTS.map(([m, p]) => [m, p, null] as const),
      ]) {
        const res = await handler(event(method, path, body, requestContext), context);
        assert.equal(res.statusCode, 401, `${method} ${path}: ${res.body}`);
        assert.equal(JSON.parse(res.body).error.code, 'unauthorized');
      }
      assert.deepEqual(touched, []);
      assert.deepEqual(errors, []);
    });
  }

  it('answers GET /health without a principal', async () => {
    const { handler } = handlerWith(fakeDeps() as unknown as FunctionDeps<'api'>);
    const res = await handler(event('GET', '/health', null, {}), context);
    assert.equal(res.statusCode, 200);
  });
});

describe('the API handler refuses a repeated query parameter', () => {
  it('answers 400 naming the parameter instead of keeping one of the values', async () => {
    const touched: string[] = [];
    const { handler } = handlerWith(untouchableDeps(touched));
    const res = await handler(
      {
        ...event('GET', '/v1/deliveries', null, { authorizer: { role: 'admin' } }),
        queryStringParameters: { subscriptionId: 'sub_b', limit: '5' },
        multiValueQueryStringParameters: { subscriptionId: ['sub_a', 'sub_b'], limit: ['5'] },
      },
      context,
    );
    assert.equal(res.statusCode, 400);
    assert.match(JSON.parse(res.body).error.message, /^subscriptionId: /);
    assert.deepEqual(touched, []);
  });
});
