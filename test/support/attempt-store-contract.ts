/**
 * What every AttemptStore must do about writing, as cases run against the in-memory store the
 * service tests use (test/unit/support/memory-attempt-store.test.ts) and the DynamoDB adapter on
 * a real DynamoDB API (test/integration/attempt-store-contract.test.ts) and the scale model's
 * simulator: an attempt is written once, and a second write of the same delivery and number says
 * so instead of overwriting it; its TTL is the writer's, and a new run moves a log's TTL out,
 * never in. Reading a TTL back is not part of the port, so each runner says how.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptRecord } from '#domain/types.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';

export interface AttemptStoreUnderTest {
  readonly store: AttemptStore;
  /** The attempt's TTL in epoch seconds; undefined when it has none or is not there. */
  expiresAt(deliveryId: string, seq: number): Promise<number | undefined>;
  dispose(): Promise<void>;
}

/** A TTL no rule gives, so a store that computes one of its own shows. */
const TTL = Date.parse('2024-05-01T12:00:00.000Z') / 1000 + 17 * 86_400 + 3;

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
export const ATTEMPT_CONTRACT_CASES = 4;

export function attemptStoreContract(name: string, open: () => Promise<AttemptStoreUnderTest>): void {
  const withStore = (fn: (store: AttemptStore, opened: AttemptStoreUnderTest) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await fn(opened.store, opened);
    } finally {
      await opened.dispose();
    }
  };

  describe(`AttemptStore contract: ${name}`, () => {
    it(
      'writes each attempt once and lists them oldest first',
      withStore(async (store) => {
        assert.equal(await store.put(anAttempt(2), TTL), true);
        assert.equal(await store.put(anAttempt(1), TTL), true);
        assert.deepEqual(
          (await store.list('dlv_contract')).map((a) => a.seq),
          [1, 2],
        );
      }),
    );

    it(
      'refuses a second attempt of the same delivery and number, keeping the first as it was',
      withStore(async (store) => {
        assert.equal(await store.put(anAttempt(1), TTL), true);
        assert.equal(
          await store.put(
            anAttempt(1, { status: 200, responseSnippet: 'ok', startedAt: '2024-05-01T12:00:09.000Z' }),
            TTL + 1,
          ),
          false,
        );
        // Another delivery's attempt of the same number is its own.
        assert.equal(await store.put(anAttempt(1, { deliveryId: 'dlv_other' }), TTL), true);
        const [only, ...rest] = await store.list('dlv_contract');
        assert.deepEqual(rest, []);
        assert.equal(only?.status, 500);
        assert.equal(only?.startedAt, '2024-05-01T12:00:01.000Z');
      }),
    );

    it(
      'keeps each attempt until the TTL its writer gave, and lists it without one',
      withStore(async (store, { expiresAt }) => {
        await store.put(anAttempt(1), TTL);
        await store.put(anAttempt(2), TTL + 60);
        assert.equal(await expiresAt('dlv_contract', 1), TTL);
        assert.equal(await expiresAt('dlv_contract', 2), TTL + 60);
        assert.deepEqual(await store.list('dlv_contract'), [anAttempt(1), anAttempt(2)]);
      }),
    );

    it(
      "extendRetention moves every attempt of the delivery out, never in, and no other delivery's",
      withStore(async (store, { expiresAt }) => {
        await store.put(anAttempt(1), TTL);
        await store.put(anAttempt(2), TTL + 86_400);
        await store.put(anAttempt(1, { deliveryId: 'dlv_other' }), TTL);
        await store.extendRetention('dlv_contract', TTL + 3_600);
        assert.equal(await expiresAt('dlv_contract', 1), TTL + 3_600);
        // Kept longer already (written by a later run): left as it was.
        assert.equal(await expiresAt('dlv_contract', 2), TTL + 86_400);
        assert.equal(await expiresAt('dlv_other', 1), TTL);
        // A delivery without attempts gets no row made of a TTL alone.
        await store.extendRetention('dlv_none', TTL + 3_600);
        assert.deepEqual(await store.list('dlv_none'), []);
        assert.equal(await expiresAt('dlv_none', 1), undefined);
      }),
    );
  });
}
