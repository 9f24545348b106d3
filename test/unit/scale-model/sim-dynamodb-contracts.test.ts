/**
 * The store contracts (test/support/*-contract.ts) that test/integration/*-contract.test.ts run
 * against dynalite, here run against the simulated DynamoDB with the real adapters on top: if
 * the simulator's semantics drift from DynamoDB's where Hookline relies on them, these fail.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbAttemptStore } from '#adapters/dynamodb-attempt-store.ts';
import { DynamoDbDeliveryStore, rowAttributes } from '#adapters/dynamodb-delivery-store.ts';
import { DynamoDbEventStore } from '#adapters/dynamodb-event-store.ts';
import { DynamoDbIdempotencyStore } from '#adapters/dynamodb-idempotency-store.ts';
import { DynamoDbIngestManifestStore } from '#adapters/dynamodb-ingest-manifest-store.ts';
import { DynamoDbNoticeStore } from '#adapters/dynamodb-notice-store.ts';
import { DynamoDbRouteStore } from '#adapters/dynamodb-route-store.ts';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';
import { BodyIntegrityError } from '#adapters/errors.ts';
import { TABLES } from '#config/topology.ts';
import { DEFAULT_RETENTION, eventTtlFor, type RetentionPolicy } from '#domain/retention.ts';
import type { Delivery } from '#domain/types.ts';
import { ATTEMPT_CONTRACT_CASES, attemptStoreContract } from '#test/attempt-store-contract.ts';
import { CONTRACT_CASES, deliveryStoreContract } from '#test/delivery-store-contract.ts';
import { anEvent, EVENT_CONTRACT_CASES, eventStoreContract } from '#test/event-store-contract.ts';
import { IDEMPOTENCY_CONTRACT_CASES, idempotencyStoreContract } from '#test/idempotency-store-contract.ts';
import { ingestManifestStoreContract, MANIFEST_CONTRACT_CASES } from '#test/ingest-manifest-store-contract.ts';
import { NOTICE_CONTRACT_CASES, noticeStoreContract } from '#test/notice-store-contract.ts';
import { ROUTING_CONTRACT_CASES, routingContract } from '#test/routing-contract.ts';
import { simContractTables } from './sim-contract-tables.ts';

const tables = simContractTables('sim');
const opened = { delivery: 0, event: 0, attempt: 0, idempotency: 0, manifest: 0, notice: 0, routing: 0 };

deliveryStoreContract('simulated DynamoDB', async () => {
  opened.delivery++;
  const { table, dispose } = await tables.open(TABLES.deliveries);
  const db = documentClient(tables.client());
  const seed = async (d: Delivery) =>
    void (await db.send(
      new PutCommand({ TableName: table, Item: { ...d, ...rowAttributes(d, d.state, d.updatedAt) } }),
    ));
  return { store: new DynamoDbDeliveryStore(db, table), seed, dispose };
});

async function openEvents(retention?: RetentionPolicy) {
  const { table, dispose } = await tables.open(TABLES.events);
  const store = new DynamoDbEventStore(documentClient(tables.client()), table, retention ? { retention } : {});
  const raw = async (id: string) =>
    (await tables.client().send(new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: true })))
      .Item;
  return { table, store, raw, dispose };
}

eventStoreContract('simulated DynamoDB', async (retention) => {
  opened.event++;
  const { store, raw, dispose } = await openEvents(retention);
  return {
    store,
    expiresAt: async (id) => {
      const n = (await raw(id))?.expiresAt?.N;
      return n === undefined ? undefined : Number(n);
    },
    dispose,
  };
});

attemptStoreContract('simulated DynamoDB', async () => {
  opened.attempt++;
  const { table, dispose } = await tables.open(TABLES.attempts);
  return { store: new DynamoDbAttemptStore(documentClient(tables.client()), table), dispose };
});

idempotencyStoreContract('simulated DynamoDB', async () => {
  opened.idempotency++;
  const { table, dispose } = await tables.open(TABLES.idempotencyKeys);
  return { store: new DynamoDbIdempotencyStore(documentClient(tables.client()), table), dispose };
});

ingestManifestStoreContract('simulated DynamoDB', async () => {
  opened.manifest++;
  const { table, dispose } = await tables.open(TABLES.ingestManifests);
  return { store: new DynamoDbIngestManifestStore(documentClient(tables.client()), table), dispose };
});

noticeStoreContract('simulated DynamoDB', async () => {
  opened.notice++;
  const { table, dispose } = await tables.open(TABLES.notices);
  return { store: new DynamoDbNoticeStore(documentClient(tables.client()), table), dispose };
});

routingContract('simulated DynamoDB', async () => {
  opened.routing++;
  const routesTable = await tables.open(TABLES.routes);
  const subscriptionsTable = await tables.open(TABLES.subscriptions);
  const db = documentClient(tables.client());
  return {
    routes: new DynamoDbRouteStore(db, routesTable.table, 0),
    subscriptions: new DynamoDbSubscriptionStore(db, subscriptionsTable.table, 0),
    seedRowFromBefore: async (s) =>
      void (await db.send(new PutCommand({ TableName: subscriptionsTable.table, Item: s }))),
    dispose: async () => {
      await routesTable.dispose();
      await subscriptionsTable.dispose();
    },
  };
});

// The raw-AttributeValue checks of test/integration/event-store-contract.test.ts: they exercise
// the simulator's marshalled path (GetItem/PutItem/UpdateItem on the base client).
describe('DynamoDbEventStore rows on the simulator', () => {
  it('stores the body as deflate-raw bytes (B) with its sha256, no text copy, the TTL from the default retention', async () => {
    const { store, raw, dispose } = await openEvents();
    try {
      const e = anEvent();
      await store.putIfAbsent(e);
      const item = (await raw(e.id))!;
      assert.ok(item.bodyZ?.B instanceof Uint8Array && item.bodyZ.B.length > 0);
      assert.match(item.bodySha256?.S ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(item.body, undefined);
      assert.equal(Number(item.expiresAt?.N), eventTtlFor(Date.parse(e.createdAt), DEFAULT_RETENTION));
    } finally {
      await dispose();
    }
  });

  it('reads a row written before bodies were compressed, and extends it alike', async () => {
    const { table, store, raw, dispose } = await openEvents();
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
      assert.deepEqual(await store.putIfAbsent(e), { kind: 'exists', existing: e });
      await store.extendRetention(e.id, 1900000000);
      assert.equal((await raw(e.id))?.expiresAt?.N, '1900000000');
    } finally {
      await dispose();
    }
  });

  it('refuses a body whose bytes do not match their sha256', async () => {
    const { table, store, dispose } = await openEvents();
    try {
      await store.putIfAbsent(anEvent({ id: 'evt_a', body: '{"a":1}' }));
      await store.putIfAbsent(anEvent({ id: 'evt_b', body: '{"b":2}' }));
      const b = (await tables.client().send(new GetItemCommand({ TableName: table, Key: { id: { S: 'evt_b' } } })))
        .Item!;
      await tables.client().send(
        new UpdateItemCommand({
          TableName: table,
          Key: { id: { S: 'evt_a' } },
          UpdateExpression: 'SET bodyZ = :z',
          ExpressionAttributeValues: { ':z': b.bodyZ! },
        }),
      );
      await assert.rejects(store.get('evt_a'), BodyIntegrityError);
      assert.equal((await store.get('evt_b'))?.body, '{"b":2}');
    } finally {
      await dispose();
    }
  });
});

// Not vacuous: every case of every contract ran against tables of its own.
after(() =>
  assert.deepEqual(opened, {
    delivery: CONTRACT_CASES,
    event: EVENT_CONTRACT_CASES,
    attempt: ATTEMPT_CONTRACT_CASES,
    idempotency: IDEMPOTENCY_CONTRACT_CASES,
    manifest: MANIFEST_CONTRACT_CASES,
    notice: NOTICE_CONTRACT_CASES,
    routing: ROUTING_CONTRACT_CASES,
  }),
);
