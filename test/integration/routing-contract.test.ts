/**
 * The routing contract (test/support/routing-contract.ts) against the DynamoDB adapters on a real
 * DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite), each case on
 * tables of its own built from the topology.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbRouteStore } from '#adapters/dynamodb-route-store.ts';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { ROUTING_CONTRACT_CASES, routingContract } from '#test/routing-contract.ts';

const tables = contractTables('routing-contract');

let opened = 0;
routingContract('DynamoDB', async () => {
  opened++;
  const routesTable = await tables.open(TABLES.routes);
  const subscriptionsTable = await tables.open(TABLES.subscriptions);
  const db = documentClient(tables.client());
  return {
    // No cache: each case reads what it just wrote.
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
// Not vacuous: every case of the contract ran against tables of its own.
after(() => assert.equal(opened, ROUTING_CONTRACT_CASES));
