/** The KeyringStore contract against the in-memory store the sealer's tests use. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { KEYRING_CONTRACT_CASES, keyringStoreContract } from '#test/keyring-store-contract.ts';
import { InMemoryKeyringStore } from '#test/memory-keyring-store.ts';

let opened = 0;
keyringStoreContract('in memory', async () => {
  opened++;
  return { store: new InMemoryKeyringStore(), dispose: async () => {} };
});
after(() => assert.equal(opened, KEYRING_CONTRACT_CASES));
