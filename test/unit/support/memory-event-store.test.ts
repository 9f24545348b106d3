/** The in-memory half of the EventStore contract; the DynamoDB half is test/integration/event-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { EVENT_CONTRACT_CASES, eventStoreContract } from '#test/event-store-contract.ts';
import { InMemoryEventStore } from '#test/fakes.ts';

let opened = 0;
eventStoreContract('in memory', async () => {
  opened++;
  const store = new InMemoryEventStore();
  return {
    store,
    expiresAt: async (id) => store.expiresAt.get(id),
    dispose: async () => {},
  };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, EVENT_CONTRACT_CASES));
