/** The in-memory half of the routing contract; the DynamoDB half is test/integration/routing-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { InMemoryRouteStore, InMemorySubscriptionStore } from '#test/fakes.ts';
import { ROUTING_CONTRACT_CASES, routingContract } from '#test/routing-contract.ts';

let opened = 0;
routingContract('in memory', async () => {
  opened++;
  const subscriptions = new InMemorySubscriptionStore();
  return {
    routes: new InMemoryRouteStore(),
    subscriptions,
    seedRowFromBefore: async (s) => void subscriptions.items.set(s.id, s),
    dispose: async () => {},
  };
});
// Not vacuous: every case of the contract ran against stores of their own.
after(() => assert.equal(opened, ROUTING_CONTRACT_CASES));
