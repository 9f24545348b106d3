import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { ADMIN } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '#app/errors.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import { route } from '#handlers/api/router.ts';
import { FakeClock } from '#test/fakes.ts';
import { InMemoryApiKeyStore } from '#test/memory-stores.ts';

const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'authorizer',
} as unknown as Context;
const event = (key: string) =>
  ({
    type: 'TOKEN',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc/prod/GET/v1/subscriptions',
    authorizationToken: `Bearer ${key}`,
  }) as APIGatewayTokenAuthorizerEvent;

function setup() {
  const apiKeys = new InMemoryApiKeyStore();
  const clock = new FakeClock();
  const deps = { apiKeys, clock } as unknown as FunctionDeps<'api'>;
  const call = (method: string, path: string, body: unknown = null, principal = ADMIN) =>
    route(deps, { method, path, query: {}, body: body === null ? null : JSON.stringify(body), principal });
  const authorize = createAuthorizerHandler(
    new StaticKeySource('hk_admin_key'),
    { logger: new Logger({ logLevel: 'SILENT' }) },
    apiKeys,
    () => clock.now(),
  );
  return { apiKeys, clock, call, authorize };
}

describe('tenant keys: expiry, listing, revocation', () => {
  it('mints a key that expires after expiresInSeconds; the authorizer refuses it from then on', async () => {
    const { clock, call, authorize } = setup();
    const minted = await call('POST', '/v1/tenants/acme/keys', { expiresInSeconds: 3600 });
    assert.equal(minted.status, 201);
    const body = minted.body as { key: string; expiresAt: string };
    assert.equal(body.expiresAt, new Date(clock.now() + 3600_000).toISOString());

    assert.equal((await authorize(event(body.key), context)).principalId, 'tenant:acme');
    clock.advance(3600_000);
    await assert.rejects(authorize(event(body.key), context), /Unauthorized/);
  });

  it('mints a key without expiry when the body is empty (expiresAt null)', async () => {
    const { call, clock, authorize } = setup();
    const minted = (await call('POST', '/v1/tenants/acme/keys')).body as {
      key: string;
      expiresAt: string | null;
      revokedAt: string | null;
    };
    assert.equal(minted.expiresAt, null);
    clock.advance(10 * 365 * 86_400_000);
    assert.equal((await authorize(event(minted.key), context)).principalId, 'tenant:acme');
  });

  for (const [body, pattern] of [
    [{ expiresInSeconds: 0 }, /^expiresInSeconds: /],
    [{ expiresInSeconds: 1.5 }, /^expiresInSeconds: /],
    [{ expiresInSeconds: '3600' }, /^expiresInSeconds: /],
    [{ expiresInSeconds: 400_000_000 }, /^expiresInSeconds: /],
    [{ ttl: 5 }, /^ttl: is not a known field/],
  ] as const) {
    it(`refuses ${JSON.stringify(body)} naming the field, minting nothing`, async () => {
      const { apiKeys, call } = setup();
      await assert.rejects(
        call('POST', '/v1/tenants/acme/keys', body),
        (e: unknown) => e instanceof ValidationError && pattern.test(e.message),
      );
      assert.equal(apiKeys.items.size, 0);
    });
  }

  it('lists a tenant’s keys, oldest first, without the key or its hash', async () => {
    const { clock, call } = setup();
    const a = (await call('POST', '/v1/tenants/acme/keys')).body as { keyId: string };
    clock.advance(1000);
    const b = (await call('POST', '/v1/tenants/acme/keys', { expiresInSeconds: 60 })).body as { keyId: string };
    await call('POST', '/v1/tenants/globex/keys');

    const listed = await call('GET', '/v1/tenants/acme/keys');

    assert.equal(listed.status, 200);
    const items = (listed.body as { items: Record<string, unknown>[] }).items;
    assert.deepEqual(
      items.map((k) => k.keyId),
      [a.keyId, b.keyId],
    );
    for (const k of items)
      assert.deepEqual(Object.keys(k).sort(), ['createdAt', 'expiresAt', 'keyId', 'revokedAt', 'tenantId']);
    assert.ok(!JSON.stringify(listed.body).includes('hk_tenant_'), 'never the key');
  });

  it('revokes a key: the authorizer refuses it at once; revoking again keeps the first time; an unknown key is 404', async () => {
    const { clock, call, authorize } = setup();
    const minted = (await call('POST', '/v1/tenants/acme/keys')).body as { key: string; keyId: string };
    const other = (await call('POST', '/v1/tenants/acme/keys')).body as { key: string };

    const revoked = await call('DELETE', `/v1/tenants/acme/keys/${minted.keyId}`);

    assert.equal(revoked.status, 200);
    assert.equal((revoked.body as { revokedAt: string }).revokedAt, clock.iso());
    await assert.rejects(authorize(event(minted.key), context), /Unauthorized/);
    assert.equal((await authorize(event(other.key), context)).principalId, 'tenant:acme', 'the other key still works');

    clock.advance(5000);
    assert.equal(
      ((await call('DELETE', `/v1/tenants/acme/keys/${minted.keyId}`)).body as { revokedAt: string }).revokedAt,
      new Date(clock.now() - 5000).toISOString(),
    );
    await assert.rejects(
      call('DELETE', `/v1/tenants/globex/keys/${minted.keyId}`),
      NotFoundError,
      "another tenant's key id is not found",
    );
    await assert.rejects(call('DELETE', '/v1/tenants/acme/keys/key_nope'), NotFoundError);
  });

  it('listing and revoking need the admin key', async () => {
    const { call } = setup();
    const tenant = { role: 'tenant', tenantId: 'acme', keyId: 'key_x' } as const;
    await assert.rejects(call('GET', '/v1/tenants/acme/keys', null, tenant), ForbiddenError);
    await assert.rejects(call('DELETE', '/v1/tenants/acme/keys/key_x', null, tenant), ForbiddenError);
  });
});
