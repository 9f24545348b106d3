/**
 * The routing contract (test/support/routing-contract.ts) against the DynamoDB adapters on a real
 * DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite), each case on
 * tables of its own built from the topology.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbRouteStore } from '#adapters/dynamodb-route-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { routingContractSubject } from '#test/dynamodb-contract-subjects.ts';
import { ROUTING_CONTRACT_CASES, routingContract } from '#test/routing-contract.ts';

const tables = contractTables('routing-contract');

let opened = 0;
routingContract('DynamoDB', async () => {
  opened++;
  return routingContractSubject(tables);
});
// Not vacuous: every case of the contract ran against tables of its own.
after(() => assert.equal(opened, ROUTING_CONTRACT_CASES));

describe('DynamoDbRouteStore: intents over partitions of their own', () => {
  it('spreads intents over the #intent#k partitions, and still lists and clears one an unsharded version noted', async () => {
    const { table, dispose } = await tables.open(TABLES.routes);
    try {
      const db = documentClient(tables.client());
      const routes = new DynamoDbRouteStore(db, table, 0);
      for (let i = 0; i < 32; i++) await routes.noteIntent(`sub_${i}`, '2024-05-01T12:00:10.000Z');
      // As the version before the shards wrote it: `#intent`, `<at>#<subscription>#<key>`.
      const old = { subscriptionId: 'sub_old', key: 'k-old', at: '2024-05-01T12:00:00.000Z' };
      await db.send(
        new PutCommand({ TableName: table, Item: { route: '#intent', entry: `${old.at}#sub_old#k-old`, ...old } }),
      );

      const partitions = new Set(
        ((await db.send(new ScanCommand({ TableName: table }))).Items ?? []).map((i) => i.route),
      );
      assert.ok(partitions.size > 8, `32 subscriptions' intents in ${partitions.size} partitions`);

      const [oldest] = await routes.intents('2024-05-01T12:00:05.000Z', 10);
      assert.equal(oldest?.subscriptionId, 'sub_old', 'the unsharded intent is found');
      await routes.clearIntent(oldest!);
      assert.deepEqual(await routes.intents('2024-05-01T12:00:05.000Z', 10), [], 'and cleared where it was');
    } finally {
      await dispose();
    }
  });
});
