/**
 * What the DeliveryStore, AttemptStore and routing contracts open on a DynamoDB API: the real adapters on
 * fresh tables. One definition for every DynamoDB the contracts run on: dynalite or DynamoDB
 * Local (test/integration) and the scale model's simulator (test/unit/scale-model).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbAttemptStore } from '#adapters/dynamodb-attempt-store.ts';
import { DynamoDbDeliveryStore, rowAttributes } from '#adapters/dynamodb-delivery-store.ts';
import { DynamoDbRouteStore } from '#adapters/dynamodb-route-store.ts';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';
import { TABLES } from '#config/topology.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import type { AttemptStoreUnderTest } from '#test/attempt-store-contract.ts';
import type { ContractTables } from '#test/contract-table.ts';

export async function deliveryContractSubject(tables: ContractTables) {
  const { table, dispose } = await tables.open(TABLES.deliveries);
  const db = documentClient(tables.client());
  // A fixture row as a store would keep it: its key and the index attributes of its state.
  const seed = async (d: Delivery) =>
    void (await db.send(
      new PutCommand({ TableName: table, Item: { ...d, ...rowAttributes(d, d.state, d.updatedAt) } }),
    ));
  return { store: new DynamoDbDeliveryStore(db, table), seed, dispose };
}

/** The adapter on a fresh attempts table, each row's TTL read as stored. */
export async function attemptContractSubject(tables: ContractTables): Promise<AttemptStoreUnderTest> {
  const { table, dispose } = await tables.open(TABLES.attempts);
  const expiresAt = async (deliveryId: string, seq: number) => {
    const Key = { deliveryId: { S: deliveryId }, seq: { N: String(seq) } };
    const n = (await tables.client().send(new GetItemCommand({ TableName: table, Key, ConsistentRead: true }))).Item
      ?.expiresAt?.N;
    return n === undefined ? undefined : Number(n);
  };
  return { store: new DynamoDbAttemptStore(documentClient(tables.client()), table), expiresAt, dispose };
}

export async function routingContractSubject(tables: ContractTables) {
  const routesTable = await tables.open(TABLES.routes);
  const subscriptionsTable = await tables.open(TABLES.subscriptions);
  const db = documentClient(tables.client());
  return {
    // No cache: each case reads what it just wrote.
    routes: new DynamoDbRouteStore(db, routesTable.table, 0),
    subscriptions: new DynamoDbSubscriptionStore(db, subscriptionsTable.table, 0),
    seedRowFromBefore: async (s: Subscription) =>
      void (await db.send(new PutCommand({ TableName: subscriptionsTable.table, Item: s }))),
    dispose: async () => {
      await routesTable.dispose();
      await subscriptionsTable.dispose();
    },
  };
}
