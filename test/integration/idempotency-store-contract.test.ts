/**
 * The IdempotencyStore contract (test/support/idempotency-store-contract.ts) against the DynamoDB
 * adapter on a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process
 * dynalite), each case on a table of its own built from the topology.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbIdempotencyStore } from '#adapters/dynamodb-idempotency-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { IDEMPOTENCY_CONTRACT_CASES, idempotencyStoreContract } from '#test/idempotency-store-contract.ts';

const tables = contractTables('idempotency-contract');

let opened = 0;
idempotencyStoreContract('DynamoDB', async () => {
  opened++;
  const { table, dispose } = await tables.open(TABLES.idempotencyKeys);
  return { store: new DynamoDbIdempotencyStore(documentClient(tables.client()), table), dispose };
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, IDEMPOTENCY_CONTRACT_CASES));
