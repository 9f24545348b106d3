import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { FAST_RETRY_POLICY, startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/** Shortened from the default (10 an hour) so the test reaches the limit in a few calls. */
const PAUSE_LIMIT = 3;

/** Bounded tenant actions: resume cannot bypass backoff, pause/resume is rate-limited, keys are revocable, the attempt log is paged. */
describe('tenant controls on the local runtime', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack({ env: { HOOKLINE_CUSTOMER_PAUSE_LIMIT: String(PAUSE_LIMIT) } });
  });
  after(() => stack.stop());

  it('resuming an active subscription is a no-op: drained 0, and a delivery waiting out its backoff is not attempted again', async () => {
    stack.receiver.script('/backoff', [], { status: 503 });
    const sub = await stack.subscribe('/backoff', {
      eventTypes: ['backoff.test'],
      retryPolicy: { ...FAST_RETRY_POLICY, initialDelaySeconds: 600, maxDelaySeconds: 600, deadlineSeconds: 3600 },
    });
    const [id] = (await stack.publish('backoff.test', {})).deliveryIds;
    await waitFor('the first attempt', async () => ((await stack.delivery(id!)).attempts === 1 ? true : undefined));

    for (let i = 0; i < 5; i++) {
      const res = await stack.api.post(`/v1/subscriptions/${sub.id}/resume`);
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.state, res.body.drained], ['active', 0]);
    }
    await new Promise((r) => setTimeout(r, 2500));
    const d = await stack.delivery(id!);
    assert.equal(d.attempts, 1, 'no attempt before the 600 s backoff');
    assert.equal(stack.receiver.on('/backoff').length, 1);
  });

  it(`a tenant key may pause and resume ${PAUSE_LIMIT} times per window per subscription, then 429 with Retry-After; the admin key is not limited`, async () => {
    const sub = await stack.subscribe('/limited', { eventTypes: ['limited.test'], tenantId: 'acme' });
    const acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);

    assert.equal((await acme.post(`/v1/subscriptions/${sub.id}/pause`)).status, 200);
    assert.equal((await acme.post(`/v1/subscriptions/${sub.id}/resume`)).status, 200);
    assert.equal((await acme.post(`/v1/subscriptions/${sub.id}/pause`)).status, 200);
    const refused = await acme.post(`/v1/subscriptions/${sub.id}/resume`);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After ${refused.headers.get('retry-after')}`);
    assert.equal(
      (await stack.api.get(`/v1/subscriptions/${sub.id}`)).body.state,
      'paused',
      'the refused resume changed nothing',
    );
    assert.equal(
      (await stack.api.post(`/v1/subscriptions/${sub.id}/resume`)).body.state,
      'active',
      'the admin key is not limited',
    );
  });

  it('lists and revokes tenant keys (admin only); a revoked key is refused, the others keep working', async () => {
    const minted = await stack.api.post('/v1/tenants/revoke-co/keys', { expiresInSeconds: 86_400 });
    assert.equal(minted.status, 201);
    assert.ok(minted.body.expiresAt > new Date().toISOString());
    const kept = (await stack.api.post('/v1/tenants/revoke-co/keys')).body;
    const tenant = apiClient(stack.runtime.url, minted.body.key);
    assert.equal((await tenant.get('/v1/subscriptions')).status, 200);

    const listed = await stack.api.get('/v1/tenants/revoke-co/keys');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.items.map((k: any) => k.keyId).sort(), [minted.body.keyId, kept.keyId].sort());
    assert.ok(!JSON.stringify(listed.body).includes('hk_tenant_'));
    assert.equal((await tenant.get('/v1/tenants/revoke-co/keys')).status, 403);

    const revoked = await stack.api.raw('DELETE', `/v1/tenants/revoke-co/keys/${minted.body.keyId}`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revokedAt);
    assert.equal((await tenant.get('/v1/subscriptions')).status, 401);
    assert.equal((await apiClient(stack.runtime.url, kept.key).get('/v1/subscriptions')).status, 200);
    assert.equal((await stack.api.raw('DELETE', '/v1/tenants/revoke-co/keys/key_unknown')).status, 404);
    assert.equal((await stack.api.post('/v1/tenants/revoke-co/keys', { expiresInSeconds: -1 })).status, 400);
  });

  it('pages the attempt log: the detail has the latest attempts and a cursor, /attempts has the rest', async () => {
    stack.receiver.script('/attempts', [{ status: 500 }, { status: 500 }, { status: 500 }], { status: 200 });
    await stack.subscribe('/attempts', { eventTypes: ['attempts.test'] });
    const [id] = (await stack.publish('attempts.test', {})).deliveryIds;
    const done = await stack.waitForState(id!, ['delivered']);
    assert.deepEqual(
      done.attemptLog.map((a: any) => a.seq),
      [1, 2, 3, 4],
    );
    assert.equal(done.attemptLogNextCursor, null);

    const latest = await stack.api.get(`/v1/deliveries/${id}/attempts?limit=3`);
    assert.equal(latest.status, 200);
    assert.deepEqual(
      latest.body.items.map((a: any) => a.seq),
      [2, 3, 4],
    );
    const older = await stack.api.get(`/v1/deliveries/${id}/attempts?limit=3&cursor=${latest.body.nextCursor}`);
    assert.deepEqual([older.body.items.map((a: any) => a.seq), older.body.nextCursor], [[1], null]);
    assert.equal((await stack.api.get(`/v1/deliveries/${id}/attempts?cursor=forged`)).status, 400);
  });

  it('replaying a delivery of a disabled subscription is 409, and changes nothing', async () => {
    stack.receiver.script('/gone', [], { status: 410 });
    const sub = await stack.subscribe('/gone', { eventTypes: ['gone.test'] });
    const [id] = (await stack.publish('gone.test', {})).deliveryIds;
    await stack.waitForState(id!, ['failed']);
    await waitFor('the subscription disabled', async () =>
      (await stack.api.get(`/v1/subscriptions/${sub.id}`)).body.state === 'disabled' ? true : undefined,
    );

    const res = await stack.api.post(`/v1/deliveries/${id}/replay`);
    assert.equal(res.status, 409);
    assert.match(res.body.error.message, /disabled/);
    assert.equal((await stack.delivery(id!)).state, 'failed');
  });

  it('refuses a bulk replay range reaching back before the retention window, naming createdFrom', async () => {
    for (const createdFrom of ['1970-01-01', '0001-01-01']) {
      const res = await stack.api.post('/v1/replays', { createdFrom, createdTo: new Date().toISOString() });
      assert.equal(res.status, 400, createdFrom);
      assert.match(res.body.error.message, /^createdFrom: /);
    }
    assert.equal((await stack.api.get('/v1/replays')).body.items.length, 0, 'no audit record written');
  });
});
