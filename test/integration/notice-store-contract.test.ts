/**
 * The NoticeStore contract (test/support/notice-store-contract.ts) against the DynamoDB adapter on
 * a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an in-process dynalite), each case
 * on a table of its own built from the topology.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbNoticeStore } from '#adapters/dynamodb-notice-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { NOTICE_CONTRACT_CASES, noticeStoreContract } from '#test/notice-store-contract.ts';

const tables = contractTables('notice-contract');

let opened = 0;
noticeStoreContract('DynamoDB', async () => {
  opened++;
  const { table, dispose } = await tables.open(TABLES.notices);
  return { store: new DynamoDbNoticeStore(documentClient(tables.client()), table), dispose };
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, NOTICE_CONTRACT_CASES));
