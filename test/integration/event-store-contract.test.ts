/**
 * The EventStore contract (test/support/event-store-contract.ts) against the DynamoDB adapter on
 * a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite), plus
 * what only the table shows (event-row-contract.ts).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { contractTables } from '#test/contract-table.ts';
import { eventContractSubject, eventRowContract } from '#test/event-row-contract.ts';
import { EVENT_CONTRACT_CASES, eventStoreContract } from '#test/event-store-contract.ts';

const tables = contractTables('event-contract');

let opened = 0;
eventStoreContract('DynamoDB', async () => {
  opened++;
  return eventContractSubject(tables);
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, EVENT_CONTRACT_CASES));

eventRowContract('DynamoDB', tables);
