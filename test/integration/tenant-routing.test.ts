import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * An event belongs to a tenant and reaches that tenant's subscriptions only, over the real
 * handlers, the local emulators (in CI a second time on Amazon's DynamoDB Local) and a receiver
 * that verifies every signature with the standardwebhooks package. Each test publishes under
 * types of its own, so the receiver's paths tell exactly who got what.
 */
describe('events belong to a tenant: who receives what', () => {
  let stack: LocalStack;
  let acmeKey: ApiClient;
  const subs: Record<string, string> = {};
  before(async () => {
    stack = await startLocalStack();
    // acme and globex each take invoice.*, as a new platform would set them up; the producer's own takes everything.
    subs.acme = (await stack.subscribe('/acme', { eventTypes: ['invoice.*'], tenantId: 'acme' })).id;
    subs.acme2 = (await stack.subscribe('/acme2', { eventTypes: ['invoice.paid'], tenantId: 'acme' })).id;
    subs.globex = (await stack.subscribe('/globex', { eventTypes: ['invoice.*'], tenantId: 'globex' })).id;
    subs.own = (await stack.subscribe('/own', { eventTypes: ['invoice.*'] })).id;
    acmeKey = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
  });
  after(() => stack.stop());

  /** The paths that received the event, once its deliveries are all delivered. */
  async function receivedBy(eventId: string, deliveries: number): Promise<string[]> {
    await waitFor(`${deliveries} deliveries of ${eventId}`, async () =>
      stack.receiver.requests.filter((r) => r.webhookId === eventId && r.answeredWith === 200).length >= deliveries
        ? true
        : undefined,
    );
    // A moment more: a delivery to anyone else would have arrived by now too.
    await new Promise((r) => setTimeout(r, 300));
    const got = stack.receiver.requests.filter((r) => r.webhookId === eventId);
    assert.ok(
      got.every((r) => r.verified),
      'every signature verifies',
    );
    return [...new Set(got.map((r) => r.path))].sort();
  }

  it("an event published for acme reaches acme's subscriptions only, never globex's or the producer's", async () => {
    const res = await stack.api.post('/v1/events', {
      id: 'inv-acme-1',
      type: 'invoice.paid',
      tenantId: 'acme',
      payload: { amount: 42 },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.deliveryIds.length, 2);

    assert.deepEqual(await receivedBy('inv-acme-1', 2), ['/acme', '/acme2']);
    const event = await stack.api.get('/v1/events/inv-acme-1');
    assert.equal(event.body.tenantId, 'acme');
    assert.deepEqual(event.body.deliveries.map((d: any) => d.subscriptionId).sort(), [subs.acme, subs.acme2].sort());
  });

  it('an event without a tenant reaches only subscriptions without one', async () => {
    const res = await stack.api.post('/v1/events', { id: 'inv-own-1', type: 'invoice.paid', payload: {} });
    assert.deepEqual(res.body.deliveryIds.length, 1);
    assert.deepEqual(await receivedBy('inv-own-1', 1), ['/own']);
  });

  it('a tenant key publishes for its own tenant (the default), and is refused 403 for another tenant or every tenant, storing nothing', async () => {
    const own = await acmeKey.post('/v1/events', { id: 'inv-key-1', type: 'invoice.created', payload: {} });
    assert.equal(own.status, 202, JSON.stringify(own.body));
    assert.deepEqual(await receivedBy('inv-key-1', 1), ['/acme']);
    assert.equal((await stack.api.get('/v1/events/inv-key-1')).body.tenantId, 'acme');

    for (const body of [
      { id: 'inv-key-2', type: 'invoice.paid', tenantId: 'globex', payload: {} },
      { id: 'inv-key-3', type: 'invoice.paid', audience: 'all', payload: {} },
    ]) {
      const refused = await acmeKey.post('/v1/events', body);
      assert.equal(refused.status, 403, JSON.stringify(body));
      assert.equal(refused.body.error.code, 'forbidden');
      assert.equal((await stack.api.get(`/v1/events/${body.id}`)).status, 404, 'nothing stored');
    }
    const batch = await acmeKey.post('/v1/events/batch', {
      events: [
        { id: 'inv-key-4', type: 'invoice.paid', payload: {} },
        { id: 'inv-key-5', type: 'invoice.paid', tenantId: 'globex', payload: {} },
      ],
    });
    assert.equal(batch.status, 403);
    assert.equal((await stack.api.get('/v1/events/inv-key-4')).status, 404, 'the whole batch refused');
  });

  it('subscriptionIds narrow an event to those subscriptions; one outside the audience is a 400 naming it, and nothing is stored', async () => {
    const narrowed = await stack.api.post('/v1/events', {
      id: 'inv-narrow-1',
      type: 'invoice.paid',
      tenantId: 'acme',
      subscriptionIds: [subs.acme2],
      payload: {},
    });
    assert.equal(narrowed.status, 202);
    assert.deepEqual(await receivedBy('inv-narrow-1', 1), ['/acme2']);
    assert.deepEqual((await stack.api.get('/v1/events/inv-narrow-1')).body.narrowedTo, [subs.acme2]);

    for (const outsider of [subs.globex, subs.own, 'sub_doesnotexist']) {
      const refused = await stack.api.post('/v1/events', {
        id: 'inv-narrow-2',
        type: 'invoice.paid',
        tenantId: 'acme',
        subscriptionIds: [subs.acme, outsider],
        payload: {},
      });
      assert.equal(refused.status, 400, outsider);
      assert.equal(refused.body.error.code, 'invalid_request');
      assert.match(refused.body.error.message, /^subscriptionIds\[1\]: /);
      assert.match(refused.body.error.message, /not a subscription of this event's audience \(tenant acme\)/);
    }
    assert.equal((await stack.api.get('/v1/events/inv-narrow-2')).status, 404, 'nothing stored');
    const batch = await stack.api.post('/v1/events/batch', {
      events: [
        { id: 'inv-narrow-3', type: 'invoice.paid', tenantId: 'acme', payload: {} },
        { id: 'inv-narrow-4', type: 'invoice.paid', tenantId: 'acme', subscriptionIds: [subs.globex], payload: {} },
      ],
    });
    assert.equal(batch.status, 400);
    assert.match(batch.body.error.message, /^events\[1\]\.subscriptionIds\[0\]: /);
    assert.equal((await stack.api.get('/v1/events/inv-narrow-3')).status, 404, 'the whole batch refused');
  });

  it("audience all reaches every tenant's matching subscriptions and the producer's", async () => {
    const res = await stack.api.post('/v1/events', {
      id: 'inv-all-1',
      type: 'invoice.paid',
      audience: 'all',
      payload: {},
    });
    assert.equal(res.status, 202);
    assert.deepEqual(await receivedBy('inv-all-1', 4), ['/acme', '/acme2', '/globex', '/own']);
    assert.equal((await stack.api.get('/v1/events/inv-all-1')).body.audience, 'all');
  });

  it('the same event id again for another tenant is a 422 conflict; for the same tenant a duplicate', async () => {
    assert.equal(
      (await stack.api.post('/v1/events', { id: 'inv-dup-1', type: 'invoice.paid', tenantId: 'acme', payload: {} }))
        .status,
      202,
    );
    const other = await stack.api.post('/v1/events', {
      id: 'inv-dup-1',
      type: 'invoice.paid',
      tenantId: 'globex',
      payload: {},
    });
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, 'idempotency_key_reused');
    assert.equal(
      (await stack.api.post('/v1/events', { id: 'inv-dup-1', type: 'invoice.paid', tenantId: 'acme', payload: {} }))
        .status,
      200,
    );
    assert.deepEqual(await receivedBy('inv-dup-1', 2), ['/acme', '/acme2']);
  });

  it('an ingest message carries its tenant too; one naming a subscription outside its audience goes to the redrive path, never delivered', async () => {
    const sqs = stack.runtime.clients.sqs;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.runtime.queues.urls.ingest,
        MessageBody: JSON.stringify({ id: 'inv-sqs-1', type: 'invoice.paid', tenantId: 'globex', payload: {} }),
      }),
    );
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.runtime.queues.urls.ingest,
        MessageBody: JSON.stringify({
          id: 'inv-sqs-2',
          type: 'invoice.paid',
          tenantId: 'globex',
          subscriptionIds: [subs.acme],
          payload: {},
        }),
      }),
    );
    assert.deepEqual(await receivedBy('inv-sqs-1', 1), ['/globex']);
    assert.equal((await stack.api.get('/v1/events/inv-sqs-2')).status, 404);
    assert.equal(stack.receiver.requests.filter((r) => r.webhookId === 'inv-sqs-2').length, 0);
  });

  it("lists events by tenant; a tenant's subscription listing is its own, newest first", async () => {
    const listed = await stack.api.get('/v1/events?tenantId=globex&limit=100');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.items.length > 0);
    assert.ok(
      listed.body.items.every((e: any) => e.tenantId === 'globex'),
      JSON.stringify(listed.body.items),
    );
    assert.ok(listed.body.items.some((e: any) => e.id === 'inv-sqs-1'));

    const mine = await acmeKey.get('/v1/subscriptions');
    assert.deepEqual(
      mine.body.items.map((s: any) => s.id),
      [subs.acme2, subs.acme],
    );
  });
});
