import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { countTables } from '#test/table-counts.ts';

/** Every page of `GET path`, following nextCursor; the items in order. */
async function walk(api: ApiClient, path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res: { status: number; body: any } = await api.get(
      `${path}${path.includes('?') ? '&' : '?'}${cursor ? `cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return items;
  }
  throw new Error('paging does not end');
}

describe('reading events back: GET /v1/events/{eventId} and GET /v1/events', () => {
  let stack: LocalStack;
  let acme: ApiClient;
  let acmeSub: string;
  let globexSub: string;
  before(async () => {
    stack = await startLocalStack();
    acmeSub = (await stack.subscribe('/acme', { eventTypes: ['ev.invoice.*'], tenantId: 'acme' })).id;
    globexSub = (await stack.subscribe('/globex', { eventTypes: ['ev.*'], tenantId: 'globex' })).id;
    acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
  });
  after(() => stack.stop());

  it('answers one event with its payload and its delivery per subscription; a tenant sees only its own', async () => {
    // To every tenant, so both tenants' subscriptions have a delivery of it.
    const { deliveryIds } = await stack.publish(
      'ev.invoice.paid',
      { amount: 42, lines: [{ sku: 'a', qty: 1.5 }] },
      'ev/inv#1?',
      { audience: 'all' },
    );
    const id = encodeURIComponent('ev/inv#1?');
    assert.equal(deliveryIds.length, 2);
    await stack.waitForState(deliveryIds[0]!, ['delivered']);
    await stack.waitForState(deliveryIds[1]!, ['delivered']);

    const admin = await stack.api.get(`/v1/events/${id}`);
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    assert.deepEqual(
      { ...admin.body, deliveries: undefined },
      {
        id: 'ev/inv#1?',
        type: 'ev.invoice.paid',
        createdAt: admin.body.createdAt,
        audience: 'all',
        payload: { amount: 42, lines: [{ sku: 'a', qty: 1.5 }] },
        deliveries: undefined,
      },
    );
    assert.deepEqual(
      admin.body.deliveries.map((d: any) => [d.subscriptionId, d.state, d.attempts, d.lastStatus]).sort(),
      [
        [acmeSub, 'delivered', 1, 200],
        [globexSub, 'delivered', 1, 200],
      ].sort(),
    );
    assert.ok(admin.body.deliveries.every((d: any) => deliveryIds.includes(d.deliveryId)));

    const tenant = await acme.get(`/v1/events/${id}`);
    assert.equal(tenant.status, 200);
    assert.deepEqual(
      tenant.body.deliveries.map((d: any) => d.subscriptionId),
      [acmeSub],
    );
  });

  it('answers 404 for an unknown id, and for a tenant that got none of the event; 400 naming eventId for an id that cannot be one', async () => {
    await stack.publish('ev.user.created', { u: 1 }, 'ev-user-1');

    const unknown = await stack.api.get('/v1/events/no-such-event');
    assert.deepEqual(
      [unknown.status, unknown.body.error.code, unknown.body.error.message],
      [404, 'not_found', 'event no-such-event does not exist'],
    );
    const hidden = await acme.get('/v1/events/ev-user-1');
    assert.deepEqual(
      [hidden.status, hidden.body.error.message],
      [404, 'event ev-user-1 does not exist'],
      'exactly like an unknown one',
    );
    for (const bad of ['a%20b', `${'x'.repeat(129)}`, 'caf%C3%A9', '%E0%A4%A']) {
      const res = await stack.api.get(`/v1/events/${bad}`);
      assert.equal(res.status, 400, bad);
      assert.match(res.body.error.message, /^eventId/, bad);
    }
  });

  it('lists events newest first across pages, by type and since, each once; the cursor is refused when forged; admin only', async () => {
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const published: string[] = [];
    const globex = { tenantId: 'globex' };
    for (let i = 0; i < 6; i++)
      published.push(
        (await stack.publish(i % 2 ? 'ev.list.odd' : 'ev.list.even', { i }, `ev-list-${i}`, globex)).eventId,
      );
    // One batch too: its events share a creation time, the last listed first.
    const batch = await stack.api.post('/v1/events/batch', {
      events: [
        { id: 'ev-list-b0', type: 'ev.list.even', payload: {}, ...globex },
        { id: 'ev-list-b1', type: 'ev.list.odd', payload: {}, ...globex },
      ],
    });
    assert.equal(batch.status, 200);
    // A repeat of an id lists it once, at its first publish.
    await stack.publish('ev.list.even', { i: 0 }, 'ev-list-0', globex);
    const expected = ['ev-list-b1', 'ev-list-b0', ...[...published].reverse()];

    for (const limit of [1, 3, 100]) {
      const items = await walk(stack.api, `/v1/events?since=${since}&limit=${limit}`);
      assert.deepEqual(
        items.map((e) => e.id),
        expected,
        `limit ${limit}`,
      );
    }
    const [newest] = await walk(stack.api, `/v1/events?since=${since}&limit=100`);
    assert.deepEqual(Object.keys(newest).sort(), ['createdAt', 'deliveries', 'id', 'tenantId', 'type']);
    assert.deepEqual([newest.type, newest.tenantId, newest.deliveries], ['ev.list.odd', 'globex', 1]);
    assert.deepEqual(
      (await walk(stack.api, `/v1/events?since=${since}&tenantId=globex&limit=2`)).map((e) => e.id),
      expected,
      "all of them globex's",
    );
    assert.deepEqual(await walk(stack.api, `/v1/events?since=${since}&tenantId=acme&limit=100`), []);
    assert.deepEqual(
      (await walk(stack.api, `/v1/events?type=ev.list.odd&limit=2`)).map((e) => e.id),
      ['ev-list-b1', 'ev-list-5', 'ev-list-3', 'ev-list-1'],
    );
    const everything = (await walk(stack.api, '/v1/events?limit=100')).map((e) => e.id);
    assert.ok(everything.includes('ev-user-1') && everything.includes('ev/inv#1?'));
    assert.equal(new Set(everything).size, everything.length, 'each once');

    const forged = await stack.api.get(`/v1/events?cursor=${Buffer.from('{"k":"nope","n":0}').toString('base64url')}`);
    assert.deepEqual([forged.status, forged.body.error.code], [400, 'invalid_request']);
    assert.equal((await stack.api.get('/v1/events?since=last-week')).status, 400);
    assert.equal((await stack.api.get('/v1/events?limit=101')).status, 400);
    assert.equal((await acme.get('/v1/events')).status, 403);
  });

  it('takes an Idempotency-Key on POST /v1/events as the event id; one that contradicts the body id is a 400 naming it', async () => {
    const first = await stack.api.post(
      '/v1/events',
      { type: 'ev.key', payload: { n: 1 } },
      { 'idempotency-key': 'ev-key-1' },
    );
    assert.deepEqual([first.status, first.body.eventId], [202, 'ev-key-1']);
    const again = await stack.api.post(
      '/v1/events',
      { type: 'ev.key', payload: { n: 1 } },
      { 'idempotency-key': 'ev-key-1' },
    );
    assert.deepEqual([again.status, again.body], [200, first.body]);
    assert.equal(
      (
        await stack.api.post(
          '/v1/events',
          { id: 'ev-key-1', type: 'ev.key', payload: { n: 1 } },
          { 'idempotency-key': 'ev-key-1' },
        )
      ).status,
      200,
    );
    // Counted once the first attempts wrote their rows (publish writes none).
    for (const id of first.body.deliveryIds) await stack.waitForState(id, ['delivered']);

    const before = await countTables(stack.runtime);
    const mismatch = await stack.api.post(
      '/v1/events',
      { id: 'ev-key-2', type: 'ev.key', payload: {} },
      { 'idempotency-key': 'ev-key-3' },
    );
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.body.error.message, /^Idempotency-Key: differs from the body's id/);
    const tooLong = await stack.api.post(
      '/v1/events',
      { type: 'ev.key', payload: {} },
      { 'idempotency-key': 'k'.repeat(129) },
    );
    assert.equal(tooLong.status, 400);
    assert.match(tooLong.body.error.message, /^Idempotency-Key: /);
    assert.deepEqual(await countTables(stack.runtime), before, 'nothing stored');
  });

  it('answers another type or payload under a used event id (or key) with 422 idempotency_key_reused, storing and sending nothing', async () => {
    const first = await stack.publish('ev.invoice.created', { total: 10 }, 'ev-reuse-1', { audience: 'all' });
    // Counted once the first attempts wrote their rows (publish writes none), so only the refused publishes could change a count.
    for (const id of first.deliveryIds) await stack.waitForState(id, ['delivered']);
    const before = await countTables(stack.runtime);

    const all = { audience: 'all' };
    for (const body of [
      { id: 'ev-reuse-1', type: 'ev.invoice.created', payload: { total: 11 }, ...all },
      { id: 'ev-reuse-1', type: 'ev.invoice.voided', payload: { total: 10 }, ...all },
      { id: 'ev-reuse-1', type: 'ev.invoice.created', payload: { total: 10 }, tenantId: 'acme' },
    ]) {
      const res = await stack.api.post('/v1/events', body);
      assert.deepEqual([res.status, res.body.error.code], [422, 'idempotency_key_reused'], JSON.stringify(res.body));
      assert.match(
        res.body.error.message,
        /event ev-reuse-1 was already published with another type, payload or audience/,
      );
    }
    const viaKey = await stack.api.post(
      '/v1/events',
      { type: 'ev.invoice.created', payload: { total: 12 }, ...all },
      { 'idempotency-key': 'ev-reuse-1' },
    );
    assert.equal(viaKey.status, 422);
    const batch = await stack.api.post('/v1/events/batch', {
      events: [
        { id: 'ev-reuse-1', type: 'ev.invoice.created', payload: { total: 13 }, ...all },
        { id: 'ev-reuse-1', type: 'ev.invoice.created', payload: { total: 10 }, ...all },
      ],
    });
    assert.equal(batch.status, 200);
    assert.deepEqual(
      batch.body.items.map((i: any) => [i.kind, i.deliveryIds.length, i.error?.code]),
      [
        ['conflict', 0, 'idempotency_key_reused'],
        ['duplicate', 2, undefined],
      ],
    );
    // Only the manifests of the four publishes that reached publish (each batch writes one); no event, delivery or message.
    const afterCounts = await countTables(stack.runtime);
    assert.deepEqual({ ...afterCounts, ingestManifests: 0 }, { ...before, ingestManifests: 0 });
    assert.equal((await stack.api.get('/v1/events/ev-reuse-1')).body.payload.total, 10);
    assert.deepEqual(first.deliveryIds.length, 2);
  });
});
