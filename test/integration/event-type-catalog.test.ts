import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { EventTypeCheck } from '#domain/event-type-catalog.ts';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { countTables } from '#test/table-counts.ts';
import { waitFor } from '#test/wait.ts';

/**
 * The event-type catalog on the local runtime, over HTTP: registering, reading, replacing and
 * deleting types (and the refusals), who may do which; and what publish does under each
 * HOOKLINE_EVENT_TYPE_CHECK, for a single event, a batch and the ingest queue.
 */

const ORDER_SCHEMA = {
  type: 'object',
  properties: { amount: { type: 'number' }, currency: { type: 'string' } },
  required: ['amount'],
};

/** A stack with the check, a catalog of order.created (with a schema) and order.legacy (deprecated), a subscription to everything. */
async function checkedStack(check: EventTypeCheck): Promise<LocalStack & { catalogReads(): number }> {
  const stack = await startLocalStack({ env: { HOOKLINE_EVENT_TYPE_CHECK: check } });
  // Every DynamoDB request of every handler goes through this client: count those on the catalog's table.
  const table = stack.runtime.env.EVENT_TYPES_TABLE;
  let reads = 0;
  stack.runtime.clients.dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string };
      if (input.TableName === table && /Scan|Get|Query/.test(context.commandName ?? '')) reads++;
      return next(args);
    },
    { step: 'initialize', name: 'countCatalogReads' },
  );
  for (const [name, body] of [
    ['order.created', { description: 'an order was placed', schema: ORDER_SCHEMA, example: { amount: 12 } }],
    ['order.legacy', { description: 'the old order event', deprecated: true }],
  ] as const) {
    const res = await stack.api.put(`/v1/event-types/${name}`, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  await stack.subscribe('/all', { eventTypes: ['*'] });
  return Object.assign(stack, { catalogReads: () => reads });
}

/** Messages received from the ingest queue but not deleted: what a refused ingest leaves for the redrive queue. */
async function heldMessages(stack: LocalStack): Promise<number> {
  const out = await stack.runtime.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: stack.runtime.queues.urls.ingest,
      AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(out.Attributes!.ApproximateNumberOfMessagesNotVisible);
}

const sendToIngest = (stack: LocalStack, message: unknown) =>
  stack.runtime.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: stack.runtime.queues.urls.ingest, MessageBody: JSON.stringify(message) }),
  );

/** What a publish stores (its batch's manifest, each event once): the sender writes delivery rows of earlier events meanwhile. */
const publishedCounts = async (stack: LocalStack) => {
  const { events, ingestManifests } = await countTables(stack.runtime);
  return { events, ingestManifests };
};

const eventStored = (stack: LocalStack, id: string) =>
  waitFor(
    `event ${id} to be stored`,
    async () => (await stack.api.get(`/v1/events/${id}`)).status === 200 || undefined,
  );

describe('the event-type catalog over HTTP', () => {
  let stack: LocalStack;
  let tenant: ApiClient;
  let portal: ApiClient;

  before(async () => {
    stack = await startLocalStack();
    const key = await stack.api.post('/v1/tenants/acme/keys');
    tenant = apiClient(stack.runtime.url, key.body.key);
    const minted = await stack.api.post('/v1/tenants/acme/portal-sessions', { access: 'manage' });
    const exchanged = await apiClient(stack.runtime.url).post('/v1/portal-sessions/exchange', {
      code: minted.body.url.split('#portal=')[1],
    });
    portal = apiClient(stack.runtime.url, exchanged.body.token);
  });
  after(() => stack.stop());

  it('registers a type (201), replaces it (200, createdAt kept), reads it back and lists it', async () => {
    const created = await stack.api.put('/v1/event-types/invoice.paid', {
      description: 'An invoice was paid',
      schema: ORDER_SCHEMA,
      example: { amount: 42, currency: 'EUR' },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, {
      name: 'invoice.paid',
      description: 'An invoice was paid',
      schema: ORDER_SCHEMA,
      example: { amount: 42, currency: 'EUR' },
      deprecated: false,
      createdAt: created.body.createdAt,
      updatedAt: created.body.createdAt,
    });
    await new Promise((r) => setTimeout(r, 5));
    const replaced = await stack.api.put('/v1/event-types/invoice.paid', { description: 'Paid', deprecated: true });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.createdAt, created.body.createdAt);
    assert.ok(replaced.body.updatedAt > created.body.createdAt);
    assert.deepEqual([replaced.body.schema, replaced.body.example, replaced.body.deprecated], [null, null, true]);
    assert.deepEqual((await stack.api.get('/v1/event-types/invoice.paid')).body, replaced.body);
    // A name with a `:`, percent-encoded as a client would send it.
    assert.equal((await stack.api.put('/v1/event-types/billing%3Arefund', { description: 'x' })).status, 201);
    assert.equal((await stack.api.get('/v1/event-types/billing:refund')).body.name, 'billing:refund');
  });

  it('lists in name order, a page at a time, in the shape of every listing', async () => {
    for (const name of ['zeta.one', 'alpha.one', 'mid.one'])
      assert.equal((await stack.api.put(`/v1/event-types/${name}`, { description: name })).status, 201);
    const names: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { items: { name: string }[]; nextCursor: string | null } } =
        await stack.api.get(`/v1/event-types?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      assert.ok(res.body.items.length <= 2);
      names.push(...res.body.items.map((e) => e.name));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    assert.deepEqual(names, [...names].sort());
    assert.ok(['alpha.one', 'mid.one', 'zeta.one', 'invoice.paid'].every((n) => names.includes(n)));
    assert.ok(pages >= 3);
    const bad = await stack.api.get('/v1/event-types?cursor=nope');
    assert.equal(bad.status, 400);
  });

  it('refuses bad input with a 400 naming the field, storing nothing', async () => {
    const before = await countTables(stack.runtime);
    const refused: [string, unknown, string][] = [
      ['order.*', { description: 'x' }, 'name'],
      ['*', { description: 'x' }, 'name'],
      ['hookline.test', { description: 'x' }, 'name'],
      ['has%20space', { description: 'x' }, 'name'],
      ['order.bad', {}, 'description'],
      ['order.bad', { description: 'x'.repeat(1001) }, 'description'],
      ['order.bad', { description: 'x', schema: [] }, 'schema'],
      ['order.bad', { description: 'x', schema: { type: 'nope' } }, 'schema'],
      ['order.bad', { description: 'x', schema: ORDER_SCHEMA, example: { amount: 'twelve' } }, 'example'],
      ['order.bad', { description: 'x', deprecated: 'yes' }, 'deprecated'],
      ['order.bad', { description: 'x', unknown: 1 }, 'unknown'],
    ];
    for (const [name, body, field] of refused) {
      const res = await stack.api.put(`/v1/event-types/${name}`, body);
      assert.equal(res.status, 400, `${name} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.ok(res.body.error.message.startsWith(`${field}: `), res.body.error.message);
    }
    const mismatch = await stack.api.put('/v1/event-types/order.bad', {
      description: 'x',
      schema: ORDER_SCHEMA,
      example: { amount: 'twelve' },
    });
    assert.equal(mismatch.body.error.message, 'example: does not match the schema: /amount must be number');
    assert.deepEqual(await countTables(stack.runtime), before, 'nothing stored');
    assert.equal((await stack.api.get('/v1/event-types/order.bad')).status, 404);
  });

  it('deletes a type (200 with it as it was); an unknown one is a 404', async () => {
    await stack.api.put('/v1/event-types/to.delete', { description: 'soon gone', example: [1, 2] });
    const deleted = await stack.api.delete('/v1/event-types/to.delete');
    assert.equal(deleted.status, 200);
    assert.deepEqual([deleted.body.name, deleted.body.example], ['to.delete', [1, 2]]);
    assert.equal((await stack.api.get('/v1/event-types/to.delete')).status, 404);
    assert.equal((await stack.api.delete('/v1/event-types/to.delete')).status, 404);
    assert.equal((await stack.api.get('/v1/event-types/never.was')).body.error.code, 'not_found');
  });

  it('tenant keys and portal sessions read the catalog; only the admin changes it', async () => {
    await stack.api.put('/v1/event-types/shared.type', { description: 'for everyone' });
    for (const [who, api] of [
      ['tenant key', tenant],
      ['portal session', portal],
    ] as const) {
      assert.equal((await api.get('/v1/event-types')).status, 200, who);
      assert.equal((await api.get('/v1/event-types/shared.type')).status, 200, who);
      assert.equal((await api.put('/v1/event-types/shared.type', { description: 'mine' })).status, 403, who);
      assert.equal((await api.delete('/v1/event-types/shared.type')).status, 403, who);
    }
    assert.equal((await apiClient(stack.runtime.url).get('/v1/event-types')).status, 401);
    assert.equal((await stack.api.get('/v1/event-types/shared.type')).body.description, 'for everyone');
  });
});

describe('publish under each HOOKLINE_EVENT_TYPE_CHECK', () => {
  describe('allow (the default)', () => {
    let stack: Awaited<ReturnType<typeof checkedStack>>;
    before(async () => {
      stack = await checkedStack('allow');
    });
    after(() => stack.stop());

    it('publishes anything as before, single, batch and ingest, and never reads the catalog', async () => {
      const readsBefore = stack.catalogReads();
      const single = await stack.api.post('/v1/events', { id: 'a-1', type: 'order.shipped', payload: { amount: 'x' } });
      assert.equal(single.status, 202);
      assert.deepEqual(Object.keys(single.body).sort(), ['deliveryIds', 'eventId']);
      const batch = await stack.api.post('/v1/events/batch', {
        events: [
          { id: 'a-2', type: 'order.created', payload: {} },
          { id: 'a-3', type: 'order.legacy', payload: {} },
        ],
      });
      assert.equal(batch.status, 200);
      assert.ok(batch.body.items.every((i: object) => !('warnings' in i)));
      await sendToIngest(stack, { id: 'a-4', type: 'order.unregistered', payload: {} });
      await eventStored(stack, 'a-4');
      assert.equal(stack.catalogReads(), readsBefore, 'no read of the catalog on any publish');
    });
  });

  describe('warn', () => {
    let stack: Awaited<ReturnType<typeof checkedStack>>;
    before(async () => {
      stack = await checkedStack('warn');
    });
    after(() => stack.stop());

    it('accepts a single event, saying what the catalog found', async () => {
      const unregistered = await stack.api.post('/v1/events', { id: 'w-1', type: 'order.shipped', payload: {} });
      assert.equal(unregistered.status, 202);
      assert.deepEqual(unregistered.body.warnings, [
        { field: 'type', message: 'type order.shipped is not registered in the event-type catalog' },
      ]);
      assert.equal(unregistered.body.deliveryIds.length, 1, 'and fanned it out as ever');
      const mismatched = await stack.api.post('/v1/events', {
        id: 'w-2',
        type: 'order.created',
        payload: { amount: '5' },
      });
      assert.equal(mismatched.status, 202);
      assert.deepEqual(mismatched.body.warnings, [
        { field: 'payload', message: 'payload does not match the schema of order.created: /amount must be number' },
      ]);
      const deprecated = await stack.api.post('/v1/events', { id: 'w-3', type: 'order.legacy', payload: {} });
      assert.deepEqual(deprecated.body.warnings, [
        { field: 'type', message: 'type order.legacy is deprecated in the event-type catalog' },
      ]);
      const fine = await stack.api.post('/v1/events', { id: 'w-4', type: 'order.created', payload: { amount: 5 } });
      assert.equal(fine.status, 202);
      assert.equal('warnings' in fine.body, false);
      for (const id of ['w-1', 'w-2', 'w-3', 'w-4'])
        assert.equal((await stack.api.get(`/v1/events/${id}`)).status, 200, id);
      assert.ok(stack.catalogReads() > 0, 'the check read the catalog');
    });

    it('a batch carries each item’s warnings in place', async () => {
      const batch = await stack.api.post('/v1/events/batch', {
        events: [
          { id: 'wb-1', type: 'order.created', payload: { amount: 1 } },
          { id: 'wb-2', type: 'order.nope', payload: {} },
          { id: 'wb-3', type: 'order.created', payload: [] },
        ],
      });
      assert.equal(batch.status, 200);
      assert.deepEqual(
        batch.body.items.map((i: { kind: string; warnings?: { field: string }[] }) => [
          i.kind,
          i.warnings?.map((w) => w.field) ?? [],
        ]),
        [
          ['accepted', []],
          ['accepted', ['type']],
          ['accepted', ['payload']],
        ],
      );
    });

    it('the ingest queue accepts such a message (and logs the warning)', async () => {
      await sendToIngest(stack, { id: 'wi-1', type: 'order.unregistered', payload: {} });
      await sendToIngest(stack, { id: 'wi-2', type: 'order.created', payload: { amount: 'no' } });
      await eventStored(stack, 'wi-1');
      await eventStored(stack, 'wi-2');
    });
  });

  describe('refuse', () => {
    let stack: Awaited<ReturnType<typeof checkedStack>>;
    before(async () => {
      stack = await checkedStack('refuse');
    });
    after(() => stack.stop());

    it('refuses an unregistered type (400 naming type) and a mismatched payload (400 naming payload), storing nothing', async () => {
      const before = await publishedCounts(stack);
      const unregistered = await stack.api.post('/v1/events', { id: 'r-1', type: 'order.shipped', payload: {} });
      assert.equal(unregistered.status, 400);
      assert.equal(unregistered.body.error.message, 'type: order.shipped is not registered in the event-type catalog');
      const mismatched = await stack.api.post('/v1/events', {
        id: 'r-2',
        type: 'order.created',
        payload: { amount: 1, currency: 7 },
      });
      assert.equal(mismatched.status, 400);
      assert.equal(
        mismatched.body.error.message,
        'payload: does not match the schema of order.created: /currency must be string',
      );
      assert.deepEqual(await publishedCounts(stack), before, 'nothing stored');
      assert.equal((await stack.api.get('/v1/events/r-1')).status, 404);
    });

    it('accepts a deprecated type with a warning, and a registered one whose payload matches', async () => {
      const deprecated = await stack.api.post('/v1/events', { id: 'r-3', type: 'order.legacy', payload: {} });
      assert.equal(deprecated.status, 202);
      assert.deepEqual(deprecated.body.warnings, [
        { field: 'type', message: 'type order.legacy is deprecated in the event-type catalog' },
      ]);
      const fine = await stack.api.post('/v1/events', { id: 'r-4', type: 'order.created', payload: { amount: 3 } });
      assert.equal(fine.status, 202);
      assert.equal(fine.body.deliveryIds.length, 1);
    });

    it('refuses a batch whole, naming the event, as for any bad event, storing nothing', async () => {
      const before = await publishedCounts(stack);
      const batch = await stack.api.post('/v1/events/batch', {
        events: [
          { id: 'rb-1', type: 'order.created', payload: { amount: 1 } },
          { id: 'rb-2', type: 'order.created', payload: { amount: true } },
        ],
      });
      assert.equal(batch.status, 400);
      assert.equal(
        batch.body.error.message,
        'events[1].payload: does not match the schema of order.created: /amount must be number',
      );
      const unregistered = await stack.api.post('/v1/events/batch', {
        events: [{ id: 'rb-3', type: 'not.there', payload: {} }],
      });
      assert.ok(unregistered.body.error.message.startsWith('events[0].type: '));
      assert.deepEqual(await publishedCounts(stack), before, 'nothing stored');
    });

    it('keeps a refused ingest message on the queue, headed for the redrive queue, storing nothing; a good one goes through', async () => {
      const before = await publishedCounts(stack);
      const held = await heldMessages(stack);
      await sendToIngest(stack, { id: 'ri-1', type: 'order.unregistered', payload: {} });
      await sendToIngest(stack, { id: 'ri-2', type: 'order.created', payload: { currency: 'EUR' } });
      await waitFor(
        'the refused messages to be received and kept',
        async () => (await heldMessages(stack)) >= held + 2,
      );
      // Received is not yet refused: an accepted message would be deleted within moments, a refused one stays held.
      await new Promise((r) => setTimeout(r, 2000));
      assert.equal(await heldMessages(stack), held + 2, 'both kept for the redrive queue');
      assert.deepEqual(await publishedCounts(stack), before, 'nothing stored');
      await sendToIngest(stack, { id: 'ri-3', type: 'order.created', payload: { amount: 9 } });
      await eventStored(stack, 'ri-3');
    });

    it("never checks Hookline's own types: a test event of the subscription goes", async () => {
      const sub = (await stack.api.get('/v1/subscriptions')).body.items[0];
      const test = await stack.api.post(`/v1/subscriptions/${sub.id}/test`);
      assert.equal(test.status, 202);
    });

    it('registering the type opens it to publish at once (the local runtime caches nothing)', async () => {
      assert.equal((await stack.api.post('/v1/events', { type: 'order.refunded', payload: {} })).status, 400);
      await stack.api.put('/v1/event-types/order.refunded', { description: 'an order was refunded' });
      assert.equal((await stack.api.post('/v1/events', { type: 'order.refunded', payload: {} })).status, 202);
      await stack.api.delete('/v1/event-types/order.refunded');
      assert.equal((await stack.api.post('/v1/events', { type: 'order.refunded', payload: {} })).status, 400);
    });
  });
});
