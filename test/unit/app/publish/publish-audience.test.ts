import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publish, publishBatch } from '#app/publish/publish.ts';
import { scopePublish } from '#app/publish/publish-access.ts';
import { ForbiddenError, TemporarilyUnavailableError, ValidationError } from '#app/errors.ts';
import { ADMIN, type Principal } from '#app/access.ts';
import { aSubscription, fakeDeps, fanOutStored, type FakeDeps } from '#test/fakes.ts';
import { InMemoryRouteStore } from '#test/fakes.ts';

/** acme and globex each take invoice.*; the producer's own subscription takes everything. */
function seeded(): FakeDeps {
  const deps = fakeDeps();
  for (const s of [
    aSubscription({ id: 'sub_acme', tenantId: 'acme', eventTypes: ['invoice.*'] }),
    aSubscription({ id: 'sub_acme2', tenantId: 'acme', eventTypes: ['invoice.paid'] }),
    aSubscription({ id: 'sub_globex', tenantId: 'globex', eventTypes: ['invoice.*'] }),
    aSubscription({ id: 'sub_own', eventTypes: ['*'] }),
  ])
    deps.subscriptions.items.set(s.id, s);
  return deps;
}

/** Whom the event's first messages go to, once the stream has brought it to the fan-out. */
const sentTo = async (deps: FakeDeps) => {
  await fanOutStored(deps);
  return deps.queue.messages().map((m) => m.subscriptionId);
};
const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_a' };

describe('publish: an event reaches its audience only', () => {
  it("a tenant's event reaches that tenant's matching subscriptions, no other tenant's, and not the producer's", async () => {
    const deps = seeded();
    await publish(deps, { id: 'evt_1', type: 'invoice.paid', tenantId: 'acme', payloadJson: '{}' });
    assert.deepEqual(await sentTo(deps), ['sub_acme', 'sub_acme2']);
    assert.equal(deps.events.items.get('evt_1')!.tenantId, 'acme');
  });

  it('an event without a tenant reaches subscriptions without one only', async () => {
    const deps = seeded();
    await publish(deps, { id: 'evt_1', type: 'invoice.paid', payloadJson: '{}' });
    assert.deepEqual(await sentTo(deps), ['sub_own']);
  });

  it("audience all reaches every tenant's matching subscriptions and the producer's", async () => {
    const deps = seeded();
    await publish(deps, { id: 'evt_1', type: 'invoice.paid', audience: 'all', payloadJson: '{}' });
    assert.deepEqual(await sentTo(deps), ['sub_acme', 'sub_acme2', 'sub_globex', 'sub_own']);
    assert.equal(deps.events.items.get('evt_1')!.audience, 'all');
  });

  it('subscriptionIds narrow the event to those of its audience that select its type', async () => {
    const deps = seeded();
    const result = await publish(deps, {
      id: 'evt_1',
      type: 'invoice.created',
      tenantId: 'acme',
      subscriptionIds: ['sub_acme2', 'sub_acme'],
      payloadJson: '{}',
    });
    assert.deepEqual(await sentTo(deps), ['sub_acme'], 'sub_acme2 takes invoice.paid only');
    assert.equal(result.deliveryIds.length, 1);
    assert.deepEqual(deps.events.items.get('evt_1')!.narrowedTo, ['sub_acme2', 'sub_acme']);
  });

  it("refuses a named subscription outside the audience, naming it, whether it is another tenant's, gone or unknown: nothing stored", async () => {
    for (const outsider of ['sub_globex', 'sub_own', 'sub_unknown']) {
      const deps = seeded();
      await assert.rejects(
        publish(deps, {
          id: 'evt_1',
          type: 'invoice.paid',
          tenantId: 'acme',
          subscriptionIds: ['sub_acme', outsider],
          payloadJson: '{}',
        }),
        (e: unknown) =>
          e instanceof ValidationError &&
          e.field === 'subscriptionIds[1]' &&
          e.rule === `${outsider} is not a subscription of this event's audience (tenant acme)`,
      );
      assert.equal(deps.events.items.size, 0, outsider);
      assert.equal(deps.ingestManifests.items.size, 0, outsider);
      assert.deepEqual(await sentTo(deps), [], outsider);
    }
    const deps = seeded();
    await deps.subscriptions.setState('sub_acme2', 'deleted', 'test', '2024-05-01T12:00:00.000Z');
    await assert.rejects(
      publish(deps, { type: 'invoice.paid', tenantId: 'acme', subscriptionIds: ['sub_acme2'], payloadJson: '{}' }),
      ValidationError,
      'a deleted subscription is outside',
    );
  });

  it('a batch with a refused event refuses whole, naming it, before anything is stored; without wholeOrNothing the others go on', async () => {
    const deps = seeded();
    const batch = [
      { id: 'evt_ok', type: 'invoice.paid', tenantId: 'acme', payloadJson: '{}' },
      { id: 'evt_bad', type: 'invoice.paid', tenantId: 'acme', subscriptionIds: ['sub_globex'], payloadJson: '{}' },
    ];
    await assert.rejects(
      publishBatch(deps, batch, { wholeOrNothing: true }),
      (e: unknown) => e instanceof ValidationError && e.field === 'events[1].subscriptionIds[0]',
    );
    assert.equal(deps.events.items.size, 0);
    assert.equal(deps.ingestManifests.items.size, 0);

    const results = await publishBatch(deps, batch);
    assert.deepEqual(
      results.map((r) => r.kind),
      ['accepted', 'refused'],
    );
    assert.deepEqual([...deps.events.items.keys()], ['evt_ok']);
    assert.deepEqual(await sentTo(deps), ['sub_acme', 'sub_acme2']);
  });

  it('the same id with another tenant, or to every tenant, is a conflict; with the same tenant a duplicate', async () => {
    const deps = seeded();
    const first = await publish(deps, { id: 'evt_1', type: 'invoice.paid', tenantId: 'acme', payloadJson: '{}' });
    for (const other of [
      { tenantId: 'globex' },
      {},
      { audience: 'all' as const },
      { tenantId: 'acme', subscriptionIds: ['sub_acme'] },
    ]) {
      assert.equal(
        (await publish(deps, { id: 'evt_1', type: 'invoice.paid', ...other, payloadJson: '{}' })).kind,
        'conflict',
        JSON.stringify(other),
      );
    }
    assert.deepEqual(await publish(deps, { id: 'evt_1', type: 'invoice.paid', tenantId: 'acme', payloadJson: '{}' }), {
      kind: 'duplicate',
      eventId: 'evt_1',
      deliveryIds: first.deliveryIds,
    });
    assert.deepEqual(await sentTo(deps), ['sub_acme', 'sub_acme2']);
  });

  it('answers 503 and stores nothing while the routing index of an older deployment is still being built', async () => {
    const deps = { ...seeded(), routes: new InMemoryRouteStore() };
    // A row from before the index: nothing routed it.
    deps.subscriptions.items.set('sub_old', aSubscription({ id: 'sub_old' }));
    await deps.routes.setStatus({ kind: 'building', indexed: 0 });
    // Each reading of the clock is 10 s on: the publish's budget is spent before the build reads a page.
    let t = deps.clock.now();
    deps.clock.now = () => (t += 10_000);
    await assert.rejects(publish(deps, { type: 'a', payloadJson: '{}' }), TemporarilyUnavailableError);
    assert.equal(deps.events.items.size, 0);
  });
});

describe('scopePublish: who may publish for whom', () => {
  it('lets the admin publish for any tenant, none, or every tenant', () => {
    for (const r of [{ tenantId: 'globex' }, {}, { audience: 'all' as const }]) {
      assert.deepEqual(scopePublish(ADMIN, { type: 'a', payloadJson: '{}', ...r }), {
        type: 'a',
        payloadJson: '{}',
        ...r,
      });
    }
  });

  it("makes a tenant key's event its own tenant's, and refuses another tenant or every tenant (403)", () => {
    assert.deepEqual(scopePublish(ACME, { type: 'a', payloadJson: '{}' }), {
      type: 'a',
      payloadJson: '{}',
      tenantId: 'acme',
    });
    assert.deepEqual(scopePublish(ACME, { type: 'a', payloadJson: '{}', tenantId: 'acme' }), {
      type: 'a',
      payloadJson: '{}',
      tenantId: 'acme',
    });
    assert.throws(
      () => scopePublish(ACME, { type: 'a', payloadJson: '{}', tenantId: 'globex' }),
      (e: unknown) => e instanceof ForbiddenError && /not for tenant globex/.test(e.message),
    );
    assert.throws(() => scopePublish(ACME, { type: 'a', payloadJson: '{}', audience: 'all' }), ForbiddenError);
  });
});
