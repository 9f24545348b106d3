import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import { NotFoundError } from '#app/errors.ts';
import { eventDetailView, eventSummaryView, subscriptionEventView } from '#app/events/event-view.ts';
import { getEventDetail, listEvents, listSubscriptionEvents } from '#app/events/events.ts';
import { firstDelivery } from '#app/publish/first-delivery.ts';
import { publishBatch } from '#app/publish/publish.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { STATE } from '#domain/states.ts';
import { aSubscription, fakeDeps, type FakeDeps } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z';

const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_acme' };
const GLOBEX: Principal = { role: 'tenant', tenantId: 'globex', keyId: 'key_globex' };

/** sub_acme takes invoice.*, sub_globex everything. */
function seeded(): FakeDeps {
  const deps = fakeDeps();
  deps.subscriptions.items.set(
    'sub_acme',
    aSubscription({ id: 'sub_acme', tenantId: 'acme', eventTypes: ['invoice.*'] }),
  );
  deps.subscriptions.items.set('sub_globex', aSubscription({ id: 'sub_globex', tenantId: 'globex' }));
  return deps;
}

/** The row a first attempt writes for an event published at NOW (publish writes none). */
const firstRow = (deps: FakeDeps, eventId: string, subscriptionId: string) =>
  firstDelivery(
    { id: eventId, type: 'invoice.paid', createdAt: NOW },
    deps.subscriptions.items.get(subscriptionId)!,
    Date.parse(NOW) + 3 * 86_400_000,
    Date.parse(NOW),
  );

const publishAt = async (deps: FakeDeps, events: readonly { id: string; type: string; payloadJson?: string }[]) => {
  // To every tenant: each test is about what one tenant sees of an event that reached both.
  const results = await publishBatch(
    deps,
    events.map((e) => ({ payloadJson: '{"n":1}', audience: 'all' as const, ...e })),
  );
  deps.clock.advance(1000);
  return results;
};

describe('getEventDetail', () => {
  it('shows the admin the event, its payload and every delivery', async () => {
    const deps = seeded();
    await publishAt(deps, [{ id: 'inv-1', type: 'invoice.paid', payloadJson: '{"amount":42,"lines":[1.5]}' }]);
    // sub_acme's has been attempted (its row written); sub_globex's not yet: it is read from its batch's manifest.
    deps.deliveries.put({ ...firstRow(deps, 'inv-1', 'sub_acme'), state: STATE.failed, attempts: 3, lastStatus: 503 });

    const view = eventDetailView(await getEventDetail(deps, ADMIN, 'inv-1'));

    assert.deepEqual(view, {
      id: 'inv-1',
      type: 'invoice.paid',
      createdAt: '2024-05-01T12:00:00.000Z',
      audience: 'all',
      payload: { amount: 42, lines: [1.5] },
      deliveries: [
        {
          subscriptionId: 'sub_acme',
          deliveryId: deliveryIdFor('inv-1', 'sub_acme', NOW),
          state: 'failed',
          attempts: 3,
          lastStatus: 503,
        },
        {
          subscriptionId: 'sub_globex',
          deliveryId: deliveryIdFor('inv-1', 'sub_globex', NOW),
          state: 'pending',
          attempts: 0,
        },
      ],
    });
  });

  it('shows a tenant only its own deliveries, and an event it got none of as not found, like an unknown id', async () => {
    const deps = seeded();
    await publishAt(deps, [
      { id: 'inv-1', type: 'invoice.paid' },
      { id: 'usr-1', type: 'user.created' },
    ]);

    assert.deepEqual(
      (await getEventDetail(deps, ACME, 'inv-1')).deliveries.map((d) => d.subscriptionId),
      ['sub_acme'],
    );
    assert.deepEqual(
      (await getEventDetail(deps, GLOBEX, 'inv-1')).deliveries.map((d) => d.subscriptionId),
      ['sub_globex'],
    );
    await assert.rejects(
      getEventDetail(deps, ACME, 'usr-1'),
      (e: unknown) => e instanceof NotFoundError && e.message === 'event usr-1 does not exist',
    );
    await assert.rejects(
      getEventDetail(deps, ADMIN, 'nope'),
      (e: unknown) => e instanceof NotFoundError && e.message === 'event nope does not exist',
    );
  });
});

describe('listEvents', () => {
  it('lists events newest first from the manifests, each once, only those stored', async () => {
    const deps = seeded();
    await publishAt(deps, [
      { id: 'e1', type: 'invoice.paid' },
      { id: 'e2', type: 'user.created' },
    ]);
    await publishAt(deps, [{ id: 'e3', type: 'invoice.paid' }]);
    // A repeat of e1 writes a manifest of its own; an event whose publish stopped before storing it leaves one too.
    await publishAt(deps, [{ id: 'e1', type: 'invoice.paid' }]);
    await deps.ingestManifests.put({
      shard: 'm1',
      key: '2024-05-01T12:00:05.000Z#lost',
      createdAt: '2024-05-01T12:00:05.000Z',
      eventIds: ['never-stored'],
      eventTypes: ['x.y'],
      deliveryIds: [],
    });

    const page = await listEvents(deps, { limit: 50 });

    assert.deepEqual(
      page.items.map((e) => e.id),
      ['e3', 'e2', 'e1'],
    );
    assert.deepEqual(eventSummaryView(page.items[0]!), {
      id: 'e3',
      type: 'invoice.paid',
      createdAt: '2024-05-01T12:00:01.000Z',
      audience: 'all',
      deliveries: 2,
    });
    assert.deepEqual(
      (await listEvents(deps, { limit: 50, type: 'invoice.paid' })).items.map((e) => e.id),
      ['e3', 'e1'],
    );
    assert.deepEqual(
      (await listEvents(deps, { limit: 50, since: '2024-05-01T12:00:01.000Z' })).items.map((e) => e.id),
      ['e3'],
    );
  });

  it("pages with the log's cursor", async () => {
    const deps = seeded();
    for (let i = 0; i < 5; i++) await publishAt(deps, [{ id: `e${i}`, type: 'invoice.paid' }]);
    const first = await listEvents(deps, { limit: 2 });
    const second = await listEvents(deps, { limit: 2, cursor: first.nextCursor! });
    const third = await listEvents(deps, { limit: 2, cursor: second.nextCursor! });
    assert.deepEqual(
      [first, second, third].flatMap((p) => p.items.map((e) => e.id)),
      ['e4', 'e3', 'e2', 'e1', 'e0'],
    );
    assert.equal(third.nextCursor, undefined);
  });
});

describe('listSubscriptionEvents', () => {
  it('lists what a subscription should have received in publish order, each with its delivery and a cursor that continues after it', async () => {
    const deps = seeded();
    await publishAt(deps, [
      { id: 'a', type: 'invoice.paid' },
      { id: 'b', type: 'user.created' },
    ]);
    await publishAt(deps, [{ id: 'c', type: 'invoice.voided' }]);

    const page = await listSubscriptionEvents(deps, ACME, 'sub_acme', { limit: 10 });
    assert.deepEqual(
      page.items.map(subscriptionEventView).map(({ cursor: _c, ...rest }) => rest),
      [
        {
          eventId: 'a',
          eventType: 'invoice.paid',
          createdAt: '2024-05-01T12:00:00.000Z',
          deliveryId: deliveryIdFor('a', 'sub_acme', NOW),
          state: 'pending',
          attempts: 0,
        },
        {
          eventId: 'c',
          eventType: 'invoice.voided',
          createdAt: '2024-05-01T12:00:01.000Z',
          deliveryId: deliveryIdFor('c', 'sub_acme', '2024-05-01T12:00:01.000Z'),
          state: 'pending',
          attempts: 0,
        },
      ],
    );
    const after = await listSubscriptionEvents(deps, ADMIN, 'sub_acme', { limit: 10, cursor: page.items[0]!.cursor });
    assert.deepEqual(
      after.items.map((i) => i.delivery.eventId),
      ['c'],
    );
  });

  it("hides another tenant's subscription, and an unknown one, as not found", async () => {
    const deps = seeded();
    await assert.rejects(listSubscriptionEvents(deps, GLOBEX, 'sub_acme', { limit: 10 }), NotFoundError);
    await assert.rejects(listSubscriptionEvents(deps, ADMIN, 'sub_nope', { limit: 10 }), NotFoundError);
  });

  it("says null for the type of an event whose row is gone, when its delivery's row (an earlier version's) does not keep it", async () => {
    const deps = seeded();
    await publishAt(deps, [{ id: 'a', type: 'invoice.paid' }]);
    const { eventType: _kept, ...earlier } = firstRow(deps, 'a', 'sub_acme');
    deps.deliveries.put({ ...earlier, state: STATE.delivered, attempts: 1, attemptSeq: 1 });
    deps.events.items.delete('a');
    const [item] = (await listSubscriptionEvents(deps, ADMIN, 'sub_acme', { limit: 10 })).items;
    assert.equal(subscriptionEventView(item!).eventType, null);
  });
});
