import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import type { LocalApiType } from '#local/runtime.ts';

/**
 * Both API entries the stack offers, as the local runtime stands in for them: the Function URL
 * (the default: the api checks keys itself) and API Gateway's HTTP API (the authorizer checks
 * them first). A client cannot tell them apart: the same keys get the same answers, tenant scope
 * and revocation included.
 */
for (const apiType of ['url', 'http'] as const satisfies readonly LocalApiType[]) {
  describe(`the API entry '${apiType}'`, () => {
    let stack: LocalStack;
    before(async () => {
      stack = await startLocalStack({ apiType });
      await stack.subscribe('/acme', { tenantId: 'acme' });
      await stack.subscribe('/globex', { tenantId: 'globex' });
    });
    after(() => stack.stop());

    it('serves the admin key everything, and the public routes without a key', async () => {
      const listed = await stack.api.get('/v1/subscriptions?limit=100');
      assert.equal(listed.status, 200);
      assert.equal(listed.body.items.length, 2);
      assert.equal((await apiClient(stack.runtime.url).get('/health')).status, 200);
    });

    it('answers 401 in its error shape with no key, a wrong key or a malformed header, and stores nothing', async () => {
      for (const client of [apiClient(stack.runtime.url), apiClient(stack.runtime.url, 'hk_tenant_not-a-real-key')]) {
        const res = await client.post('/v1/events', { type: 'order.created', payload: {} });
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'unauthorized');
      }
      const malformed = await fetch(`${stack.runtime.url}/v1/subscriptions`, {
        headers: { authorization: 'Basic abc' },
      });
      assert.equal(malformed.status, 401);
      assert.equal((await stack.api.get('/v1/events?limit=10')).body.items.length, 0);
    });

    it("scopes a tenant key to its tenant's subscriptions, and refuses it once revoked", async () => {
      const minted = (await stack.api.post('/v1/tenants/acme/keys')).body;
      const acme = apiClient(stack.runtime.url, minted.key);
      const listed = await acme.get('/v1/subscriptions');
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.items.map((s: { tenantId: string }) => s.tenantId),
        ['acme'],
      );
      assert.equal((await acme.get('/v1/tenants/acme/keys')).status, 403, 'an admin route');
      assert.equal((await stack.api.raw('DELETE', `/v1/tenants/acme/keys/${minted.keyId}`)).status, 200);
      assert.equal((await acme.get('/v1/subscriptions')).status, 401);
    });
  });
}
