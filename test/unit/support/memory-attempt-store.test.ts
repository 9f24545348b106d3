/** The in-memory half of the AttemptStore contract; the DynamoDB half is test/integration/attempt-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { ATTEMPT_CONTRACT_CASES, attemptStoreContract } from '#test/attempt-store-contract.ts';
import { InMemoryAttemptStore } from '#test/fakes.ts';

let opened = 0;
attemptStoreContract('in memory', async () => {
  opened++;
  const store = new InMemoryAttemptStore();
  return { store, expiresAt: async (id, seq) => store.expiresAt.get(`${id} ${seq}`), dispose: async () => {} };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, ATTEMPT_CONTRACT_CASES));
