import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/** Tenant keys: scoped access to a tenant's own subscriptions and deliveries, and the rate-limited resend button. */
describe('tenant keys and customer replay', () => {
  let stack: LocalStack;
  let acme: ApiClient;
  let globex: ApiClient;
  let acmeSub: { id: string };
  let acmeOther: { id: string };
  let globexSub: { id: string };
  const acmeDeliveries: string[] = [];
  let globexDelivery: string;

  before(async () => {
    stack = await startLocalStack();
    acmeSub = await stack.subscribe('/acme', { eventTypes: ['order.*'], tenantId: 'acme' });
    acmeOther = await stack.subscribe('/acme-other', { eventTypes: ['order.*'], tenantId: 'acme' });
    globexSub = await stack.subscribe('/globex', { eventTypes: ['order.*'], tenantId: 'globex' });
    for (let i = 0; i < 102; i += 17) {
      const published = await Promise.all(
        Array.from({ length: Math.min(17, 102 - i) }, (_, j) =>
          stack.publish('order.created', { n: i + j }, undefined, { audience: 'all' }),
        ),
      );
      for (const p of published) {
        for (const id of p.deliveryIds) {
          const d = await stack.delivery(id);
          if (d.subscriptionId === acmeSub.id) acmeDeliveries.push(id);
          if (d.subscriptionId === globexSub.id) globexDelivery = id;
        }
      }
    }
    await Promise.all(acmeDeliveries.map((id) => stack.waitForState(id, ['delivered'], 60_000)));
    const minted = await stack.api.post('/v1/tenants/acme/keys');
    assert.equal(minted.status, 201);
    acme = apiClient(stack.runtime.url, minted.body.key);
    globex = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/globex/keys')).body.key);
  });
  after(() => stack.stop());

  it('only the admin key mints tenant keys; the key is shown once and stored as a hash', async () => {
    const res = await stack.api.post('/v1/tenants/initech/keys');
    assert.equal(res.status, 201);
    assert.match(res.body.key, /^hk_tenant_[A-Za-z0-9_-]{43}$/);
    assert.match(res.body.keyId, /^key_/);
    assert.equal(res.body.tenantId, 'initech');
    const byTenant = await acme.post('/v1/tenants/acme/keys');
    assert.equal(byTenant.status, 403);
    assert.equal(byTenant.body.error.code, 'forbidden');
    assert.equal((await stack.api.post('/v1/tenants/bad%20tenant/keys')).status, 400);
    assert.equal(
      (
        await apiClient(stack.runtime.url, 'hk_tenant_forged0000000000000000000000000000000000').get(
          '/v1/subscriptions',
        )
      ).status,
      401,
    );
  });

  it("a tenant sees its own subscriptions and deliveries; another tenant's ids are 404, like ids that do not exist", async () => {
    const list = await acme.get('/v1/subscriptions');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items.map((s: any) => s.id).sort(), [acmeSub.id, acmeOther.id].sort());
    assert.equal((await acme.get(`/v1/subscriptions/${acmeSub.id}`)).status, 200);
    assert.equal(
      (await acme.get(`/v1/subscriptions?tenantId=globex`)).body.items.length,
      2,
      'a tenant cannot widen its own scope',
    );

    const detail = await acme.get(`/v1/deliveries/${acmeDeliveries[0]}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.attemptLog.length, 1);
    assert.equal((await acme.get(`/v1/deliveries?subscriptionId=${acmeSub.id}&limit=5`)).body.items.length, 5);

    for (const [method, path] of [
      ['GET', `/v1/subscriptions/${globexSub.id}`],
      ['POST', `/v1/subscriptions/${globexSub.id}/pause`],
      ['GET', `/v1/deliveries/${globexDelivery}`],
      ['POST', `/v1/deliveries/${globexDelivery}/replay`],
      ['GET', `/v1/deliveries?subscriptionId=${globexSub.id}`],
      ['GET', `/v1/dead-letters?subscriptionId=${globexSub.id}`],
    ] as const) {
      const res = await acme.raw(method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await globex.get(`/v1/subscriptions/${globexSub.id}`)).status, 200, 'the owner still sees it');
    assert.equal(
      (await stack.api.get(`/v1/subscriptions/${globexSub.id}`)).body.state,
      'active',
      'and the 404 changed nothing',
    );
  });

  it('producer and operator routes need the admin key: 403 for a tenant (publishing for another tenant too)', async () => {
    for (const [method, path, body] of [
      ['POST', '/v1/events', { type: 'order.created', tenantId: 'globex', payload: {} }],
      ['POST', '/v1/subscriptions', { url: 'http://127.0.0.1:9/x' }],
      ['POST', '/v1/replays', { createdFrom: '2024-01-01', createdTo: '2024-01-02' }],
      ['GET', '/v1/replays', undefined],
    ] as const) {
      const res = await acme.raw(method, path, body);
      assert.equal(res.status, 403, `${method} ${path}`);
    }
    assert.equal((await acme.get('/v1/dead-letters')).status, 400, 'tenant dead letters are listed per subscription');
  });

  it('customer replay: 100 a minute per subscription, the 101st gets 429 with Retry-After; other subscriptions and the admin key are not limited', async (t) => {
    // All 101 must fall in one fixed one-minute window: start at the top of a minute if this one is nearly over.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 35_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));

    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 20) {
      const batch = await Promise.all(
        acmeDeliveries.slice(i, i + 20).map((id) => acme.post(`/v1/deliveries/${id}/replay`)),
      );
      statuses.push(...batch.map((r) => r.status));
    }
    assert.deepEqual(statuses, Array(100).fill(202));
    const refused = await acme.post(`/v1/deliveries/${acmeDeliveries[100]}/replay`);
    t.diagnostic(
      `101st customer replay: ${refused.status}, Retry-After ${refused.headers.get('retry-after')} s: ${refused.body.error?.message}`,
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await stack.delivery(acmeDeliveries[100]!)).state, 'delivered', 'the refused replay changed nothing');

    const otherSub = (await stack.api.get(`/v1/deliveries?subscriptionId=${acmeOther.id}&limit=1`)).body.items[0];
    assert.equal(
      (await acme.post(`/v1/deliveries/${otherSub.id}/replay`)).status,
      202,
      'the limit is per subscription',
    );
    assert.equal(
      (await stack.api.post(`/v1/deliveries/${acmeDeliveries[101]}/replay`)).status,
      202,
      'the admin key is not limited',
    );

    // The admin's replay of the 102nd is counted below too: wait for it as well.
    await Promise.all(
      [...acmeDeliveries.slice(0, 100), acmeDeliveries[101]!].map((id) =>
        stack.waitForState(id, ['delivered'], 60_000),
      ),
    );
    assert.equal(stack.receiver.on('/acme').length, 102 + 100 + 1, 'every allowed replay was sent once');
  });

  it('a tenant can pause and resume its own subscription', async () => {
    const paused = await acme.post(`/v1/subscriptions/${acmeOther.id}/pause`, { reason: 'maintenance window' });
    assert.equal(paused.status, 200);
    assert.deepEqual([paused.body.state, paused.body.stateReason], ['paused', 'maintenance window']);
    const resumed = await acme.post(`/v1/subscriptions/${acmeOther.id}/resume`);
    assert.equal(resumed.body.state, 'active');
  });
});
