/**
 * The routing contract (test/support/routing-contract.ts) against the DynamoDB adapters on a real
 * DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite), each case on
 * tables of its own built from the topology.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
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
