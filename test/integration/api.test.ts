import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

describe('HTTP API on the local gateway', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  it('serves /health without a key', async () => {
    const res = await apiClient(stack.runtime.url).get('/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  it('answers 401 with the error shape without a key or with a wrong key', async () => {
    for (const client of [apiClient(stack.runtime.url), apiClient(stack.runtime.url, 'hk_admin_wrong')]) {
      const res = await client.post('/v1/subscriptions', { url: 'http://127.0.0.1:1/x' });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    }
    const list = await stack.api.get('/v1/subscriptions');
    assert.equal(list.body.items.length, 0, 'nothing was stored by the refused calls');
  });

  it('answers 404 with the error shape for unknown ids and routes', async () => {
    // A missing resource is not_found; a path no route has is route_not_found (the API's surface, not a resource).
    for (const [path, code] of [
      ['/v1/subscriptions/sub_doesnotexist', 'not_found'],
      ['/v1/deliveries/dlv_doesnotexist', 'not_found'],
      ['/v1/nothing-here', 'route_not_found'],
    ] as const) {
      const res = await stack.api.get(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, code, path);
    }
    const replay = await stack.api.post('/v1/deliveries/dlv_doesnotexist/replay');
    assert.equal(replay.status, 404);
  });

  it('creates a subscription with defaults and a whsec_ secret, and reads it back without the secret', async () => {
    const created = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/s`,
      description: 'orders',
    });
    assert.equal(created.status, 201);
    assert.match(created.body.id, /^sub_/);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(created.body.eventTypes, ['*']);
    assert.equal(created.body.state, 'active');
    const got = await stack.api.get(`/v1/subscriptions/${created.body.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.secret, undefined);
    assert.equal(got.body.description, 'orders');
  });

  it('rejects bad input with 400 naming the field, storing nothing', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/v1/events', '{not json', /body: is not valid JSON/],
      ['/v1/events', { payload: {} }, /^type:/],
      ['/v1/events', { type: 'a.b' }, /^payload:/],
      ['/v1/events', { type: 'a.b', payload: {}, id: 'x'.repeat(129) }, /^id:/],
      ['/v1/events', { type: 'a.b', payload: 'x'.repeat(300 * 1024) }, /^body: must be at most 262144 bytes/],
      ['/v1/subscriptions', { url: 'ftp://example.com/x' }, /^url: .*scheme/],
      [
        '/v1/subscriptions',
        { url: 'http://127.0.0.1/x', retryPolicy: { initialDelaySeconds: 0 } },
        /^retryPolicy\.initialDelaySeconds:/,
      ],
    ];
    const subscriptionsBefore = (await stack.api.get('/v1/subscriptions?limit=100')).body.items.length;
    for (const [path, body, message] of cases) {
      const res = await stack.api.post(path, body);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body).slice(0, 60)}`);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, message);
    }
    assert.equal((await stack.api.get('/v1/subscriptions?limit=100')).body.items.length, subscriptionsBefore);
  });

  it('pages deliveries of a subscription with a cursor, newest first, filtered by state', async () => {
    stack.receiver.script('/paged', [], { status: 200 });
    const sub = await stack.subscribe('/paged', { eventTypes: ['paged.test'] });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(await stack.deliveryIdOf((await stack.publish('paged.test', { i })).eventId, sub.id));
    await waitFor('all delivered', async () => {
      const res = await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}&state=delivered&limit=100`);
      return res.body.items.length === 7;
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await stack.api.get(
        `/v1/deliveries?subscriptionId=${sub.id}&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200);
      assert.ok(res.body.items.length <= 3);
      seen.push(...res.body.items.map((d: any) => d.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.deepEqual(seen, [...ids].reverse());
    const none = await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}&state=failed`);
    assert.deepEqual(none.body.items, []);
    const bad = await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}&cursor=garbage!!`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /cursor/);
    const badState = await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}&state=lost`);
    assert.equal(badState.status, 400);
  });

  it("keeps a paused subscription's events: stored, not sent, sent after resume", async () => {
    stack.receiver.script('/paused', [], { status: 200 });
    const sub = await stack.subscribe('/paused', { eventTypes: ['paused.test'] });
    const paused = await stack.api.post(`/v1/subscriptions/${sub.id}/pause`);
    assert.equal(paused.status, 200);
    assert.equal(paused.body.state, 'paused');
    const { eventId, deliveryIds } = await stack.publish('paused.test', { kept: true });
    const id = await stack.deliveryIdOf(eventId, sub.id);
    assert.ok(deliveryIds.includes(id), 'a paused subscription still gets its delivery');
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(stack.receiver.on('/paused').length, 0, 'no attempt while paused');
    assert.equal((await stack.delivery(id)).state, 'pending');
    const resumed = await stack.api.post(`/v1/subscriptions/${sub.id}/resume`);
    assert.equal(resumed.body.state, 'active');
    assert.equal(resumed.body.drained, 1);
    await stack.waitForState(id, ['delivered']);
    assert.equal(stack.receiver.distinctCount('/paused'), 1);
  });
});
