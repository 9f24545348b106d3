/**
 * The EventTypeStore contract (test/support/event-type-store-contract.ts) against the DynamoDB
 * adapter on a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, e.g. DynamoDB Local in
 * `npm run test:dynamodb-local`, else an in-process dynalite), each case on a table of its own
 * built from the topology; and the adapter's per-container cache of the catalog.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbEventTypeStore } from '#adapters/dynamodb-event-type-store.ts';
import { EVENT_TYPE_CATALOG_CACHE_MS, TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { EVENT_TYPE_CONTRACT_CASES, eventTypeStoreContract } from '#test/event-type-store-contract.ts';

const tables = contractTables('event-type-contract');

let opened = 0;
eventTypeStoreContract('DynamoDB', async () => {
  opened++;
  const { table, dispose } = await tables.open(TABLES.eventTypes);
  // The AWS cache period: the store's own writes must still show at once.
  return { store: new DynamoDbEventTypeStore(documentClient(tables.client()), table), dispose };
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, EVENT_TYPE_CONTRACT_CASES));

describe('DynamoDbEventTypeStore: the catalog publish reads, per container', () => {
  it("serves the catalog it read for the cache period, then reads another container's writes", async () => {
    const { table, dispose } = await tables.open(TABLES.eventTypes);
    try {
      let now = 1_000_000;
      const db = documentClient(tables.client());
      const publisher = new DynamoDbEventTypeStore(db, table, EVENT_TYPE_CATALOG_CACHE_MS, () => now);
      const registrar = new DynamoDbEventTypeStore(db, table, EVENT_TYPE_CATALOG_CACHE_MS, () => now);
      assert.equal((await publisher.catalog()).size, 0);
      await registrar.put(
        { name: 'order.created', description: 'an order', deprecated: false },
        '2024-05-01T00:00:00.000Z',
      );
      now += EVENT_TYPE_CATALOG_CACHE_MS - 1;
      assert.equal((await publisher.catalog()).size, 0, 'within the period: the catalog as read');
      now += 1;
      assert.deepEqual([...(await publisher.catalog()).keys()], ['order.created'], 'after it: read again');
    } finally {
      await dispose();
    }
  });
});
