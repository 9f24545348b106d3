import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AjvSchemaValidator } from '#adapters/ajv-schema-validator.ts';
import { ValidationError } from '#app/errors.ts';
import { publish, publishBatch } from '#app/publish/publish.ts';
import type { EventTypeCheck } from '#domain/event-type-catalog.ts';
import type { EventTypeInput } from '#ports/event-type-store.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';
import { InMemoryEventTypeStore } from '#test/memory-event-type-store.ts';

const ORDER_SCHEMA = '{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}';

/** The engine's fakes, one subscription to everything, a catalog of `types` and the check; the real JSON Schema adapter. */
function depsWith(check: EventTypeCheck, types: readonly EventTypeInput[] = []) {
  const eventTypes = new InMemoryEventTypeStore();
  for (const t of types) void eventTypes.put(t, '2024-05-01T00:00:00.000Z');
  const deps = { ...fakeDeps(), eventTypes, schemaValidator: new AjvSchemaValidator(), eventTypeCheck: check };
  deps.subscriptions.items.set('sub_all', aSubscription({ id: 'sub_all', eventTypes: ['*'] }));
  return deps;
}

const CATALOG: readonly EventTypeInput[] = [
  { name: 'order.created', description: 'an order', schemaJson: ORDER_SCHEMA, deprecated: false },
  { name: 'order.legacy', description: 'the old one', deprecated: true },
];

const refusedAs = (field: string, rule: RegExp) => (e: unknown) =>
  e instanceof ValidationError && e.field === field && rule.test(e.rule);

describe('publish under the allow check (the default)', () => {
  it('never reads the catalog, whatever the event', async () => {
    const deps = depsWith('allow', CATALOG);
    const result = await publish(deps, { id: 'e1', type: 'order.shipped', payloadJson: '{"amount":"x"}' });
    await publishBatch(deps, [{ id: 'e2', type: 'order.created', payloadJson: '"not an object"' }], {
      wholeOrNothing: true,
    });
    assert.equal(result.kind, 'accepted');
    assert.equal('warnings' in result, false);
    assert.equal(deps.eventTypes.catalogReads, 0);
  });

  it('a function without the catalog (the notifier) publishes unchecked', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_all', aSubscription({ id: 'sub_all', eventTypes: ['*'] }));
    assert.equal((await publish(deps, { id: 'e1', type: 'order.shipped', payloadJson: '{}' })).kind, 'accepted');
  });
});

describe('publish under the warn check', () => {
  it('accepts an unregistered type and a mismatched payload, saying why', async () => {
    const deps = depsWith('warn', CATALOG);
    const unregistered = await publish(deps, { id: 'e1', type: 'order.shipped', payloadJson: '{}' });
    const mismatched = await publish(deps, { id: 'e2', type: 'order.created', payloadJson: '{"amount":"12"}' });
    const fine = await publish(deps, { id: 'e3', type: 'order.created', payloadJson: '{"amount":12}' });
    assert.deepEqual(unregistered.warnings, [
      { field: 'type', message: 'type order.shipped is not registered in the event-type catalog' },
    ]);
    assert.deepEqual(mismatched.warnings, [
      { field: 'payload', message: 'payload does not match the schema of order.created: /amount must be number' },
    ]);
    assert.equal('warnings' in fine, false);
    assert.deepEqual(
      [unregistered, mismatched, fine].map((r) => [r.kind, r.deliveryIds.length]),
      [
        ['accepted', 1],
        ['accepted', 1],
        ['accepted', 1],
      ],
      'each was stored and sent',
    );
    assert.equal(deps.events.items.size, 3);
  });

  it('a batch carries each item’s warnings in place', async () => {
    const deps = depsWith('warn', CATALOG);
    const results = await publishBatch(
      deps,
      [
        { id: 'e1', type: 'order.created', payloadJson: '{"amount":1}' },
        { id: 'e2', type: 'order.legacy', payloadJson: '{}' },
      ],
      { wholeOrNothing: true },
    );
    assert.equal(results[0]!.warnings, undefined);
    assert.deepEqual(results[1]!.warnings, [
      { field: 'type', message: 'type order.legacy is deprecated in the event-type catalog' },
    ]);
    assert.equal(deps.eventTypes.catalogReads, 1, 'one read of the catalog for the whole batch');
  });
});

describe('publish under the refuse check', () => {
  it('refuses an unregistered type naming type, and a mismatched payload naming payload, storing nothing', async () => {
    const deps = depsWith('refuse', CATALOG);
    await assert.rejects(
      publish(deps, { id: 'e1', type: 'order.shipped', payloadJson: '{}' }),
      refusedAs('type', /^order\.shipped is not registered in the event-type catalog$/),
    );
    await assert.rejects(
      publish(deps, { id: 'e2', type: 'order.created', payloadJson: '{}' }),
      refusedAs('payload', /^does not match the schema of order\.created: must have required property 'amount'$/),
    );
    assert.equal(deps.events.items.size, 0);
    assert.equal(deps.ingestManifests.items.size, 0);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('accepts a deprecated type with a warning', async () => {
    const deps = depsWith('refuse', CATALOG);
    const result = await publish(deps, { id: 'e1', type: 'order.legacy', payloadJson: '{}' });
    assert.equal(result.kind, 'accepted');
    assert.deepEqual(result.warnings, [
      { field: 'type', message: 'type order.legacy is deprecated in the event-type catalog' },
    ]);
  });

  it('an HTTP batch is refused whole, naming the event, before anything is stored', async () => {
    const deps = depsWith('refuse', CATALOG);
    await assert.rejects(
      publishBatch(
        deps,
        [
          { id: 'e1', type: 'order.created', payloadJson: '{"amount":1}' },
          { id: 'e2', type: 'order.created', payloadJson: '{"amount":[]}' },
        ],
        { wholeOrNothing: true },
      ),
      refusedAs('events[1].payload', /\/amount must be number$/),
    );
    assert.equal(deps.events.items.size, 0);
    assert.equal(deps.ingestManifests.items.size, 0);
  });

  it('without wholeOrNothing (the ingest queue) the refused event is a result of its own and the others go on', async () => {
    const deps = depsWith('refuse', CATALOG);
    const results = await publishBatch(deps, [
      { id: 'e1', type: 'order.unknown', payloadJson: '{}' },
      { id: 'e2', type: 'order.created', payloadJson: '{"amount":1}' },
    ]);
    assert.equal(results[0]!.kind, 'refused');
    assert.equal(results[0]!.kind === 'refused' && results[0]!.error.field, 'type');
    assert.equal(results[1]!.kind, 'accepted');
    assert.deepEqual([...deps.events.items.keys()], ['e2']);
  });

  it("never checks Hookline's own types, and does not read the catalog for a publish of only those", async () => {
    const deps = depsWith('refuse', CATALOG);
    const result = await publish(deps, { id: 'e1', type: 'hookline.subscription.disabled', payloadJson: '{}' });
    assert.equal(result.kind, 'accepted');
    assert.equal(deps.eventTypes.catalogReads, 0);
  });

  it('a test event (to one subscription) is not checked', async () => {
    const deps = depsWith('refuse', CATALOG);
    const sub = deps.subscriptions.items.get('sub_all')!;
    const result = await publish(deps, { type: 'order.unregistered', payloadJson: '{}' }, { only: sub });
    assert.equal(result.kind, 'accepted');
    assert.equal(deps.eventTypes.catalogReads, 0);
  });

  it('checks a payload against the type as it is now: a changed schema applies to the next publish', async () => {
    const deps = depsWith('refuse', CATALOG);
    await publish(deps, { id: 'e1', type: 'order.created', payloadJson: '{"amount":1}' });
    deps.clock.advance(1000);
    await deps.eventTypes.put(
      { name: 'order.created', description: 'an order', schemaJson: '{"required":["currency"]}', deprecated: false },
      new Date(deps.clock.now()).toISOString(),
    );
    await assert.rejects(
      publish(deps, { id: 'e2', type: 'order.created', payloadJson: '{"amount":1}' }),
      refusedAs('payload', /must have required property 'currency'/),
    );
  });
});
