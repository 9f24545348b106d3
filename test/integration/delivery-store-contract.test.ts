/**
 * The DeliveryStore contract (test/support/delivery-store-contract.ts) against the DynamoDB
 * adapter, on a real DynamoDB API: the endpoint in AWS_ENDPOINT_URL_DYNAMODB when set (CI runs
 * this file against Amazon's DynamoDB Local that way), else an in-process dynalite on a temp
 * dir. Each case gets its own table, created from the topology like the real one and deleted
 * after. The in-memory half runs as a unit test (test/unit/support/memory-delivery-store.test.ts).
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { contractTables } from '#test/contract-table.ts';
import { deliveryContractSubject } from '#test/dynamodb-contract-subjects.ts';
import { CONTRACT_CASES, deliveryStoreContract } from '#test/delivery-store-contract.ts';

const tables = contractTables('contract');

let opened = 0;
deliveryStoreContract('DynamoDB', async () => {
  opened++;
  return deliveryContractSubject(tables);
});

// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, CONTRACT_CASES));
