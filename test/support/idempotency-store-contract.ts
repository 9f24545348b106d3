/**
 * What every IdempotencyStore must do, as cases run against the in-memory store the service tests
 * use (test/unit/support/memory-idempotency-store.test.ts) and the DynamoDB adapter on a real
 * DynamoDB API (test/integration/idempotency-store-contract.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IdempotencyRecord, IdempotencyStore } from '#ports/idempotency-store.ts';

export interface IdempotencyStoreUnderTest {
  readonly store: IdempotencyStore;
  dispose(): Promise<void>;
}

const NOW = '2024-05-01T12:00:00.000Z';
const NOW_S = Date.parse(NOW) / 1000;
const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

function taken(overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord & { owner: string; lockedUntil: string } {
  return {
    id: 'idk_1',
    fingerprint: 'fp_1',
    createdAt: NOW,
    expiresAt: NOW_S + 86_400,
    owner: 'owner_1',
    lockedUntil: at(60),
    ...overrides,
  } as IdempotencyRecord & { owner: string; lockedUntil: string };
}

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const IDEMPOTENCY_CONTRACT_CASES = 5;

export function idempotencyStoreContract(label: string, open: () => Promise<IdempotencyStoreUnderTest>): void {
  const withStore = (body: (store: IdempotencyStore) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened.store);
    } finally {
      await opened.dispose();
    }
  };

  describe(`IdempotencyStore contract: ${label}`, () => {
    it(
      'takes a fresh key once: a second begin, whatever its fingerprint, reads the record in progress',
      withStore(async (store) => {
        assert.deepEqual(await store.begin(taken(), NOW), { kind: 'started' });
        assert.deepEqual(await store.begin(taken({ owner: 'owner_2' }), at(1)), { kind: 'exists', record: taken() });
        assert.deepEqual(await store.begin(taken({ owner: 'owner_2', fingerprint: 'fp_2' }), at(1)), {
          kind: 'exists',
          record: taken(),
        });
      }),
    );

    it(
      'completes only for its owner, dropping the lock and keeping the answer',
      withStore(async (store) => {
        await store.begin(taken(), NOW);
        assert.equal(await store.complete('idk_1', 'owner_2', { status: 201, sealed: 'x' }), false);
        assert.equal(await store.complete('idk_1', 'owner_1', { status: 201, sealed: 'sealed-answer' }), true);
        const { owner: _o, lockedUntil: _l, ...rest } = taken();
        assert.deepEqual(
          await store.begin(taken({ owner: 'owner_2' }), at(120)),
          { kind: 'exists', record: { ...rest, response: { status: 201, sealed: 'sealed-answer' } } },
          'a finished answer is kept past the lock',
        );
        assert.equal(await store.complete('idk_unknown', 'owner_1', { status: 200 }), false);
      }),
    );

    it(
      'releases only for its owner, so a corrected retry can take the key',
      withStore(async (store) => {
        await store.begin(taken(), NOW);
        await store.release('idk_1', 'owner_2');
        assert.equal((await store.begin(taken({ owner: 'owner_2' }), at(1))).kind, 'exists');
        await store.release('idk_1', 'owner_1');
        assert.deepEqual(await store.begin(taken({ owner: 'owner_2', fingerprint: 'fp_2' }), at(1)), {
          kind: 'started',
        });
        await store.release('idk_unknown', 'owner_1');
      }),
    );

    it(
      'lets a retry of the same request take over a lock that ran out (its request died), not another request',
      withStore(async (store) => {
        await store.begin(taken(), NOW);
        assert.equal((await store.begin(taken({ owner: 'owner_2' }), at(59))).kind, 'exists', 'the lock still holds');
        assert.equal(
          (await store.begin(taken({ owner: 'owner_2', fingerprint: 'fp_2', lockedUntil: at(120) }), at(61))).kind,
          'exists',
          'another request never takes it',
        );
        assert.deepEqual(await store.begin(taken({ owner: 'owner_2', lockedUntil: at(120) }), at(61)), {
          kind: 'started',
        });
        assert.equal(
          await store.complete('idk_1', 'owner_1', { status: 200, sealed: 'late' }),
          false,
          'the request that died lost its key',
        );
      }),
    );

    it(
      'treats a record past its expiry as gone (TTL deletes it later)',
      withStore(async (store) => {
        await store.begin(taken(), NOW);
        await store.complete('idk_1', 'owner_1', { status: 201, sealed: 'old' });
        assert.equal((await store.begin(taken({ owner: 'owner_2', fingerprint: 'fp_2' }), at(86_399))).kind, 'exists');
        assert.deepEqual(
          await store.begin(
            taken({ owner: 'owner_2', fingerprint: 'fp_2', expiresAt: NOW_S + 2 * 86_400 }),
            at(86_400),
          ),
          { kind: 'started' },
        );
      }),
    );
  });
}
