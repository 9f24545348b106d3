/** The in-memory half of the DeliveryStore contract; the DynamoDB half is test/integration/delivery-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { CONTRACT_CASES, deliveryStoreContract } from '#test/delivery-store-contract.ts';
import { InMemoryDeliveryStore } from '#test/memory-delivery-store.ts';

let opened = 0;
deliveryStoreContract('in memory', async () => {
  opened++;
  const store = new InMemoryDeliveryStore();
  return { store, seed: async (d) => store.put(d), dispose: async () => {} };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, CONTRACT_CASES));
