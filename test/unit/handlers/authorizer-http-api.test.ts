import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { mintTenantKey } from '#app/tenants/tenants.ts';
import { principalOf } from '#handlers/api/handler.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import { FakeClock } from '#test/fakes.ts';
import { InMemoryApiKeyStore } from '#test/memory-stores.ts';

/**
 * On the HTTP API (the stack's default) the authorizer gets a payload 2.0 REQUEST event and
 * answers a simple response: `isAuthorized`, and the principal as `context`. The key is judged
 * exactly as for the REST API's TOKEN event; only the reading of the header and the answer differ.
 */

const ADMIN_KEY = 'hk_admin_http_api_0123456789';
const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'authorizer',
} as unknown as Context;

const request = (authorization: string | undefined): APIGatewayRequestAuthorizerEventV2 =>
  ({
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/$default/GET/v1/subscriptions',
    identitySource: authorization === undefined ? [] : [authorization],
    routeKey: 'ANY /v1/{proxy+}',
    rawPath: '/v1/subscriptions',
    rawQueryString: '',
    headers: authorization === undefined ? {} : { authorization },
    requestContext: { http: { method: 'GET', path: '/v1/subscriptions' }, stage: '$default' },
  }) as unknown as APIGatewayRequestAuthorizerEventV2;

const token = (authorizationToken: string | undefined): APIGatewayTokenAuthorizerEvent =>
  ({
    type: 'TOKEN',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/prod/GET/v1/subscriptions',
    authorizationToken,
  }) as APIGatewayTokenAuthorizerEvent;

describe('authorizer on the HTTP API (REQUEST event, simple response)', () => {
  const keys = new InMemoryApiKeyStore();
  const authorize = createAuthorizerHandler(
    new StaticKeySource(ADMIN_KEY),
    { logger: new Logger({ logLevel: 'SILENT' }) },
    keys,
  );

  it('authorizes the admin key with the admin role as context', async () => {
    assert.deepEqual(await authorize(request(`Bearer ${ADMIN_KEY}`), context), {
      isAuthorized: true,
      context: { role: 'admin' },
    });
  });

  it('authorizes a tenant key as its tenant, in the context the API reads back from authorizer.lambda', async () => {
    const minted = await mintTenantKey({ apiKeys: keys, clock: new FakeClock() }, 'acme');
    const result = await authorize(request(`Bearer ${minted.key}`), context);
    assert.deepEqual(result, {
      isAuthorized: true,
      context: { role: 'tenant', tenantId: 'acme', keyId: minted.keyId },
    });
    assert.deepEqual(principalOf(result.context), { role: 'tenant', tenantId: 'acme', keyId: minted.keyId });
  });

  const refused: ReadonlyArray<readonly [string, string | undefined]> = [
    ['no header', undefined],
    ['an empty header', ''],
    ['a wrong key', 'Bearer hk_admin_wrong'],
    ['an unknown tenant key', 'Bearer hk_tenant_unknown0000000000000000'],
    ['another scheme', `Basic ${ADMIN_KEY}`],
    ['the bare key', ADMIN_KEY],
    ['two keys joined by a comma (a repeated header)', `Bearer ${ADMIN_KEY},Bearer ${ADMIN_KEY}`],
    ['a key longer than 512 characters', `Bearer ${'k'.repeat(513)}`],
  ];
  for (const [label, header] of refused) {
    it(`answers isAuthorized: false for ${label}, without throwing (HTTP API makes a throw a 500)`, async () => {
      assert.deepEqual(await authorize(request(header), context), { isAuthorized: false });
    });
  }

  it('decides every header as the TOKEN event does', async () => {
    for (const header of [`Bearer ${ADMIN_KEY}`, `bearer ${ADMIN_KEY}`, ...refused.map(([, h]) => h)]) {
      const simple = await authorize(request(header), context);
      const policy = await authorize(token(header), context).then(
        (r) => r.context,
        () => undefined,
      );
      assert.deepEqual(simple.isAuthorized ? simple.context : undefined, policy, String(header));
    }
  });
});
