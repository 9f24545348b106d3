/** The in-memory half of the IdempotencyStore contract; the DynamoDB half is test/integration/idempotency-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { IDEMPOTENCY_CONTRACT_CASES, idempotencyStoreContract } from '#test/idempotency-store-contract.ts';
import { InMemoryIdempotencyStore } from '#test/memory-stores.ts';

let opened = 0;
idempotencyStoreContract('in memory', async () => {
  opened++;
  return { store: new InMemoryIdempotencyStore(), dispose: async () => {} };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, IDEMPOTENCY_CONTRACT_CASES));
