/**
 * What every EventStore must do, as cases run against the in-memory store the service tests use
 * (test/unit/support/memory-event-store.test.ts) and the DynamoDB adapter on a real DynamoDB API
 * (test/integration/event-store-contract.test.ts). The port takes each new row's TTL from its
 * writer (publish: eventTtlFor) and reading it back is not part of it, so each runner says how
 * to read it on its store.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EventRecord } from '#domain/types.ts';
import type { EventStore } from '#ports/event-store.ts';

export interface EventStoreUnderTest {
  readonly store: EventStore;
  /** The row's TTL in epoch seconds; undefined when it has none or is gone. */
  expiresAt(id: string): Promise<number | undefined>;
  dispose(): Promise<void>;
}

export type OpenEventStore = () => Promise<EventStoreUnderTest>;

const CREATED_AT = '2024-05-01T12:00:00.000Z';
/** A TTL no rule gives by default, so a store that computes one of its own shows. */
export const TTL = Date.parse(CREATED_AT) / 1000 + 11 * 86_400 + 7;

export function anEvent(overrides: Partial<EventRecord> = {}): EventRecord {
  const id = overrides.id ?? 'evt_contract';
  return {
    id,
    type: 'order.created',
    body: `{"id":"${id}","type":"order.created","timestamp":"${CREATED_AT}","data":{"total":1.0,"big":1e400,"name":"Zoë 🎉","esc":"\\u00e9\\n"}}`,
    subscriptionIds: ['sub_a', 'sub_b'],
    deliveryIds: ['dlv_a', 'dlv_b'],
    createdAt: CREATED_AT,
    ...overrides,
  };
}

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const EVENT_CONTRACT_CASES = 7;

export function eventStoreContract(label: string, open: OpenEventStore): void {
  const withStore = (body: (s: EventStoreUnderTest) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened);
    } finally {
      await opened.dispose();
    }
  };

  describe(`EventStore contract: ${label}`, () => {
    it(
      'writes once and reads back exactly what was written, the body byte for byte',
      withStore(async ({ store }) => {
        const e = anEvent({ tenantId: 'ten_1' });

        assert.deepEqual(await store.putIfAbsent(e, TTL), { kind: 'created' });
        assert.deepEqual(
          await store.putIfAbsent({ ...e, body: '{}', deliveryIds: [] }, TTL),
          { kind: 'exists', existing: e },
          'the second write is refused and answers the first',
        );

        assert.deepEqual(await store.get(e.id), e);
        assert.equal(await store.get('evt_unknown'), undefined);
      }),
    );

    it(
      'keeps a new event until the TTL its writer gives, and a refused second write leaves it',
      withStore(async ({ store, expiresAt }) => {
        await store.putIfAbsent(anEvent(), TTL);
        await store.putIfAbsent(anEvent(), TTL + 86_400);

        assert.equal(await expiresAt('evt_contract'), TTL);
      }),
    );

    it(
      'extendRetention moves the TTL out',
      withStore(async ({ store, expiresAt }) => {
        await store.putIfAbsent(anEvent(), TTL);

        await store.extendRetention('evt_contract', TTL + 86_400);

        assert.equal(await expiresAt('evt_contract'), TTL + 86_400);
        assert.deepEqual(await store.get('evt_contract'), anEvent(), 'and changes nothing else');
      }),
    );

    it(
      'extendRetention never shortens it, nor rewrites the same time',
      withStore(async ({ store, expiresAt }) => {
        await store.putIfAbsent(anEvent(), TTL);

        await store.extendRetention('evt_contract', TTL - 1);
        await store.extendRetention('evt_contract', TTL);

        assert.equal(await expiresAt('evt_contract'), TTL);
      }),
    );

    it(
      'extendRetention of an event that is gone leaves it gone (no row holding only a TTL)',
      withStore(async ({ store, expiresAt }) => {
        await store.extendRetention('evt_gone', TTL);

        assert.equal(await store.get('evt_gone'), undefined);
        assert.equal(await expiresAt('evt_gone'), undefined);
      }),
    );

    it(
      'getSummaries answers each known id once, without its body, in the order first asked, skipping unknown ones',
      withStore(async ({ store }) => {
        const a = anEvent({ id: 'evt_a', tenantId: 'ten_1' });
        const b = anEvent({
          id: 'evt_b',
          type: 'order.paid',
          deliveryIds: [],
          subscriptionIds: [],
          body: `{"pad":"${'x'.repeat(100 * 1024)}"}`,
        });
        await store.putIfAbsent(a, TTL);
        await store.putIfAbsent(b, TTL);
        const { body: _a, ...summaryA } = a;
        const { body: _b, ...summaryB } = b;

        assert.deepEqual(await store.getSummaries(['evt_b', 'evt_unknown', 'evt_a', 'evt_b']), [summaryB, summaryA]);
        assert.deepEqual(await store.getSummaries([]), []);
        // More than one BatchGetItem holds.
        const many = Array.from({ length: 130 }, (_, i) => `evt_m${i}`);
        for (const id of many) await store.putIfAbsent(anEvent({ id }), TTL);
        assert.deepEqual(
          (await store.getSummaries(many)).map((e) => e.id),
          many,
        );
      }),
    );

    it(
      'bodies of every kind come back identical: empty object, escapes, big',
      withStore(async ({ store }) => {
        const bodies = [
          '{}',
          '',
          '{"s":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\ud83d\\ude00","n":[1.0,1e400,-0.0,0.1e-7]}',
          `{"pad":"${'x'.repeat(200 * 1024)}"}`,
        ];
        for (const [i, body] of bodies.entries()) await store.putIfAbsent(anEvent({ id: `evt_b${i}`, body }), TTL);

        for (const [i, body] of bodies.entries()) assert.equal((await store.get(`evt_b${i}`))?.body, body, `body ${i}`);
      }),
    );
  });
}
