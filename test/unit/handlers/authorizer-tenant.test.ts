import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { hashKey, mintTenantKey } from '#app/tenants/tenants.ts';
import { principalOf } from '#handlers/api/handler.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import { FakeClock } from '#test/fakes.ts';
import { InMemoryApiKeyStore } from '#test/memory-stores.ts';

const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'authorizer',
} as unknown as Context;
const event = (token: string) =>
  ({
    type: 'TOKEN',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc/prod/GET/v1/subscriptions',
    authorizationToken: token,
  }) as APIGatewayTokenAuthorizerEvent;

describe('authorizer with tenant keys', () => {
  const keys = new InMemoryApiKeyStore();
  const handler = createAuthorizerHandler(
    new StaticKeySource('hk_admin_key'),
    { logger: new Logger({ logLevel: 'SILENT' }) },
    keys,
  );

  it('mints keys stored only as their SHA-256, and lets the key in as its tenant', async () => {
    const minted = await mintTenantKey({ apiKeys: keys, clock: new FakeClock() }, 'acme');
    assert.deepEqual([...keys.items.keys()], [hashKey(minted.key)]);
    assert.ok(
      ![...keys.items.values()].some((r) => JSON.stringify(r).includes(minted.key)),
      'the key itself is never stored',
    );
    const result = await handler(event(`Bearer ${minted.key}`), context);
    assert.equal(result.principalId, 'tenant:acme');
    assert.deepEqual(result.context, { role: 'tenant', tenantId: 'acme', keyId: minted.keyId });
    assert.deepEqual(principalOf(result.context), { role: 'tenant', tenantId: 'acme', keyId: minted.keyId });
  });

  it('still lets the admin key in as admin', async () => {
    const result = await handler(event('Bearer hk_admin_key'), context);
    assert.deepEqual(result.context, { role: 'admin' });
    assert.deepEqual(principalOf(result.context), { role: 'admin' });
  });

  it('refuses an unknown tenant key, and never looks up keys without the tenant prefix', async () => {
    let lookups = 0;
    const counting = createAuthorizerHandler(
      new StaticKeySource('hk_admin_key'),
      { logger: new Logger({ logLevel: 'SILENT' }) },
      {
        put: async () => {},
        find: async () => (lookups++, undefined),
        listByTenant: async () => [],
        revoke: async () => undefined,
      },
    );
    await assert.rejects(counting(event('Bearer hk_tenant_unknown'), context), /Unauthorized/);
    await assert.rejects(counting(event('Bearer something_else'), context), /Unauthorized/);
    assert.equal(lookups, 1);
  });

  it('principalOf refuses a context without a role', () => {
    assert.equal(principalOf(undefined), undefined);
    assert.equal(principalOf({ role: 'tenant' }), undefined);
    assert.equal(principalOf({ role: 'root' }), undefined);
  });
});
