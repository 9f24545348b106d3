/**
 * The AttemptStore contract (test/support/attempt-store-contract.ts) against the DynamoDB adapter
 * on a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { ATTEMPT_CONTRACT_CASES, attemptStoreContract } from '#test/attempt-store-contract.ts';
import { attemptContractSubject } from '#test/dynamodb-contract-subjects.ts';
import { contractTables } from '#test/contract-table.ts';

const tables = contractTables('attempt-contract');

let opened = 0;
attemptStoreContract('DynamoDB', async () => {
  opened++;
  return attemptContractSubject(tables);
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, ATTEMPT_CONTRACT_CASES));
