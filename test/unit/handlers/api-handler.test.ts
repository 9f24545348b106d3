import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { FunctionDeps } from '#app/deps.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';

const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'api',
} as unknown as Context;

function event(method: string, path: string, authorizer?: Record<string, unknown>): APIGatewayProxyEvent {
  return {
    httpMethod: method,
    path,
    body: null,
    isBase64Encoded: false,
    queryStringParameters: null,
    requestContext: { authorizer },
  } as unknown as APIGatewayProxyEvent;
}

/** A handler over fakes whose logger keeps what it logs as an error (faults only, never refusals). */
function handlerWith(deps = fakeDeps()) {
  const logger = new Logger({ logLevel: 'SILENT' });
  const errors: unknown[][] = [];
  logger.error = ((...args: unknown[]) => void errors.push(args)) as Logger['error'];
  return { handler: createApiHandler(deps as unknown as FunctionDeps<'api'>, { logger }), errors };
}

describe('the API handler', () => {
  it('answers /health with no authorizer context', async () => {
    const { handler } = handlerWith();
    const res = await handler(event('GET', '/health'), context);
    assert.deepEqual([res.statusCode, JSON.parse(res.body)], [200, { status: 'ok' }]);
  });

  it('answers 401 in the public shape when the authorizer established no principal', async () => {
    const { handler, errors } = handlerWith();
    for (const authorizer of [undefined, { role: 'root' }]) {
      const res = await handler(event('GET', '/v1/subscriptions', authorizer), context);
      assert.equal(res.statusCode, 401);
      assert.deepEqual(JSON.parse(res.body), {
        error: { code: 'unauthorized', message: 'a valid Authorization: Bearer <key> header is required' },
      });
    }
    assert.deepEqual(errors, [], 'a refusal is not logged as a failure');
  });

  it('passes the authorizer’s tenant on to the services', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a', tenantId: 'acme' }));
    deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b', tenantId: 'globex' }));
    const { handler } = handlerWith(deps);
    const res = await handler(
      event('GET', '/v1/subscriptions', { role: 'tenant', tenantId: 'acme', keyId: 'k1' }),
      context,
    );
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      JSON.parse(res.body).items.map((s: { id: string }) => s.id),
      ['sub_a'],
    );
  });

  it('answers a fault as a 500 without internals, and logs it', async () => {
    const deps = fakeDeps();
    deps.subscriptions.list = async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:8000');
    };
    const { handler, errors } = handlerWith(deps);
    const res = await handler(event('GET', '/v1/subscriptions', { role: 'admin' }), context);
    assert.equal(res.statusCode, 500);
    assert.equal(JSON.parse(res.body).error.code, 'internal_error');
    assert.ok(!res.body.includes('ECONNREFUSED'));
    assert.equal(errors.length, 1);
  });
});
