/**
 * What every EventTypeStore must do, as cases run against the in-memory store the service tests
 * use (test/unit/support/memory-event-type-store.test.ts), the DynamoDB adapter on dynalite and
 * DynamoDB Local (test/integration/event-type-store-contract.test.ts) and on the scale model's
 * simulator (test/unit/scale-model/sim-dynamodb-contracts.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EventTypeEntry } from '#domain/event-type-catalog.ts';
import type { EventTypeInput, EventTypeStore } from '#ports/event-type-store.ts';
import { InvalidCursorError } from '#ports/page.ts';

export interface EventTypeStoreUnderTest {
  readonly store: EventTypeStore;
  dispose(): Promise<void>;
}

const T0 = '2024-05-01T12:00:00.000Z';
const T1 = '2024-05-01T12:05:00.000Z';

const input = (name: string, more: Partial<EventTypeInput> = {}): EventTypeInput => ({
  name,
  description: `${name} happened`,
  deprecated: false,
  ...more,
});

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const EVENT_TYPE_CONTRACT_CASES = 5;

export function eventTypeStoreContract(label: string, open: () => Promise<EventTypeStoreUnderTest>): void {
  const withStore = (body: (store: EventTypeStore) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened.store);
    } finally {
      await opened.dispose();
    }
  };

  describe(`EventTypeStore contract: ${label}`, () => {
    it(
      'registers a type, then replaces it whole: created, then replaced with its first createdAt; the JSON text kept as written',
      withStore(async (store) => {
        const schemaJson = '{ "type": "object", "properties": { "amount": { "type": "number", "minimum": 1.50 } } }';
        const exampleJson = '{"amount": 2.0}';
        const first = await store.put(input('order.created', { schemaJson, exampleJson }), T0);
        const expected: EventTypeEntry = {
          ...input('order.created', { schemaJson, exampleJson }),
          createdAt: T0,
          updatedAt: T0,
        };
        assert.deepEqual(first, { kind: 'created', entry: expected });
        assert.deepEqual(await store.get('order.created'), expected);

        const second = await store.put(input('order.created', { description: 'changed', deprecated: true }), T1);
        const replaced: EventTypeEntry = {
          name: 'order.created',
          description: 'changed',
          deprecated: true,
          createdAt: T0,
          updatedAt: T1,
        };
        assert.deepEqual(second, { kind: 'replaced', entry: replaced });
        assert.deepEqual(await store.get('order.created'), replaced, 'the schema and example left out are gone');
      }),
    );

    it(
      'reads an unknown type as undefined; deletes a type once, answering it as it was',
      withStore(async (store) => {
        assert.equal(await store.get('nope'), undefined);
        assert.equal(await store.delete('nope'), undefined);
        await store.put(input('a.b', { exampleJson: '[1,2]' }), T0);
        assert.deepEqual(await store.delete('a.b'), {
          ...input('a.b', { exampleJson: '[1,2]' }),
          createdAt: T0,
          updatedAt: T0,
        });
        assert.equal(await store.get('a.b'), undefined);
        assert.equal(await store.delete('a.b'), undefined);
      }),
    );

    it(
      'lists in name order, a page at a time, with a cursor that continues after the last name',
      withStore(async (store) => {
        for (const name of ['user.created', 'invoice.paid', 'a', 'invoice.void', 'Z.upper'])
          await store.put(input(name), T0);
        const first = await store.list({ limit: 2 });
        assert.deepEqual(
          first.items.map((e) => e.name),
          ['Z.upper', 'a'],
        );
        assert.ok(first.nextCursor);
        const second = await store.list({ limit: 2, cursor: first.nextCursor });
        assert.deepEqual(
          second.items.map((e) => e.name),
          ['invoice.paid', 'invoice.void'],
        );
        const last = await store.list({ limit: 2, cursor: second.nextCursor });
        assert.deepEqual(
          last.items.map((e) => e.name),
          ['user.created'],
        );
        assert.equal(last.nextCursor, undefined);
        assert.deepEqual((await store.list({ limit: 5 })).nextCursor, undefined, 'an exact last page has no cursor');
        assert.equal(await store.count(), 5);
      }),
    );

    it(
      'refuses a cursor it did not issue',
      withStore(async (store) => {
        await store.put(input('a'), T0);
        for (const cursor of [
          'not-a-cursor!',
          Buffer.from('{"after":1}').toString('base64url'),
          Buffer.from('[1]').toString('base64url'),
        ])
          await assert.rejects(store.list({ limit: 10, cursor }), InvalidCursorError, cursor);
      }),
    );

    it(
      'gives the whole catalog by name, and sees its own writes at once',
      withStore(async (store) => {
        assert.equal((await store.catalog()).size, 0);
        await store.put(input('a.one'), T0);
        await store.put(input('a.two', { schemaJson: '{}' }), T0);
        const catalog = await store.catalog();
        assert.deepEqual([...catalog.keys()], ['a.one', 'a.two']);
        assert.equal(catalog.get('a.two')?.schemaJson, '{}');
        await store.put(input('a.two', { deprecated: true }), T1);
        assert.equal((await store.catalog()).get('a.two')?.deprecated, true);
        await store.delete('a.one');
        assert.deepEqual([...(await store.catalog()).keys()], ['a.two']);
        assert.equal(await store.count(), 1);
      }),
    );
  });
}
