import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { FunctionDeps } from '#app/deps.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';

/**
 * The HTTP API (payload 2.0, the stack's default) and the REST API (payload 1.0) reach the same
 * router with the same request: method, path, query, body and principal are read from wherever
 * each version keeps them, and the answer is the same object.
 */

const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'api',
} as unknown as Context;

interface V2Options {
  readonly rawQueryString?: string;
  readonly queryStringParameters?: Record<string, string>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
  readonly authorizer?: unknown;
}

function v2(method: string, path: string, options: V2Options = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: path === '/health' ? 'GET /health' : 'ANY /v1/{proxy+}',
    rawPath: path,
    rawQueryString: options.rawQueryString ?? '',
    headers: {},
    ...(options.queryStringParameters ? { queryStringParameters: options.queryStringParameters } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      http: { method, path },
      stage: '$default',
      ...(options.authorizer ? { authorizer: options.authorizer } : {}),
    },
  } as unknown as APIGatewayProxyEventV2;
}

const v1 = (method: string, path: string, authorizer?: Record<string, unknown>): APIGatewayProxyEvent =>
  ({
    httpMethod: method,
    path,
    body: null,
    isBase64Encoded: false,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { authorizer },
  }) as unknown as APIGatewayProxyEvent;

const ADMIN_V2 = { lambda: { role: 'admin' } };

/** Dependencies that fail the test if anything so much as looks one up. */
function untouchableDeps(touched: string[]): FunctionDeps<'api'> {
  return new Proxy({} as FunctionDeps<'api'>, {
    get(_target, key) {
      touched.push(String(key));
      throw new Error(`dependency ${String(key)} used`);
    },
  });
}

function handlerWith(deps: unknown = fakeDeps()) {
  return createApiHandler(deps as FunctionDeps<'api'>, { logger: new Logger({ logLevel: 'SILENT' }) });
}

const parsed = (res: { statusCode: number; body: string }) => [res.statusCode, JSON.parse(res.body)] as const;

describe('the API handler on an HTTP API (payload 2.0) event', () => {
  it('answers GET /health without an authorizer', async () => {
    assert.deepEqual(parsed(await handlerWith()(v2('GET', '/health'), context)), [200, { status: 'ok' }]);
  });

  it('reads the principal from authorizer.lambda, where simple responses put the context', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a', tenantId: 'acme' }));
    deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b', tenantId: 'globex' }));
    const res = await handlerWith(deps)(
      v2('GET', '/v1/subscriptions', { authorizer: { lambda: { role: 'tenant', tenantId: 'acme', keyId: 'k1' } } }),
      context,
    );
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      JSON.parse(res.body).items.map((s: { id: string }) => s.id),
      ['sub_a'],
    );
  });

  it('takes an IAM-authorized caller (authorizer.iam) as the admin', async () => {
    const res = await handlerWith()(
      v2('GET', '/v1/subscriptions', {
        authorizer: { iam: { userArn: 'arn:aws:iam::123456789012:role/ops', accountId: '123456789012' } },
      }),
      context,
    );
    assert.equal(res.statusCode, 200);
  });

  for (const [label, authorizer] of [
    ['no authorizer', undefined],
    ['an empty lambda context', { lambda: {} }],
    ['a context at the v1 place, not under lambda', { role: 'admin' }],
    ['an IAM identity without a user ARN', { iam: { accountId: '123456789012' } }],
  ] as const) {
    it(`answers 401 with ${label}, touching nothing`, async () => {
      const touched: string[] = [];
      const res = await handlerWith(untouchableDeps(touched))(v2('GET', '/v1/subscriptions', { authorizer }), context);
      assert.equal(res.statusCode, 401);
      assert.equal(JSON.parse(res.body).error.code, 'unauthorized');
      assert.deepEqual(touched, []);
    });
  }

  it('passes the query string on', async () => {
    const res = await handlerWith()(
      v2('GET', '/v1/subscriptions', {
        rawQueryString: 'limit=abc',
        queryStringParameters: { limit: 'abc' },
        authorizer: ADMIN_V2,
      }),
      context,
    );
    assert.equal(res.statusCode, 400);
    assert.match(JSON.parse(res.body).error.message, /^limit: /);
  });

  it('refuses a repeated parameter, which only rawQueryString shows (queryStringParameters joins it with a comma)', async () => {
    const touched: string[] = [];
    const event = v2('GET', '/v1/deliveries', {
      rawQueryString: 'subscriptionId=sub_a&subscriptionId=sub_b&limit=5',
      queryStringParameters: { subscriptionId: 'sub_a,sub_b', limit: '5' },
      authorizer: ADMIN_V2,
    });
    const res = await handlerWith(untouchableDeps(touched))(event, context);
    assert.equal(res.statusCode, 400);
    assert.match(JSON.parse(res.body).error.message, /^subscriptionId: /);
    assert.deepEqual(touched, []);
  });

  it('answers an unauthenticated caller with a repeated parameter 401, not 400', async () => {
    const res = await handlerWith(untouchableDeps([]))(
      v2('GET', '/v1/deliveries', { rawQueryString: 'a=1&a=2', queryStringParameters: { a: '1,2' } }),
      context,
    );
    assert.equal(res.statusCode, 401);
  });

  it('decodes a base64 body as the plain one', async () => {
    const body = JSON.stringify({ url: 5 });
    const plain = await handlerWith()(v2('POST', '/v1/subscriptions', { body, authorizer: ADMIN_V2 }), context);
    const encoded = await handlerWith()(
      v2('POST', '/v1/subscriptions', {
        body: Buffer.from(body).toString('base64'),
        isBase64Encoded: true,
        authorizer: ADMIN_V2,
      }),
      context,
    );
    assert.equal(plain.statusCode, 400);
    assert.deepEqual(parsed(encoded), parsed(plain));
  });

  it('answers every request as the REST event gets it, with the same response object', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    const handler = handlerWith(deps);
    for (const [method, path] of [
      ['GET', '/v1/subscriptions'],
      ['GET', '/v1/subscriptions/sub_a'],
      ['GET', '/v1/nothing-here'],
      ['DELETE', '/v1/subscriptions'],
      ['GET', '/health'],
    ] as const) {
      const fromHttp = await handler(v2(method, path, { authorizer: ADMIN_V2 }), context);
      const fromRest = await handler(v1(method, path, { role: 'admin' }), context);
      assert.deepEqual(fromHttp, fromRest, `${method} ${path}`);
      assert.deepEqual(Object.keys(fromHttp).sort(), ['body', 'headers', 'statusCode']);
    }
  });
});
