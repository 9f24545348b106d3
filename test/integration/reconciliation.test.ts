import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/**
 * A consumer that missed events finds exactly those by walking its subscription's events in
 * publish order (GET /v1/subscriptions/{id}/events) from the cursor it saved last time, and
 * fetches each missed one (GET /v1/events/{eventId}) with its own tenant key: the pattern of the
 * README's delivery contract ("reconcile") and docs/api.md, "Reconciliation", end to end over HTTP.
 */
const RECON_CO = { tenantId: 'recon-co' };

describe("consumer reconciliation: walking a subscription's events after a gap", () => {
  let stack: LocalStack;
  let consumer: ApiClient;
  let other: ApiClient;
  let subscriptionId: string;
  before(async () => {
    stack = await startLocalStack();
    subscriptionId = (await stack.subscribe('/recon', { eventTypes: ['recon.*'], tenantId: 'recon-co' })).id;
    consumer = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/recon-co/keys')).body.key);
    other = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/other-co/keys')).body.key);
  });
  after(() => stack.stop());

  /** Walks every page from `after` with the consumer's key; the items in order, and the cursor of the last one. */
  async function walk(after: string | undefined, limit: number): Promise<{ items: any[]; last?: string }> {
    const items: any[] = [];
    let cursor = after;
    for (let pages = 0; pages < 100; pages++) {
      const res = await consumer.get(
        `/v1/subscriptions/${subscriptionId}/events?limit=${limit}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.items.length <= limit);
      items.push(...res.body.items);
      if (!res.body.nextCursor) return { items, last: items.at(-1)?.cursor ?? after };
      cursor = res.body.nextCursor;
    }
    throw new Error('paging does not end');
  }

  it('finds and fetches exactly the events the consumer missed, in publish order, and then only what came after', async () => {
    // Ten events one after the other; the receiver refuses the 4th and the 8th (a bad deploy: 400,
    // so they are dead-lettered), and the consumer loses the 6th after answering 200 (its database
    // write failed): three events it never handled.
    stack.receiver.script(
      '/recon',
      [200, 200, 200, 400, 200, 200, 200, 400, 200, 200].map((status) => ({ status })),
    );
    const published: { eventId: string; deliveryId: string }[] = [];
    for (let n = 0; n < 10; n++) {
      const { eventId, deliveryIds } = await stack.publish('recon.order.created', { n }, `recon-${n}`, RECON_CO);
      await stack.waitForState(deliveryIds[0]!, ['delivered', 'failed']);
      published.push({ eventId, deliveryId: deliveryIds[0]! });
    }
    const handled = new Set(
      stack.receiver
        .on('/recon')
        .filter((r) => r.answeredWith === 200 && r.verified)
        .map((r) => r.webhookId),
    );
    handled.delete('recon-5');
    assert.equal(handled.size, 7);

    // The walk: a small page size so it crosses pages, from the start (no cursor saved yet).
    const { items, last } = await walk(undefined, 3);
    assert.deepEqual(
      items.map((i) => i.eventId),
      published.map((p) => p.eventId),
      'every event it should have received, in publish order',
    );
    assert.deepEqual(
      items.map((i) => i.deliveryId),
      published.map((p) => p.deliveryId),
    );
    assert.deepEqual(Object.keys(items[0]).sort(), [
      'attempts',
      'createdAt',
      'cursor',
      'deliveryId',
      'eventId',
      'eventType',
      'lastStatus',
      'state',
    ]);
    assert.deepEqual(
      items.filter((i) => i.state === 'failed').map((i) => [i.eventId, i.lastStatus, i.attempts]),
      [
        ['recon-3', 400, 1],
        ['recon-7', 400, 1],
      ],
    );
    assert.ok(items.every((i) => i.eventType === 'recon.order.created'));

    const missed = items.filter((i) => !handled.has(i.eventId));
    assert.deepEqual(
      missed.map((i) => i.eventId),
      ['recon-3', 'recon-5', 'recon-7'],
    );
    const fetched = await Promise.all(missed.map((i) => consumer.get(`/v1/events/${encodeURIComponent(i.eventId)}`)));
    assert.deepEqual(
      fetched.map((f) => [f.status, f.body.id, f.body.payload]),
      [
        [200, 'recon-3', { n: 3 }],
        [200, 'recon-5', { n: 5 }],
        [200, 'recon-7', { n: 7 }],
      ],
    );
    assert.deepEqual(
      fetched.map((f) => f.body.deliveries.map((d: any) => d.subscriptionId)),
      [[subscriptionId], [subscriptionId], [subscriptionId]],
    );

    // Next time, from the cursor saved after the last item: only what was published since.
    const later = [
      await stack.publish('recon.order.created', { n: 10 }, 'recon-10', RECON_CO),
      await stack.publish('recon.order.paid', { n: 11 }, 'recon-11', RECON_CO),
    ];
    const next = await walk(last, 3);
    assert.deepEqual(
      next.items.map((i) => [i.eventId, i.eventType]),
      [
        ['recon-10', 'recon.order.created'],
        ['recon-11', 'recon.order.paid'],
      ],
    );
    assert.deepEqual(
      next.items.map((i) => i.deliveryId),
      later.map((l) => l.deliveryIds[0]),
    );

    // A walk may resume from any item: after the 5th it goes on with the 6th.
    const fromMiddle = await walk(items[4].cursor, 100);
    assert.deepEqual(
      fromMiddle.items.map((i) => i.eventId),
      [...published.slice(5).map((p) => p.eventId), 'recon-10', 'recon-11'],
    );
  });

  it("is the owning tenant's and the admin's only: another tenant gets 404, as for an unknown subscription", async () => {
    assert.equal((await stack.api.get(`/v1/subscriptions/${subscriptionId}/events?limit=1`)).status, 200);
    const hidden = await other.get(`/v1/subscriptions/${subscriptionId}/events`);
    assert.deepEqual(
      [hidden.status, hidden.body.error.code, hidden.body.error.message],
      [404, 'not_found', `subscription ${subscriptionId} does not exist`],
    );
    assert.equal((await other.get('/v1/events/recon-3')).status, 404);
    assert.equal((await consumer.get('/v1/subscriptions/sub_nope/events')).status, 404);
  });

  it("refuses a cursor it did not issue, or another subscription's, and a bad limit, naming them", async () => {
    const otherSub = (await stack.subscribe('/recon-other', { eventTypes: ['recon.*'], tenantId: 'recon-co' })).id;
    await stack.publish('recon.order.created', { n: 12 }, 'recon-12', RECON_CO);
    const foreign = (await consumer.get(`/v1/subscriptions/${otherSub}/events?limit=1`)).body.items[0].cursor;

    for (const after of [foreign, 'not-a-cursor', Buffer.from('{"id":1}').toString('base64url')]) {
      const res = await consumer.get(`/v1/subscriptions/${subscriptionId}/events?after=${encodeURIComponent(after)}`);
      assert.deepEqual([res.status, res.body.error.code], [400, 'invalid_request'], after);
    }
    const limit = await consumer.get(`/v1/subscriptions/${subscriptionId}/events?limit=0`);
    assert.equal(limit.status, 400);
    assert.match(limit.body.error.message, /^limit/);
  });
});
