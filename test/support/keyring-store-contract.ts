/**
 * What every KeyringStore must do, as cases run against the in-memory store the sealer's tests
 * use (test/unit/support/memory-keyring-store.test.ts) and the DynamoDB adapter on dynalite and
 * DynamoDB Local (test/integration/keyring-store-contract.test.ts).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyringStore } from '#ports/keyring-store.ts';

export interface KeyringStoreUnderTest {
  readonly store: KeyringStore;
  dispose(): Promise<void>;
}

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const KEYRING_CONTRACT_CASES = 2;

const key = (ring: string, encryptedKey: string) => ({ ring, encryptedKey, createdAt: `${ring}-01T00:00:00.000Z` });

export function keyringStoreContract(label: string, open: () => Promise<KeyringStoreUnderTest>): void {
  const withStore = (body: (store: KeyringStore) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened.store);
    } finally {
      await opened.dispose();
    }
  };

  it(
    `${label}: a ring's key is created once; a second create is refused and changes nothing`,
    withStore(async (store) => {
      assert.equal(await store.get('2026-12'), undefined);
      assert.equal(await store.create(key('2026-12', 'AQID')), true);
      assert.equal(await store.create(key('2026-12', 'BAUG')), false);
      assert.deepEqual(await store.get('2026-12'), key('2026-12', 'AQID'));
    }),
  );

  it(
    `${label}: rings are apart`,
    withStore(async (store) => {
      assert.equal(await store.create(key('2026-11', 'AQID')), true);
      assert.equal(await store.create(key('2026-12', 'BAUG')), true);
      assert.equal((await store.get('2026-11'))?.encryptedKey, 'AQID');
      assert.equal((await store.get('2026-12'))?.encryptedKey, 'BAUG');
    }),
  );
}
