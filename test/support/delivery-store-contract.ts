/**
 * What every DeliveryStore must do, as cases any implementation can be run against: the
 * in-memory store the service tests use (test/unit/support/memory-delivery-store.test.ts) and
 * the DynamoDB adapter (test/integration/delivery-store-contract.test.ts). Each case gets a
 * fresh, empty store, seeds it through `create` (which stores any state as given) and looks at
 * the result only through the port, so both answer the same questions the same way.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REPLAYABLE_STATES, STATE, type CompletionAction, type DeliveryState } from '#domain/states.ts';
import type { Delivery } from '#domain/types.ts';
import type { Completion, DeliveryStore } from '#ports/delivery-store.ts';
import { InvalidCursorError, type Page, type PageRequest } from '#ports/page.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { aDelivery } from './fakes.ts';

export interface StoreUnderTest {
  readonly store: DeliveryStore;
  dispose(): Promise<void>;
}

/** Opens a fresh, empty store whose clock (where it has one, e.g. the dead-letter lookback) reads `nowMs`. */
export type OpenStore = (nowMs: number) => Promise<StoreUnderTest>;

export const NOW = '2024-05-01T12:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const at = (seconds: number) => new Date(NOW_MS + seconds * 1000).toISOString();
const LEASE = at(40);
const an = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** What aDelivery gives a fixture that does not say otherwise. */
const DEFAULT = aDelivery({ id: 'dlv_default' });
/**
 * The id of a fixture delivery: of the layout the DynamoDB store keys on (domain/ids.ts), which
 * carries the delivery's own subscription and creation time, so a fixture that overrides either
 * passes it here too. `label` stands for the event and tells the fixtures apart.
 */
const dlv = (label: string, of: { readonly subscriptionId?: string; readonly createdAt?: string } = {}) =>
  deliveryIdFor(label, of.subscriptionId ?? DEFAULT.subscriptionId, of.createdAt ?? DEFAULT.createdAt);
/** An id no store can have: not of the delivery id layout at all. */
const MALFORMED = 'dlv_unknown';
/** An id of the layout that no case creates. */
const NEVER_CREATED = dlv('unknown');

/** Walks every page; each but the last is full (the last may be empty when the previous one ended exactly). */
async function allPages(read: (request: PageRequest) => Promise<Page<Delivery>>, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 50, 'paging does not end');
    const page = await read({ limit, ...(cursor ? { cursor } : {}) });
    assert.ok(page.items.length <= limit, `a page of ${page.items.length} for limit ${limit}`);
    ids.push(...page.items.map((d) => d.id));
    if (!page.nextCursor) return ids;
    assert.equal(page.items.length, limit, 'a page with a cursor after it is full');
    cursor = page.nextCursor;
  }
}

/** The state each completion action writes, spelled out here rather than taken from the domain. */
const COMPLETIONS: ReadonlyArray<readonly [CompletionAction, DeliveryState]> = [
  ['succeed', 'delivered'],
  ['fail_permanently', 'failed'],
  ['retry', 'pending'],
  ['give_up', 'expired'],
];

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const CONTRACT_CASES = 60;

export function deliveryStoreContract(label: string, open: OpenStore): void {
  /** Runs `body` on a fresh store, disposing of it whatever happens. */
  const withStore = (body: (store: DeliveryStore) => Promise<void>) => async () => {
    const opened = await open(NOW_MS);
    try {
      await body(opened.store);
    } finally {
      await opened.dispose();
    }
  };
  const seed = async (store: DeliveryStore, ...deliveries: Delivery[]) => {
    for (const d of deliveries) assert.equal(await store.create(d), true, `create ${d.id}`);
  };
  const inFlight = (id: string, overrides: Partial<Delivery> = {}) =>
    aDelivery({ id, state: STATE.inFlight, attempts: 2, attemptSeq: 5, leaseUntil: LEASE, lastError: 'HTTP 503', lastStatus: 503, lastResponse: 'busy', ...overrides });

  describe(`DeliveryStore contract: ${label}`, () => {
    describe('create, get, getMany', () => {
      it('creates once and reads back exactly what was written', withStore(async (store) => {
        const d = aDelivery({ id: dlv('c1'), tenantId: 'ten_1', headers: { 'content-type': 'application/json', 'x-extra': '1' } });

        assert.equal(await store.create(d), true);
        assert.equal(await store.create({ ...d, url: 'https://other.example.com/' }), false, 'a second create of the id is refused');

        assert.deepEqual(await store.get(dlv('c1')), d);
        assert.equal(await store.get(NEVER_CREATED), undefined);
        assert.equal(await store.get(MALFORMED), undefined);
      }));

      it('getMany answers each known id once, in the order first asked, skipping unknown ones', withStore(async (store) => {
        await seed(store, aDelivery({ id: dlv('a') }), aDelivery({ id: dlv('b') }), aDelivery({ id: dlv('c') }));

        const found = await store.getMany([dlv('c'), NEVER_CREATED, dlv('a'), MALFORMED, dlv('c')]);

        assert.deepEqual(found.map((d) => d.id), [dlv('c'), dlv('a')]);
        assert.deepEqual(await store.getMany([]), []);
      }));
    });

    describe('claim', () => {
      it('takes a due pending delivery in flight: one more attempt, a lease, the rest untouched', withStore(async (store) => {
        const d = aDelivery({ id: dlv('due'), attempts: 1, attemptSeq: 3, nextAttemptAt: at(-5) });
        await seed(store, d);

        const result = await store.claim(dlv('due'), NOW, LEASE);

        const claimed: Delivery = { ...d, state: 'in_flight', attempts: 2, attemptSeq: 4, leaseUntil: LEASE, updatedAt: NOW };
        assert.deepEqual(result, { kind: 'claimed', delivery: claimed });
        assert.deepEqual(await store.get(dlv('due')), claimed);
      }));

      it('takes one due exactly now', withStore(async (store) => {
        await seed(store, aDelivery({ id: dlv('now'), nextAttemptAt: NOW }));

        assert.equal((await store.claim(dlv('now'), NOW, LEASE)).kind, 'claimed');
      }));

      it('refuses one not yet due and says what is stored', withStore(async (store) => {
        const d = aDelivery({ id: dlv('later'), nextAttemptAt: at(30) });
        await seed(store, d);

        assert.deepEqual(await store.claim(dlv('later'), NOW, LEASE), { kind: 'not_claimable', current: d });
        assert.deepEqual(await store.get(dlv('later')), d);
      }));

      it('refuses a due one its recorded retry still holds (leaseUntil on a pending row), and takes it once the hold has passed', withStore(async (store) => {
        const held = aDelivery({ id: dlv('held'), attempts: 1, attemptSeq: 1, nextAttemptAt: at(-5), leaseUntil: at(10) });
        const released = aDelivery({ id: dlv('hold_over'), attempts: 1, attemptSeq: 1, nextAttemptAt: at(-20), leaseUntil: at(-1) });
        await seed(store, held, released);

        assert.deepEqual(await store.claim(held.id, NOW, LEASE), { kind: 'not_claimable', current: held });
        assert.equal((await store.claim(released.id, NOW, LEASE)).kind, 'claimed');
        assert.equal((await store.get(released.id))!.leaseUntil, LEASE, 'the claim\'s own lease replaces the hold');
      }));

      for (const state of ['in_flight', 'delivered', 'failed', 'expired'] as const) {
        it(`refuses one that is ${state}, however due, and says what is stored`, withStore(async (store) => {
          const d = aDelivery({ id: dlv('taken'), state, nextAttemptAt: at(-60) });
          await seed(store, d);

          assert.deepEqual(await store.claim(dlv('taken'), NOW, LEASE), { kind: 'not_claimable', current: d });
        }));
      }

      it('refuses an unknown id without a current row', withStore(async (store) => {
        assert.deepEqual(await store.claim(NEVER_CREATED, NOW, LEASE), { kind: 'not_claimable' });
        assert.deepEqual(await store.claim(MALFORMED, NOW, LEASE), { kind: 'not_claimable' });
      }));

      it('lets only one of two racing claims through', withStore(async (store) => {
        await seed(store, aDelivery({ id: dlv('race') }));

        const results = await Promise.all([store.claim(dlv('race'), NOW, LEASE), store.claim(dlv('race'), NOW, LEASE)]);

        assert.deepEqual(results.map((r) => r.kind).sort(), ['claimed', 'not_claimable']);
        assert.equal((await store.get(dlv('race')))!.attemptSeq, 1);
      }));
    });

    describe('complete', () => {
      for (const [action, state] of COMPLETIONS) {
        it(`${action}: writes ${state} with the attempt's fields, drops the lease and the stale ones`, withStore(async (store) => {
          const claimed = inFlight(dlv('done'));
          await seed(store, claimed);
          const completion: Completion = { action, attempts: 2, nextAttemptAt: at(20), lastStatus: 500, updatedAt: at(1) };

          assert.equal(await store.complete(claimed, completion), true);

          const { leaseUntil: _l, lastError: _e, lastResponse: _r, ...rest } = claimed;
          assert.deepEqual(await store.get(dlv('done')), { ...rest, state, attempts: 2, nextAttemptAt: at(20), lastStatus: 500, updatedAt: at(1) });
        }));
      }

      it('records an error and a response when given', withStore(async (store) => {
        const claimed = inFlight(dlv('err'));
        await seed(store, claimed);

        await store.complete(claimed, { action: 'retry', attempts: 2, nextAttemptAt: at(20), lastStatus: 429, lastError: 'HTTP 429', lastResponse: 'slow down', updatedAt: NOW });

        const after = (await store.get(dlv('err')))!;
        assert.deepEqual([after.lastStatus, after.lastError, after.lastResponse], [429, 'HTTP 429', 'slow down']);
      }));

      it('refuses a lost claim (another attempt number) and changes nothing', withStore(async (store) => {
        const stored = inFlight(dlv('lost'), { attemptSeq: 6 });
        await seed(store, stored);

        const ok = await store.complete({ ...stored, attemptSeq: 5 }, { action: 'succeed', attempts: 2, nextAttemptAt: NOW, updatedAt: NOW });

        assert.equal(ok, false);
        assert.deepEqual(await store.get(dlv('lost')), stored);
      }));

      it('refuses once the delivery is no longer in flight (released meanwhile)', withStore(async (store) => {
        const claimed = inFlight(dlv('rel'), { leaseUntil: at(-1) });
        await seed(store, claimed);
        assert.equal(await store.release(dlv('rel'), claimed.attemptSeq, NOW), true);

        assert.equal(await store.complete(claimed, { action: 'succeed', attempts: 2, nextAttemptAt: NOW, updatedAt: NOW }), false);
        assert.equal((await store.get(dlv('rel')))!.state, 'pending');
      }));

      it('refuses an unknown id', withStore(async (store) => {
        for (const id of [NEVER_CREATED, MALFORMED]) {
          assert.equal(await store.complete(inFlight(id), { action: 'succeed', attempts: 1, nextAttemptAt: NOW, updatedAt: NOW }), false, id);
          assert.equal(await store.get(id), undefined, id);
        }
      }));
    });

    describe('recordFirst (the happy path: a first attempt made without a claim)', () => {
      const attempted = (id: string, overrides: Partial<Delivery> = {}): Delivery => aDelivery({
        id,
        state: STATE.inFlight,
        attempts: 1,
        attemptSeq: 1,
        updatedAt: at(1),
        firstAttempt: { seq: 1, attempt: 1, startedAt: NOW, durationMs: 12, status: 200, responseSnippet: 'ok' },
        ...overrides,
      });
      const fresh = (id: string) => aDelivery({ id, attempts: 0, attemptSeq: 0 });

      for (const [action, state] of COMPLETIONS) {
        it(`${action}: writes the whole row in ${state} with its attempt inline, where no row was`, withStore(async (store) => {
          const d = attempted(dlv(`first_${action}`));
          const completion: Completion = { action, attempts: 1, nextAttemptAt: at(20), lastStatus: 200, lastResponse: 'ok', updatedAt: at(1) };

          assert.equal(await store.recordFirst(d, completion), true);

          assert.deepEqual(await store.get(d.id), { ...d, state, attempts: 1, nextAttemptAt: at(20), lastStatus: 200, lastResponse: 'ok', updatedAt: at(1) });
        }));
      }

      it('replaces a fresh row that still waits for its first attempt', withStore(async (store) => {
        await seed(store, fresh(dlv('first_fresh')));
        const d = attempted(dlv('first_fresh'), { url: 'https://moved.example.com/' });

        assert.equal(await store.recordFirst(d, { action: 'succeed', attempts: 1, nextAttemptAt: at(1), lastStatus: 204, updatedAt: at(1) }), true);

        const after = (await store.get(dlv('first_fresh')))!;
        assert.deepEqual([after.state, after.attemptSeq, after.url, after.firstAttempt?.status], ['delivered', 1, 'https://moved.example.com/', 200]);
      }));

      it('refuses once another worker claimed or finished the delivery, and changes nothing', withStore(async (store) => {
        const claimed = inFlight(dlv('first_taken'), { attemptSeq: 1 });
        const done = aDelivery({ id: dlv('first_done'), state: 'delivered', attempts: 1, attemptSeq: 1 });
        await seed(store, claimed, done);

        assert.equal(await store.recordFirst(attempted(dlv('first_taken')), { action: 'succeed', attempts: 1, nextAttemptAt: NOW, updatedAt: NOW }), false);
        assert.equal(await store.recordFirst(attempted(dlv('first_done')), { action: 'fail_permanently', attempts: 1, nextAttemptAt: NOW, updatedAt: NOW }), false);

        assert.deepEqual(await store.get(dlv('first_taken')), claimed);
        assert.deepEqual(await store.get(dlv('first_done')), done);
      }));
    });

    describe('recordUnclaimed (a planned retry made without a claim)', () => {
      /** A row as a recorded retry left it: attempt 2 of seq 5 made, the next due 10 s ago. */
      const waiting = (id: string, overrides: Partial<Delivery> = {}) =>
        aDelivery({ id, state: STATE.pending, attempts: 2, attemptSeq: 5, nextAttemptAt: at(-10), lastError: 'HTTP 503', lastStatus: 503, lastResponse: 'busy', ...overrides });
      const found = { attemptSeq: 5, nextAttemptAt: at(-10) };
      const attempted = (d: Delivery): Delivery => ({ ...d, state: STATE.inFlight, attempts: 3, attemptSeq: 6 });

      for (const [action, state] of COMPLETIONS) {
        it(`${action}: the claim and the outcome in one write, ${state}, attempt seq 6`, withStore(async (store) => {
          const d = waiting(dlv(`unclaimed_${action}`));
          await seed(store, d);

          assert.equal(await store.recordUnclaimed(attempted(d), { action, attempts: 3, nextAttemptAt: at(30), lastStatus: 500, updatedAt: NOW }, found), true);

          const { lastError: _e, lastResponse: _r, ...kept } = d;
          assert.deepEqual(await store.get(d.id), { ...kept, state, attempts: 3, attemptSeq: 6, nextAttemptAt: at(30), lastStatus: 500, updatedAt: NOW });
        }));
      }

      it('a retry\'s hold is written as the row\'s leaseUntil; an outcome without one clears it', withStore(async (store) => {
        const again = waiting(dlv('unclaimed_hold'), { leaseUntil: at(-1) });
        const done = waiting(dlv('unclaimed_unhold'), { leaseUntil: at(-1) });
        await seed(store, again, done);

        assert.equal(await store.recordUnclaimed(attempted(again), { action: 'retry', attempts: 3, nextAttemptAt: at(20), heldUntil: at(80), updatedAt: NOW }, found), true);
        assert.equal(await store.recordUnclaimed(attempted(done), { action: 'succeed', attempts: 3, nextAttemptAt: NOW, updatedAt: NOW }, found), true);

        assert.deepEqual([(await store.get(again.id))!.leaseUntil, (await store.get(done.id))!.leaseUntil], [at(80), undefined]);
      }));

      it('a retry stays in the sweeper\'s view at its new due time; a success leaves it', withStore(async (store) => {
        const again = waiting(dlv('unclaimed_again'));
        const done = waiting(dlv('unclaimed_done'));
        await seed(store, again, done);

        assert.equal(await store.recordUnclaimed(attempted(again), { action: 'retry', attempts: 3, nextAttemptAt: at(-5), updatedAt: NOW }, found), true);
        assert.equal(await store.recordUnclaimed(attempted(done), { action: 'succeed', attempts: 3, nextAttemptAt: NOW, lastStatus: 200, updatedAt: NOW }, found), true);

        assert.deepEqual(await store.listDue(NOW, 100), [{ id: again.id, nextAttemptAt: at(-5) }]);
      }));

      it('refuses a row that moved since the retry was recorded (another attempt, a reschedule, a claim, an outcome), and changes nothing', withStore(async (store) => {
        const rows = [
          waiting(dlv('moved_seq'), { attemptSeq: 6 }),
          waiting(dlv('moved_due'), { nextAttemptAt: at(3600) }),
          inFlight(dlv('moved_claimed'), { attemptSeq: 5, nextAttemptAt: at(-10) }),
          waiting(dlv('moved_done'), { state: STATE.delivered }),
        ];
        await seed(store, ...rows);

        for (const row of rows) {
          assert.equal(await store.recordUnclaimed(attempted(row), { action: 'succeed', attempts: 3, nextAttemptAt: NOW, updatedAt: NOW }, found), false, row.id);
          assert.deepEqual(await store.get(row.id), row, row.id);
        }
        for (const id of [NEVER_CREATED, MALFORMED]) {
          assert.equal(await store.recordUnclaimed(attempted(waiting(id)), { action: 'succeed', attempts: 3, nextAttemptAt: NOW, updatedAt: NOW }, found), false, id);
          assert.equal(await store.get(id), undefined, id);
        }
      }));
    });

    describe('fresh rows (create with waiting: false)', () => {
      it('stay out of listDue until a write leaves the happy path: a claim, a reschedule or a retry brings them in', withStore(async (store) => {
        for (const id of [dlv('f_idle'), dlv('f_claim'), dlv('f_move'), dlv('f_retry')]) {
          assert.equal(await store.create(aDelivery({ id, attempts: 0, attemptSeq: 0, nextAttemptAt: at(-300) }), { waiting: false }), true);
        }
        assert.deepEqual(await store.listDue(NOW, 100), []);

        assert.equal((await store.claim(dlv('f_claim'), NOW, LEASE)).kind, 'claimed');
        assert.equal(await store.reschedule(dlv('f_move'), at(-300), at(-100), NOW), true);
        assert.equal(await store.recordFirst(aDelivery({ id: dlv('f_retry'), state: STATE.inFlight, attempts: 1, attemptSeq: 1 }), { action: 'retry', attempts: 1, nextAttemptAt: at(-50), updatedAt: NOW }), true);

        const due = (await store.listDue(NOW, 100)).map((d) => d.id).sort();
        assert.deepEqual(due, [dlv('f_claim'), dlv('f_move'), dlv('f_retry')].sort());
      }));
    });

    describe('reschedule', () => {
      it('moves a pending delivery still at the expected due time', withStore(async (store) => {
        const d = aDelivery({ id: dlv('r'), nextAttemptAt: at(-10) });
        await seed(store, d);

        assert.equal(await store.reschedule(dlv('r'), at(-10), at(3600), NOW), true);

        assert.deepEqual(await store.get(dlv('r')), { ...d, nextAttemptAt: at(3600), updatedAt: NOW });
      }));

      it('ends a recorded retry\'s hold: the delivery is claimable at its new due time', withStore(async (store) => {
        await seed(store, aDelivery({ id: dlv('r_held'), attempts: 1, attemptSeq: 1, nextAttemptAt: at(10), leaseUntil: at(60) }));

        assert.equal(await store.reschedule(dlv('r_held'), at(10), at(-1), NOW), true);

        assert.equal((await store.get(dlv('r_held')))!.leaseUntil, undefined);
        assert.equal((await store.claim(dlv('r_held'), NOW, LEASE)).kind, 'claimed');
      }));

      it('refuses when the due time changed meanwhile', withStore(async (store) => {
        const d = aDelivery({ id: dlv('r'), nextAttemptAt: at(-10) });
        await seed(store, d);

        assert.equal(await store.reschedule(dlv('r'), at(-20), at(3600), NOW), false);
        assert.deepEqual(await store.get(dlv('r')), d);
      }));

      it('refuses a delivery that is not pending', withStore(async (store) => {
        const d = inFlight(dlv('r'));
        await seed(store, d);

        assert.equal(await store.reschedule(dlv('r'), d.nextAttemptAt, at(3600), NOW), false);
        assert.deepEqual(await store.get(dlv('r')), d);
      }));
    });

    describe('release', () => {
      it('hands back an in-flight delivery whose lease ran out: pending, due now, same attempt number', withStore(async (store) => {
        const d = inFlight(dlv('stuck'), { leaseUntil: at(-1) });
        await seed(store, d);

        assert.equal(await store.release(dlv('stuck'), 5, NOW), true);

        const { leaseUntil: _l, ...rest } = d;
        assert.deepEqual(await store.get(dlv('stuck')), {
          ...rest,
          state: 'pending',
          nextAttemptAt: NOW,
          updatedAt: NOW,
          lastError: 'released: the worker holding this attempt stopped answering',
        });
      }));

      it('refuses while the lease has not expired yet (a worker still holds it)', withStore(async (store) => {
        const d = inFlight(dlv('busy'), { leaseUntil: at(1) });
        await seed(store, d);

        assert.equal(await store.release(dlv('busy'), 5, NOW), false);
        assert.equal(await store.release(dlv('busy'), 5, d.leaseUntil!), false, 'a lease ending exactly now still holds');
        assert.deepEqual(await store.get(dlv('busy')), d);
      }));

      it('refuses another attempt number, or a delivery not in flight', withStore(async (store) => {
        await seed(store, inFlight(dlv('old'), { leaseUntil: at(-1) }), aDelivery({ id: dlv('p'), leaseUntil: at(-1) }));

        assert.equal(await store.release(dlv('old'), 4, NOW), false);
        assert.equal(await store.release(dlv('p'), 0, NOW), false);
        assert.equal(await store.release(NEVER_CREATED, 0, NOW), false);
        assert.equal(await store.release(MALFORMED, 0, NOW), false);
      }));
    });

    describe('expire', () => {
      it('dead-letters a pending delivery still at the due time read, with the reason', withStore(async (store) => {
        const d = aDelivery({ id: dlv('late'), nextAttemptAt: at(-600), giveUpAt: at(-60), lastError: 'HTTP 503' });
        await seed(store, d);

        assert.equal(await store.expire(d, 'retry deadline passed', NOW), true);

        assert.deepEqual(await store.get(dlv('late')), { ...d, state: 'expired', lastError: 'retry deadline passed', updatedAt: NOW });
        assert.deepEqual((await store.listDeadLetters({ limit: 10 })).items.map((x) => x.id), [dlv('late')]);
        assert.deepEqual(await store.listDue(at(3600), 10), []);
      }));

      it('refuses when the due time moved, or the delivery is in flight or finished', withStore(async (store) => {
        const moved = aDelivery({ id: dlv('moved'), nextAttemptAt: at(-5) });
        const held = inFlight(dlv('held'), { leaseUntil: at(-1) });
        const done = aDelivery({ id: dlv('done'), state: 'delivered' });
        await seed(store, moved, held, done);

        assert.equal(await store.expire({ ...moved, nextAttemptAt: at(-600) }, 'r', NOW), false);
        assert.equal(await store.expire(held, 'r', NOW), false);
        assert.equal(await store.expire(done, 'r', NOW), false);
        assert.deepEqual(await store.getMany([dlv('moved'), dlv('held'), dlv('done')]), [moved, held, done]);
      }));
    });

    describe('replay', () => {
      for (const state of REPLAYABLE_STATES) {
        it(`brings ${an(state)} delivery back to pending: attempts 0, fresh deadline, same attempt number`, withStore(async (store) => {
          const d = aDelivery({ id: dlv('again', { subscriptionId: 'sub_rp' }), subscriptionId: 'sub_rp', state, attempts: 4, attemptSeq: 9, lastError: 'HTTP 500', lastStatus: 500, updatedAt: at(-3600) });
          await seed(store, d);

          const replayed = await store.replay(d.id, NOW, at(86_400), at(120));

          const { lastError: _e, ...rest } = d;
          const expected: Delivery = { ...rest, state: 'pending', attempts: 0, nextAttemptAt: at(120), giveUpAt: at(86_400), updatedAt: NOW };
          assert.deepEqual(replayed, expected);
          assert.deepEqual(await store.get(d.id), expected);
          assert.deepEqual((await store.listDeadLetters({ limit: 10, subscriptionId: 'sub_rp' })).items, [], 'out of the dead letters');
          assert.deepEqual(await store.listDue(at(121), 10), [{ id: dlv('again', { subscriptionId: 'sub_rp' }), nextAttemptAt: at(120) }], 'live again');
        }));
      }

      it('is due now when no re-attempt time is given', withStore(async (store) => {
        await seed(store, aDelivery({ id: dlv('now'), state: 'failed' }));

        assert.equal((await store.replay(dlv('now'), NOW, at(86_400)))!.nextAttemptAt, NOW);
      }));

      for (const state of ['pending', 'in_flight'] as const) {
        it(`refuses ${an(state)} delivery and changes nothing`, withStore(async (store) => {
          const d = aDelivery({ id: dlv('live'), state, attempts: 2, attemptSeq: 2 });
          await seed(store, d);

          assert.equal(await store.replay(dlv('live'), NOW, at(86_400)), undefined);
          assert.deepEqual(await store.get(dlv('live')), d);
        }));
      }

      it('refuses an unknown id', withStore(async (store) => {
        assert.equal(await store.replay(NEVER_CREATED, NOW, at(86_400)), undefined);
        assert.equal(await store.replay(MALFORMED, NOW, at(86_400)), undefined);
      }));
    });

    describe('listBySubscription', () => {
      const states: readonly DeliveryState[] = ['pending', 'failed', 'delivered', 'failed', 'in_flight', 'failed', 'expired'];
      const listed = (label: string, createdAt: string) => ({ id: dlv(label, { subscriptionId: 'sub_list', createdAt }), subscriptionId: 'sub_list', createdAt });
      const rows = states.map((state, i) => aDelivery({ ...listed(`s${i}`, at(-1000 + i * 10)), state }));
      const newestFirst = [...rows].reverse();
      const other = () => aDelivery({ id: dlv('other', { subscriptionId: 'sub_other', createdAt: at(-1) }), subscriptionId: 'sub_other', createdAt: at(-1) });

      it('lists one subscription\'s deliveries newest first, page by page', withStore(async (store) => {
        await seed(store, ...rows, other());

        for (const limit of [1, 3, 7, 100]) {
          const ids = await allPages((r) => store.listBySubscription({ ...r, subscriptionId: 'sub_list' }), limit);
          assert.deepEqual(ids, newestFirst.map((d) => d.id), `limit ${limit}`);
        }
        assert.deepEqual((await store.listBySubscription({ subscriptionId: 'sub_none', limit: 10 })).items, []);
      }));

      it('filters by state across pages, still newest first', withStore(async (store) => {
        await seed(store, ...rows);

        const failed = newestFirst.filter((d) => d.state === 'failed').map((d) => d.id);
        for (const limit of [1, 2, 5]) {
          assert.deepEqual(await allPages((r) => store.listBySubscription({ ...r, subscriptionId: 'sub_list', state: 'failed' }), limit), failed, `limit ${limit}`);
        }
        const first = await store.listBySubscription({ subscriptionId: 'sub_list', state: 'in_flight', limit: 10 });
        assert.deepEqual(first.items, [rows[4]]);
      }));

      it('lists them oldest first (publish order) with order: oldest, page by page', withStore(async (store) => {
        await seed(store, ...rows, other());

        for (const limit of [1, 3, 7, 100]) {
          const ids = await allPages((r) => store.listBySubscription({ ...r, subscriptionId: 'sub_list', order: 'oldest' }), limit);
          assert.deepEqual(ids, rows.map((d) => d.id), `limit ${limit}`);
        }
      }));

      it('gives each item the cursor that continues right after it, in either order, also among equal creation times', withStore(async (store) => {
        // Two of them created in the same instant, as the events of one publish batch are.
        const tied = [aDelivery(listed('t1', at(-995))), aDelivery(listed('t2', at(-995)))];
        await seed(store, ...rows, ...tied);

        for (const order of ['oldest', 'newest'] as const) {
          const whole = await store.listBySubscription({ subscriptionId: 'sub_list', order, limit: 100 });
          assert.equal(whole.items.length, rows.length + 2);
          assert.equal(whole.itemCursors.length, whole.items.length);
          for (const [i, cursor] of whole.itemCursors.entries()) {
            const rest = await store.listBySubscription({ subscriptionId: 'sub_list', order, limit: 100, cursor });
            assert.deepEqual(rest.items.map((d) => d.id), whole.items.slice(i + 1).map((d) => d.id), `${order}, after item ${i}`);
          }
          const failed = await store.listBySubscription({ subscriptionId: 'sub_list', order, state: 'failed', limit: 100, cursor: whole.itemCursors[0]! });
          assert.deepEqual(failed.items.map((d) => d.id), whole.items.slice(1).filter((d) => d.state === 'failed').map((d) => d.id), `${order}: a state filter from an item's cursor`);
        }
      }));

      it('refuses a cursor of another subscription\'s listing, and one it never issued', withStore(async (store) => {
        await seed(store, ...rows, other());
        const elsewhere = await store.listBySubscription({ subscriptionId: 'sub_other', limit: 1, order: 'oldest' });

        await assert.rejects(store.listBySubscription({ subscriptionId: 'sub_list', limit: 10, cursor: elsewhere.itemCursors[0]! }), InvalidCursorError);
        await assert.rejects(store.listBySubscription({ subscriptionId: 'sub_list', limit: 10, order: 'oldest', cursor: 'bm90LWEtY3Vyc29y' }), InvalidCursorError);
      }));
    });

    describe('listDeadLetters', () => {
      const A = { subscriptionId: 'sub_a' };
      const B = { subscriptionId: 'sub_b' };
      const rows = [
        aDelivery({ id: dlv('f1', A), ...A, state: 'failed', updatedAt: at(-5 * 86_400) }),
        aDelivery({ id: dlv('e1', B), ...B, state: 'expired', updatedAt: at(-2 * 86_400) }),
        aDelivery({ id: dlv('f2', A), ...A, state: 'failed', updatedAt: at(-3600) }),
        aDelivery({ id: dlv('e2', A), ...A, state: 'expired', updatedAt: at(-60) }),
        aDelivery({ id: dlv('f3', B), ...B, state: 'failed', updatedAt: at(-30) }),
        aDelivery({ id: dlv('ok', A), ...A, state: 'delivered', updatedAt: at(-10) }),
        aDelivery({ id: dlv('wait', A), ...A, state: 'pending', updatedAt: at(-10) }),
      ];

      it('lists failed and expired deliveries of every subscription, newest change first, across days and pages', withStore(async (store) => {
        await seed(store, ...rows);

        for (const limit of [1, 2, 10]) {
          assert.deepEqual(await allPages((r) => store.listDeadLetters(r), limit), [dlv('f3', B), dlv('e2', A), dlv('f2', A), dlv('e1', B), dlv('f1', A)], `limit ${limit}`);
        }
      }));

      it('lists one subscription\'s dead letters, newest change first, across pages', withStore(async (store) => {
        await seed(store, ...rows);

        for (const limit of [1, 2, 10]) {
          assert.deepEqual(await allPages((r) => store.listDeadLetters({ ...r, subscriptionId: 'sub_a' }), limit), [dlv('e2', A), dlv('f2', A), dlv('f1', A)], `limit ${limit}`);
        }
        assert.deepEqual((await store.listDeadLetters({ subscriptionId: 'sub_none', limit: 10 })).items, []);
      }));

      it('follows the writes: an attempt that fails enters, a replayed one leaves', withStore(async (store) => {
        const claimed = inFlight(dlv('new', A), A);
        await seed(store, rows[0]!, claimed);

        await store.complete(claimed, { action: 'fail_permanently', attempts: 2, nextAttemptAt: NOW, lastError: 'HTTP 404', updatedAt: NOW });
        assert.deepEqual((await store.listDeadLetters({ limit: 10, subscriptionId: 'sub_a' })).items.map((d) => d.id), [dlv('new', A), dlv('f1', A)]);

        await store.replay(dlv('f1', A), NOW, at(86_400));
        assert.deepEqual((await store.listDeadLetters({ limit: 10 })).items.map((d) => d.id), [dlv('new', A)]);
      }));
    });

    describe('listDue', () => {
      const rows = [
        aDelivery({ id: dlv('p1'), nextAttemptAt: at(-300) }),
        aDelivery({ id: dlv('p2'), nextAttemptAt: at(-10) }),
        inFlight(dlv('i1'), { nextAttemptAt: at(-200) }),
        aDelivery({ id: dlv('future'), nextAttemptAt: at(600) }),
        aDelivery({ id: dlv('edge'), nextAttemptAt: at(0) }),
        aDelivery({ id: dlv('done'), state: 'delivered', nextAttemptAt: at(-400) }),
        aDelivery({ id: dlv('dead'), state: 'failed', nextAttemptAt: at(-400) }),
      ];

      it('lists live deliveries due strictly before the cut-off, with their due time', withStore(async (store) => {
        await seed(store, ...rows);

        const due = await store.listDue(NOW, 100);

        // In no particular order: both sides sorted by id.
        const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
        assert.deepEqual([...due].sort(byId), [
          { id: dlv('i1'), nextAttemptAt: at(-200) },
          { id: dlv('p1'), nextAttemptAt: at(-300) },
          { id: dlv('p2'), nextAttemptAt: at(-10) },
        ].sort(byId));
      }));

      it('returns at most `limit`, all of them due', withStore(async (store) => {
        await seed(store, ...rows);

        const due = await store.listDue(NOW, 2);

        assert.equal(due.length, 2);
        for (const d of due) assert.ok([dlv('p1'), dlv('p2'), dlv('i1')].includes(d.id), d.id);
      }));
    });
  });
}
