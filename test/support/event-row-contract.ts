/**
 * What only the events table shows, beside the EventStore contract (event-store-contract.ts):
 * the compressed attributes, rows written before compression, a body whose bytes no longer match
 * their sha256, and the TTL condition. Run on every DynamoDB the adapter meets: dynalite or
 * DynamoDB Local (test/integration/event-store-contract.test.ts) and the scale model's simulator
 * (test/unit/scale-model/sim-dynamodb-contracts.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbEventStore } from '#adapters/dynamodb-event-store.ts';
import { BodyIntegrityError } from '#adapters/errors.ts';
import { TABLES } from '#config/topology.ts';
import type { ContractTables } from '#test/contract-table.ts';
import { anEvent, TTL } from '#test/event-store-contract.ts';

/** A fresh events table with the adapter over it, and its raw items as DynamoDB holds them. */
export async function openEventTable(tables: ContractTables) {
  const { table, dispose } = await tables.open(TABLES.events);
  const store = new DynamoDbEventStore(documentClient(tables.client()), table);
  const raw = async (id: string) =>
    (await tables.client().send(new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: true })))
      .Item;
  return { table, store, raw, dispose };
}

/** What eventStoreContract opens: the adapter on a fresh table, and each row's TTL as stored. */
export async function eventContractSubject(tables: ContractTables) {
  const { store, raw, dispose } = await openEventTable(tables);
  return {
    store,
    expiresAt: async (id: string) => {
      const n = (await raw(id))?.expiresAt?.N;
      return n === undefined ? undefined : Number(n);
    },
    dispose,
  };
}

export function eventRowContract(name: string, tables: ContractTables): void {
  const openTable = () => openEventTable(tables);
  describe(`DynamoDbEventStore rows (${name})`, () => {
    it('stores the body as deflate-raw bytes (B) with its sha256, no text copy, the TTL as given', async () => {
      const { store, raw, dispose } = await openTable();
      try {
        const e = anEvent();
        await store.putIfAbsent(e, TTL);
        const item = (await raw(e.id))!;
        assert.ok(item.bodyZ?.B instanceof Uint8Array && item.bodyZ.B.length > 0);
        assert.match(item.bodySha256?.S ?? '', /^[A-Za-z0-9_-]{43}$/);
        assert.equal(item.body, undefined);
        assert.equal(Number(item.expiresAt?.N), TTL);
        assert.deepEqual(Object.keys(item).sort(), [
          'bodySha256',
          'bodyZ',
          'createdAt',
          'deliveryIds',
          'expiresAt',
          'id',
          'subscriptionIds',
          'type',
        ]);
      } finally {
        await dispose();
      }
    });

    it('reads a row written before bodies were compressed (plain `body` text), and extends it alike', async () => {
      const { table, store, raw, dispose } = await openTable();
      try {
        const e = anEvent({ id: 'evt_legacy', tenantId: 'ten_1' });
        await tables.client().send(
          new PutItemCommand({
            TableName: table,
            Item: {
              id: { S: e.id },
              type: { S: e.type },
              body: { S: e.body },
              tenantId: { S: 'ten_1' },
              subscriptionIds: { L: e.subscriptionIds.map((S) => ({ S })) },
              deliveryIds: { L: e.deliveryIds.map((S) => ({ S })) },
              createdAt: { S: e.createdAt },
              expiresAt: { N: '1800000000' },
            },
          }),
        );
        assert.deepEqual(await store.get(e.id), e);
        assert.deepEqual(await store.putIfAbsent(e, TTL), { kind: 'exists', existing: e });
        await store.extendRetention(e.id, 1900000000);
        assert.equal((await raw(e.id))?.expiresAt?.N, '1900000000');
      } finally {
        await dispose();
      }
    });

    it('refuses a body whose bytes do not match their sha256 (BodyIntegrityError), never answering altered text', async () => {
      const { table, store, dispose } = await openTable();
      try {
        await store.putIfAbsent(anEvent({ id: 'evt_a', body: '{"a":1}' }), TTL);
        await store.putIfAbsent(anEvent({ id: 'evt_b', body: '{"b":2}' }), TTL);
        const b = (await tables.client().send(new GetItemCommand({ TableName: table, Key: { id: { S: 'evt_b' } } })))
          .Item!;
        // evt_a's sha256 now sits beside evt_b's bytes.
        await tables.client().send(
          new UpdateItemCommand({
            TableName: table,
            Key: { id: { S: 'evt_a' } },
            UpdateExpression: 'SET bodyZ = :z',
            ExpressionAttributeValues: { ':z': b.bodyZ! },
          }),
        );
        await assert.rejects(store.get('evt_a'), BodyIntegrityError);
        await assert.rejects(
          store.putIfAbsent(anEvent({ id: 'evt_a' }), TTL),
          BodyIntegrityError,
          'the duplicate check reads it too',
        );
        assert.equal((await store.get('evt_b'))?.body, '{"b":2}');
      } finally {
        await dispose();
      }
    });

    it('the extension condition leaves a row without a TTL without one (kept for ever stays kept for ever)', async () => {
      const { table, store, raw, dispose } = await openTable();
      try {
        await tables.client().send(
          new PutItemCommand({
            TableName: table,
            Item: {
              id: { S: 'evt_forever' },
              type: { S: 't' },
              body: { S: '{}' },
              subscriptionIds: { L: [] },
              deliveryIds: { L: [] },
              createdAt: { S: '2024-05-01T00:00:00.000Z' },
            },
          }),
        );
        await store.extendRetention('evt_forever', 1900000000);
        assert.equal((await raw('evt_forever'))?.expiresAt, undefined);
      } finally {
        await dispose();
      }
    });
  });
}
