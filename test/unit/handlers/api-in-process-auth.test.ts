import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { bearerGrants } from '#app/credentials/bearer-grants.ts';
import { mintTenantKey, revokeTenantKey } from '#app/tenants/tenants.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { inProcessAuthenticator } from '#handlers/api/in-process-auth.ts';
import { aSubscription, FakeClock, fakeDeps } from '#test/fakes.ts';
import { InMemoryApiKeyStore } from '#test/memory-stores.ts';

/**
 * Behind a Function URL (the stack's default entry) no authorizer runs before the api: it checks
 * the bearer credential itself, by the authorizer's rule, and keeps a grant as long as API
 * Gateway's cache would. Nothing the request carries in place of an authorizer is believed.
 */

const ADMIN_KEY = 'hk_admin_function_url_0123456789';
const CACHE_MS = 30_000;
const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'api',
} as unknown as Context;

/** An InMemoryApiKeyStore that counts its lookups. */
class CountingKeys extends InMemoryApiKeyStore {
  finds = 0;
  override async find(keyHash: string) {
    this.finds++;
    return super.find(keyHash);
  }
}

function setup() {
  const clock = new FakeClock();
  const keys = new CountingKeys();
  let adminReads = 0;
  const adminKey = {
    adminKey: async () => {
      adminReads++;
      return new StaticKeySource(ADMIN_KEY).adminKey();
    },
  };
  const authenticate = inProcessAuthenticator(
    bearerGrants({ adminKey, tenantKeys: keys, now: () => clock.now() }),
    CACHE_MS,
    () => clock.now(),
  );
  return { clock, keys, authenticate, adminReads: () => adminReads };
}

describe('inProcessAuthenticator: the api checks bearer keys itself', () => {
  it('grants the admin key, and keeps the grant for the cache period: no second lookup', async () => {
    const { authenticate, adminReads } = setup();
    assert.deepEqual(await authenticate(`Bearer ${ADMIN_KEY}`), { role: 'admin' });
    assert.deepEqual(await authenticate(`Bearer ${ADMIN_KEY}`), { role: 'admin' });
    assert.equal(adminReads(), 1);
  });

  it('grants a tenant key as its tenant; a revoked one works until the cached grant expires, then never', async () => {
    const { clock, keys, authenticate } = setup();
    const minted = await mintTenantKey({ apiKeys: keys, clock }, 'acme');
    const header = `Bearer ${minted.key}`;
    assert.deepEqual(await authenticate(header), { role: 'tenant', tenantId: 'acme', keyId: minted.keyId });
    await revokeTenantKey({ apiKeys: keys, clock }, 'acme', minted.keyId);
    clock.nowMs += CACHE_MS - 1;
    assert.equal((await authenticate(header))?.role, 'tenant', 'still within the cache period');
    assert.equal(keys.finds, 1);
    clock.nowMs += 1;
    assert.equal(await authenticate(header), undefined, 'looked up again once the grant expired: revoked');
    assert.equal(keys.finds, 2);
  });

  it('refuses a missing, malformed or unknown credential, and caches no refusal: each is looked up again', async () => {
    const { keys, authenticate } = setup();
    for (const header of [undefined, '', 'Basic abc', 'Bearer', `Bearer ${ADMIN_KEY}x`])
      assert.equal(await authenticate(header), undefined, String(header));
    assert.equal(keys.finds, 0, 'nothing shaped like a tenant key: no lookup');
    assert.equal(await authenticate('Bearer hk_tenant_unknown'), undefined);
    assert.equal(await authenticate('Bearer hk_tenant_unknown'), undefined);
    assert.equal(keys.finds, 2);
  });
});

function v2(path: string, headers: Record<string, string>, authorizer?: unknown): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers,
    isBase64Encoded: false,
    requestContext: {
      domainName: 'abc123.lambda-url.eu-west-1.on.aws',
      http: { method: 'GET', path },
      stage: '$default',
      ...(authorizer ? { authorizer } : {}),
    },
  } as unknown as APIGatewayProxyEventV2;
}

describe('the api handler behind a Function URL (authenticate given)', () => {
  const deps = fakeDeps();
  deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a', tenantId: 'acme' }));
  deps.subscriptions.items.set('sub_b', aSubscription({ id: 'sub_b', tenantId: 'globex' }));
  const { authenticate } = setup();
  const handler = createApiHandler(
    deps as unknown as FunctionDeps<'api'>,
    { logger: new Logger({ logLevel: 'SILENT' }) },
    {
      authenticate,
    },
  );
  const ids = (body: string) => (JSON.parse(body) as { items: { id: string }[] }).items.map((s) => s.id).sort();

  it('serves the admin key its routes', async () => {
    const res = await handler(v2('/v1/subscriptions', { authorization: `Bearer ${ADMIN_KEY}` }), context);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(ids(res.body), ['sub_a', 'sub_b']);
  });

  it('answers 401 in its own error shape without a valid key, and the public routes with none', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-key-0123456789' }] as Record<string, string>[]) {
      const res = await handler(v2('/v1/subscriptions', headers), context);
      assert.equal(res.statusCode, 401);
      assert.equal(JSON.parse(res.body).error.code, 'unauthorized');
    }
    assert.equal((await handler(v2('/health', {}), context)).statusCode, 200);
  });

  it('believes no authorizer context the event carries: only the key decides', async () => {
    const forged = { lambda: { role: 'admin' } };
    assert.equal((await handler(v2('/v1/subscriptions', {}, forged), context)).statusCode, 401);
  });

  it("takes the IAM caller Lambda checked (a URL with AWS_IAM auth) as the admin, as behind API Gateway's IAM", async () => {
    const iam = { iam: { userArn: 'arn:aws:iam::123456789012:role/ops', accountId: '123456789012' } };
    const res = await handler(v2('/v1/subscriptions', {}, iam), context);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(ids(res.body), ['sub_a', 'sub_b']);
  });
});
