/**
 * SendRateCounters: the same cases against the DynamoDB adapter on a real DynamoDB API
 * (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite) and the in-memory one the
 * unit tests use, so the unit tests see the table's answers. Plus what only the table shows:
 * the TTL attribute, and that concurrent calls never share a count or a turn.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbSendRateCounters } from '#adapters/dynamodb-send-rate-counters.ts';
import { TABLES } from '#config/topology.ts';
import type { SendRateCounters } from '#ports/send-rate-counters.ts';
import { contractTables } from '#test/contract-table.ts';
import { InMemorySendRateCounters } from '#test/memory-stores.ts';

const tables = contractTables('send-rate');

const implementations: [string, () => Promise<{ counters: SendRateCounters; dispose(): Promise<void> }>][] = [
  ['in memory', async () => ({ counters: new InMemorySendRateCounters(), dispose: async () => {} })],
  [
    'DynamoDB',
    async () => {
      const { table, dispose } = await tables.open(TABLES.rateLimits);
      return { counters: new DynamoDbSendRateCounters(documentClient(tables.client()), table), dispose };
    },
  ],
];

for (const [name, open] of implementations) {
  describe(`SendRateCounters contract: ${name}`, () => {
    it('counts each key on its own, from 1, every call included', async () => {
      const { counters, dispose } = await open();
      try {
        assert.deepEqual(
          [
            await counters.count('send#a#w1', 100),
            await counters.count('send#a#w1', 100),
            await counters.count('send#a#w2', 100),
            await counters.count('send#a#w1', 100),
          ],
          [1, 2, 1, 3],
        );
      } finally {
        await dispose();
      }
    });

    it('takes turns in order, never before the earliest asked, restarting there once the queue has fallen behind', async () => {
      const { counters, dispose } = await open();
      try {
        const turns = [
          await counters.takeTurn('send#a#t0', 10, 100),
          await counters.takeTurn('send#a#t0', 10, 100),
          await counters.takeTurn('send#a#t0', 11, 100),
        ];
        assert.deepEqual(turns, [10, 11, 12], 'a backlog goes on from where it is');
        assert.equal(await counters.takeTurn('send#a#t0', 20, 100), 20, 'a queue behind the earliest restarts at it');
        assert.equal(await counters.takeTurn('send#a#t0', 20, 100), 21);
        assert.equal(await counters.takeTurn('send#a#t1', 20, 100), 20, 'each key its own queue');
      } finally {
        await dispose();
      }
    });

    it('never gives two concurrent calls the same count or the same turn', async () => {
      const { counters, dispose } = await open();
      try {
        const counts = await Promise.all(Array.from({ length: 30 }, () => counters.count('send#c#w1', 100)));
        assert.deepEqual(
          [...counts].sort((a, b) => a - b),
          Array.from({ length: 30 }, (_, i) => i + 1),
        );
        // Half of them find the queue empty at once (the restart race), half find it going.
        const turns = await Promise.all(Array.from({ length: 30 }, () => counters.takeTurn('send#c#t1', 500, 100)));
        assert.deepEqual(
          [...turns].sort((a, b) => a - b),
          Array.from({ length: 30 }, (_, i) => 500 + i),
        );
      } finally {
        await dispose();
      }
    });
  });
}

describe('DynamoDbSendRateCounters on the table', () => {
  it('sets the TTL attribute on every write, so finished windows and idle queues go', async () => {
    const { table, dispose } = await tables.open(TABLES.rateLimits);
    try {
      const counters = new DynamoDbSendRateCounters(documentClient(tables.client()), table);
      await counters.count('send#a#w1', 1234);
      await counters.takeTurn('send#a#t0', 7, 5678);
      await counters.takeTurn('send#a#t0', 7, 5679);
      const item = async (key: string) =>
        (
          await tables
            .client()
            .send(new GetItemCommand({ TableName: table, Key: { key: { S: key } }, ConsistentRead: true }))
        ).Item;
      assert.equal((await item('send#a#w1'))?.expiresAt?.N, '1234');
      assert.deepEqual([(await item('send#a#t0'))?.next?.N, (await item('send#a#t0'))?.expiresAt?.N], ['9', '5679']);
      assert.equal(TABLES.rateLimits.ttlAttribute, 'expiresAt');
    } finally {
      await dispose();
    }
  });
});
