/** The in-memory half of the EventTypeStore contract; the DynamoDB half is test/integration/event-type-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { EVENT_TYPE_CONTRACT_CASES, eventTypeStoreContract } from '#test/event-type-store-contract.ts';
import { InMemoryEventTypeStore } from '#test/memory-event-type-store.ts';

let opened = 0;
eventTypeStoreContract('in memory', async () => {
  opened++;
  return { store: new InMemoryEventTypeStore(), dispose: async () => {} };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, EVENT_TYPE_CONTRACT_CASES));
