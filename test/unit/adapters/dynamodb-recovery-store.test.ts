import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDbRecoveryStore } from '#adapters/dynamodb-recovery-store.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
const START_MS = Date.parse('2024-05-01T12:00:00.000Z');

describe('DynamoDbRecoveryStore.listDeadLettersChanged: the day walk', () => {
  let nowMs = START_MS;
  let queried: string[] = [];
  const store = () => new DynamoDbRecoveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), { deliveries: 'deliveries' }, () => nowMs);

  beforeEach(() => {
    ddbMock.reset();
    nowMs = START_MS;
    queried = [];
    // Every day partition is empty, and each query takes 100 ms.
    ddbMock.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      queried.push(String(input.ExpressionAttributeValues?.[':pk']));
      if (queried.length > 1000) throw new Error('the walk went on past its deadline');
      nowMs += 100;
      return { Items: [] };
    });
  });
  after(() => ddbMock.restore());

  it('stops at the deadline over a range of empty days and hands back the day it reached; the next call starts there', async () => {
    const request = { changedFrom: '0001-01-01T00:00:00.000Z', changedTo: '2024-05-01T12:00:00.000Z', limit: 200 };

    const first = await store().listDeadLettersChanged({ ...request, deadlineMs: START_MS + 1_000 });

    assert.deepEqual(first.items, []);
    assert.ok(first.nextCursor, 'a cursor to continue from');
    assert.ok(queried.length >= 1 && queried.length <= 11, `${queried.length} day queries for a 1 s deadline at 100 ms each`);
    const reached = queried.length;
    assert.equal(queried[0], '0001-01-01');
    assert.equal(queried[reached - 1], `0001-01-${String(reached).padStart(2, '0')}`);

    await store().listDeadLettersChanged({ ...request, cursor: first.nextCursor!, deadlineMs: nowMs + 300 });
    assert.equal(queried[reached], `0001-01-${String(reached + 1).padStart(2, '0')}`, 'continues with the next day, not from the start');
  });

  it('walks to the end of a short range when there is time', async () => {
    const page = await store().listDeadLettersChanged({ changedFrom: '2024-04-28T00:00:00.000Z', changedTo: '2024-05-01T12:00:00.000Z', limit: 200, deadlineMs: START_MS + 60_000 });
    assert.deepEqual(queried, ['2024-04-28', '2024-04-29', '2024-04-30', '2024-05-01']);
    assert.deepEqual(page, { items: [] });
  });
});
