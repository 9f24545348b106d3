import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { FAST_RETRY_POLICY, startLocalStack, type LocalStack } from '#test/local-stack.ts';

/**
 * Portal access levels on the local runtime, over HTTP through the real authorizer: a "manage"
 * session is its tenant's endpoint self-service (create, change, rotate, delete, test with a
 * chosen type), scoped to its tenant (another tenant's endpoint answers 404, as if absent); a
 * "view" session is refused those routes with a 403 naming the route; a session limited to one
 * subscription manages that one and may not create.
 */
describe('portal sessions by access level', () => {
  let stack: LocalStack;
  let globex = { id: '', secret: '' };
  let acmeOther = '';

  /** A portal session of `tenantId` as the dashboard opens one: mint (admin), then trade the link's code. */
  async function portal(tenantId: string, body: Record<string, unknown>): Promise<{ api: ApiClient; access: string }> {
    const minted = await stack.api.post(`/v1/tenants/${tenantId}/portal-sessions`, body);
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    const code = minted.body.url.split('#portal=')[1];
    const exchanged = await apiClient(stack.runtime.url).post('/v1/portal-sessions/exchange', { code });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    return { api: apiClient(stack.runtime.url, exchanged.body.token), access: exchanged.body.access };
  }

  const count = async () => (await stack.api.get('/v1/subscriptions?limit=100')).body.items.length;

  before(async () => {
    stack = await startLocalStack();
    globex = await stack.subscribe('/globex', { tenantId: 'globex', eventTypes: ['order.*'], description: 'Globex' });
    acmeOther = (await stack.subscribe('/acme-other', { tenantId: 'acme', description: 'Acme other' })).id;
  });
  after(() => stack.stop());

  it('a link is view unless minted with access manage; another level is a 400 naming access, and nothing is minted', async () => {
    assert.equal((await portal('acme', {})).access, 'view');
    assert.equal((await portal('acme', { access: 'manage' })).access, 'manage');
    const refused = await stack.api.post('/v1/tenants/acme/portal-sessions', { access: 'owner' });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /^access: must be one of "view", "manage"; default "view"/);
  });

  it("a manage session creates its tenant's endpoint, changes it, rotates its secret (the old one overlapping), tests it with a chosen type and deletes it", async () => {
    const { api } = await portal('acme', { access: 'manage' });
    const created = await api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/acme-new`,
      eventTypes: ['order.*'],
      retryPolicy: FAST_RETRY_POLICY,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.tenantId, 'acme', "the session's own tenant, though the body named none");
    assert.match(created.body.secret, /^whsec_/);
    const id = created.body.id;

    const changed = await api.patch(`/v1/subscriptions/${id}`, {
      url: `${stack.receiver.url}/acme-moved`,
      headers: { 'X-Team': 'billing' },
      rateLimitPerSecond: 5,
      contactEmails: ['ops@acme.example'],
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(
      [changed.body.url, changed.body.headers, changed.body.rateLimitPerSecond, changed.body.contactEmails],
      [`${stack.receiver.url}/acme-moved`, { 'x-team': 'billing' }, 5, ['ops@acme.example']],
    );

    const before = Date.now();
    const rotated = await api.post(`/v1/subscriptions/${id}/rotate-secret`, { overlapSeconds: 3600 });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal(rotated.body.secrets.length, 2, 'the new secret and the old one, overlapping');
    assert.equal(rotated.body.secrets[0].secret, rotated.body.secret);
    assert.equal(rotated.body.secrets[1].secret, created.body.secret);
    const overlapEnd = Date.parse(rotated.body.secrets[1].expiresAt);
    assert.ok(overlapEnd >= before + 3600_000 - 1000 && overlapEnd <= Date.now() + 3600_000, 'an hour from now');

    stack.receiver.expectSecret('/acme-moved', rotated.body.secret);
    const test = await api.post(`/v1/subscriptions/${id}/test`, {
      type: 'order.created',
      payload: { example: true, total: '9.99' },
    });
    assert.equal(test.status, 202, JSON.stringify(test.body));
    await stack.waitForState(test.body.deliveryId, ['delivered']);
    const arrived = stack.receiver.on('/acme-moved').at(-1)!;
    assert.ok(arrived.verified, 'signed with the new secret');
    assert.equal(arrived.headers['x-team'], 'billing', 'the changed headers are sent');
    assert.equal(JSON.parse(arrived.body).type, 'order.created');
    assert.deepEqual(JSON.parse(arrived.body).data, { example: true, total: '9.99' });
    const wrongType = await api.post(`/v1/subscriptions/${id}/test`, { type: 'invoice.paid' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.error.message, /^type: 'invoice.paid' is not a type this subscription receives/);

    const deleted = await api.delete(`/v1/subscriptions/${id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.state, 'deleted');
    assert.equal((await stack.api.get(`/v1/subscriptions/${id}`)).body.state, 'deleted');
  });

  it('refuses bad input with a 400 naming the field, storing nothing', async () => {
    const { api } = await portal('acme', { access: 'manage' });
    const stored = await count();
    for (const [body, field] of [
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: `${stack.receiver.url}/x`, eventTypes: ['not a type'] }, 'eventTypes'],
      [{ url: `${stack.receiver.url}/x`, headers: { 'Content-Type': 'text/plain' } }, 'headers.Content-Type'],
      [{ url: `${stack.receiver.url}/x`, rateLimitPerSecond: 0 }, 'rateLimitPerSecond'],
      [{ url: `${stack.receiver.url}/x`, contactEmails: ['nobody'] }, 'contactEmails'],
    ] as const) {
      const res = await api.post('/v1/subscriptions', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.error.message.startsWith(`${field}: `), res.body.error.message);
    }
    assert.equal(await count(), stored, 'nothing stored');
  });

  it("cannot touch another tenant's endpoint (404, as if absent) nor create one for another tenant (403)", async () => {
    const { api } = await portal('acme', { access: 'manage' });
    for (const [method, path, body] of [
      ['GET', `/v1/subscriptions/${globex.id}`, undefined],
      ['PATCH', `/v1/subscriptions/${globex.id}`, { url: `${stack.receiver.url}/stolen` }],
      ['POST', `/v1/subscriptions/${globex.id}/rotate-secret`, undefined],
      ['POST', `/v1/subscriptions/${globex.id}/test`, undefined],
      ['DELETE', `/v1/subscriptions/${globex.id}`, undefined],
    ] as const) {
      const res = await api.raw(method, path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.message, `subscription ${globex.id} does not exist`);
    }
    const other = await api.post('/v1/subscriptions', { url: `${stack.receiver.url}/x`, tenantId: 'globex' });
    assert.equal(other.status, 403);
    assert.match(other.body.error.message, /not for tenant globex/);
    const untouched = (await stack.api.get(`/v1/subscriptions/${globex.id}`)).body;
    assert.deepEqual([untouched.state, untouched.url], ['active', `${stack.receiver.url}/globex`]);
    const secrets = (await stack.api.get(`/v1/subscriptions/${globex.id}/secret`)).body.secrets;
    assert.deepEqual(
      secrets.map((s: { secret: string }) => s.secret),
      [globex.secret],
      'not rotated',
    );
  });

  it('a view session is refused the self-service routes with a 403 naming the route, and may still read and test', async () => {
    const { api } = await portal('acme', {});
    for (const [method, path, route, body] of [
      ['POST', '/v1/subscriptions', 'POST /v1/subscriptions', { url: `${stack.receiver.url}/x` }],
      ['PATCH', `/v1/subscriptions/${acmeOther}`, 'PATCH /v1/subscriptions/{subscriptionId}', { description: 'x' }],
      ['DELETE', `/v1/subscriptions/${acmeOther}`, 'DELETE /v1/subscriptions/{subscriptionId}', undefined],
      [
        'POST',
        `/v1/subscriptions/${acmeOther}/rotate-secret`,
        'POST /v1/subscriptions/{subscriptionId}/rotate-secret',
        undefined,
      ],
    ] as const) {
      const res = await api.raw(method, path, body);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.code, 'forbidden');
      assert.equal(
        res.body.error.message,
        `${route} is not open to a "view" portal session; a link minted with access "manage" may call it`,
      );
    }
    const still = (await stack.api.get(`/v1/subscriptions/${acmeOther}`)).body;
    assert.deepEqual([still.state, still.description], ['active', 'Acme other'], 'nothing changed');
    assert.equal((await api.get(`/v1/subscriptions/${acmeOther}`)).status, 200);
    assert.equal((await api.post(`/v1/subscriptions/${acmeOther}/test`)).status, 202);
  });

  it('a manage session limited to one subscription manages it, may not create, and sees no other', async () => {
    const mine = (await stack.subscribe('/acme-one', { tenantId: 'acme', description: 'Acme one' })).id;
    const { api } = await portal('acme', { access: 'manage', subscriptionId: mine });
    const stored = await count();
    const create = await api.post('/v1/subscriptions', { url: `${stack.receiver.url}/x` });
    assert.equal(create.status, 403);
    assert.match(
      create.body.error.message,
      new RegExp(`^POST /v1/subscriptions is not open to a portal session limited to one subscription \\(${mine}\\)`),
    );
    assert.equal(await count(), stored, 'nothing stored');
    assert.equal(
      (await api.patch(`/v1/subscriptions/${mine}`, { description: 'Renamed' })).body.description,
      'Renamed',
    );
    assert.equal((await api.post(`/v1/subscriptions/${mine}/rotate-secret`, { overlapSeconds: 0 })).status, 200);
    assert.equal((await api.patch(`/v1/subscriptions/${acmeOther}`, { description: 'x' })).status, 404);
    assert.equal((await api.delete(`/v1/subscriptions/${acmeOther}`)).status, 404);
    assert.equal((await api.delete(`/v1/subscriptions/${mine}`)).status, 200);
  });
});
