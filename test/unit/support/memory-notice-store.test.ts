/** The in-memory half of the NoticeStore contract; the DynamoDB half is test/integration/notice-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { InMemoryNoticeStore } from '#test/memory-notice-store.ts';
import { NOTICE_CONTRACT_CASES, noticeStoreContract } from '#test/notice-store-contract.ts';

let opened = 0;
noticeStoreContract('in memory', async () => {
  opened++;
  return { store: new InMemoryNoticeStore(), dispose: async () => {} };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, NOTICE_CONTRACT_CASES));
