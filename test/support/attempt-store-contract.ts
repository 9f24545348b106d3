/**
 * What every AttemptStore must do about writing, as cases run against the in-memory store the
 * service tests use (test/unit/support/memory-attempt-store.test.ts) and the DynamoDB adapter on
 * a real DynamoDB API (test/integration/attempt-store-contract.test.ts): an attempt is written
 * once, and a second write of the same delivery and number says so instead of overwriting it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptRecord } from '#domain/types.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';

export interface AttemptStoreUnderTest {
  readonly store: AttemptStore;
  dispose(): Promise<void>;
}

const anAttempt = (seq: number, more: Partial<AttemptRecord> = {}): AttemptRecord => ({
  deliveryId: 'dlv_contract',
  seq,
  attempt: seq,
  startedAt: `2024-05-01T12:00:0${seq}.000Z`,
  durationMs: 20,
  status: 500,
  responseSnippet: 'busy',
  ...more,
});

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const ATTEMPT_CONTRACT_CASES = 2;

export function attemptStoreContract(name: string, open: () => Promise<AttemptStoreUnderTest>): void {
  const withStore = (fn: (store: AttemptStore) => Promise<void>) => async () => {
    const { store, dispose } = await open();
    try {
      await fn(store);
    } finally {
      await dispose();
    }
  };

  describe(`AttemptStore contract: ${name}`, () => {
    it(
      'writes each attempt once and lists them oldest first',
      withStore(async (store) => {
        assert.equal(await store.put(anAttempt(2)), true);
        assert.equal(await store.put(anAttempt(1)), true);
        assert.deepEqual(
          (await store.list('dlv_contract')).map((a) => a.seq),
          [1, 2],
        );
      }),
    );

    it(
      'refuses a second attempt of the same delivery and number, keeping the first as it was',
      withStore(async (store) => {
        assert.equal(await store.put(anAttempt(1)), true);
        assert.equal(
          await store.put(anAttempt(1, { status: 200, responseSnippet: 'ok', startedAt: '2024-05-01T12:00:09.000Z' })),
          false,
        );
        // Another delivery's attempt of the same number is its own.
        assert.equal(await store.put(anAttempt(1, { deliveryId: 'dlv_other' })), true);
        const [only, ...rest] = await store.list('dlv_contract');
        assert.deepEqual(rest, []);
        assert.equal(only?.status, 500);
        assert.equal(only?.startedAt, '2024-05-01T12:00:01.000Z');
      }),
    );
  });
}
