/**
 * The KeyringStore contract (test/support/keyring-store-contract.ts) against the DynamoDB
 * adapter on a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, e.g. DynamoDB Local in
 * `npm run test:dynamodb-local`, else an in-process dynalite), each case on a table of its own
 * built from the topology.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbKeyringStore } from '#adapters/dynamodb-keyring-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { KEYRING_CONTRACT_CASES, keyringStoreContract } from '#test/keyring-store-contract.ts';

const tables = contractTables('keyring-contract');

let opened = 0;
keyringStoreContract('DynamoDB', async () => {
  opened++;
  const { table, dispose } = await tables.open(TABLES.keyring);
  return { store: new DynamoDbKeyringStore(documentClient(tables.client()), table), dispose };
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, KEYRING_CONTRACT_CASES));
