/**
 * What every DeliveryStore must do, as cases any implementation can be run against: the
 * in-memory store the service tests use (test/unit/support/memory-delivery-store.test.ts) and
 * the DynamoDB adapter (test/integration/delivery-store-contract.test.ts). Each case gets a
 * fresh, empty store, seeds it through `seed` (which stores any row as given, an earlier
 * version's claimed rows too) and looks at the result only through the port, so both answer
 * the same questions the same way.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REPLAYABLE_STATES, STATE, type DeliveryState } from '#domain/states.ts';
import { expectationOf, NO_ROW, type Delivery, type InlineAttempt } from '#domain/types.ts';
import type { DeliveryStore, RowAction, SubscriptionPageRequest } from '#ports/delivery-store.ts';
import { InvalidCursorError, type Page, type PageRequest } from '#ports/page.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { aDelivery } from './fakes.ts';

export interface StoreUnderTest {
  readonly store: DeliveryStore;
  /** Stores a row exactly as given, bypassing `write`: fixtures in any state, an earlier version's rows. */
  seed(delivery: Delivery): Promise<void>;
  dispose(): Promise<void>;
}

/** Opens a fresh, empty store whose clock (where it has one, e.g. the dead-letter lookback) reads `nowMs`. */
export type OpenStore = (nowMs: number) => Promise<StoreUnderTest>;

export const NOW = '2024-05-01T12:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const at = (seconds: number) => new Date(NOW_MS + seconds * 1000).toISOString();
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

/** The state each outcome writes, spelled out here rather than taken from the domain. */
const OUTCOMES: ReadonlyArray<readonly [RowAction, DeliveryState]> = [
  ['succeed', 'delivered'],
  ['fail_permanently', 'failed'],
  ['retry', 'pending'],
  ['give_up', 'expired'],
];

/** An attempt as a row holds it inline. */
const attemptNo = (seq: number, status = 500): InlineAttempt => ({
  seq,
  attempt: seq,
  startedAt: at(-1),
  durationMs: 12,
  status,
  responseSnippet: `answer ${seq}`,
});

/** How many cases the contract has: each opens one store, which the runners check, so a lost case shows. */
export const CONTRACT_CASES = 46;

export function deliveryStoreContract(label: string, open: OpenStore): void {
  /** Runs `body` on a fresh store, disposing of it whatever happens. */
  const withStore =
    (body: (store: DeliveryStore, seed: (...d: Delivery[]) => Promise<void>) => Promise<void>) => async () => {
      const opened = await open(NOW_MS);
      try {
        await body(opened.store, async (...deliveries) => {
          for (const d of deliveries) await opened.seed(d);
        });
      } finally {
        await opened.dispose();
      }
    };
  /** A row as an earlier version left it claimed. */
  const inFlight = (id: string, overrides: Partial<Delivery> = {}) =>
    aDelivery({
      id,
      state: STATE.inFlight,
      attempts: 2,
      attemptSeq: 5,
      leaseUntil: at(40),
      lastError: 'HTTP 503',
      lastStatus: 503,
      lastResponse: 'busy',
      ...overrides,
    });
  /** A delivery after `seq` attempts, pending at its retry's due time, its latest attempt inline. */
  const retrying = (id: string, seq = 2, overrides: Partial<Delivery> = {}) =>
    aDelivery({
      id,
      attempts: seq,
      attemptSeq: seq,
      nextAttemptAt: at(-5),
      lastStatus: 500,
      lastError: 'HTTP 500',
      lastAttempt: attemptNo(seq),
      updatedAt: at(-60),
      ...overrides,
    });
  /** The row after one more attempt of `row`, as the sender builds it. */
  const after = (row: Delivery, action: RowAction, fields: Partial<Delivery> = {}): Delivery => ({
    ...row,
    state: OUTCOMES.find(([a]) => a === action)![1],
    attempts: row.attempts + 1,
    attemptSeq: row.attemptSeq + 1,
    lastAttempt: attemptNo(row.attemptSeq + 1, 200),
    lastStatus: 200,
    nextAttemptAt: NOW,
    updatedAt: NOW,
    ...fields,
  });

  describe(`DeliveryStore contract: ${label}`, () => {
    describe('get, getMany', () => {
      it(
        'reads back exactly what was stored, the last response from the latest attempt',
        withStore(async (store, seed) => {
          const d = retrying(dlv('c1'), 2, {
            tenantId: 'ten_1',
            headers: { 'content-type': 'application/json', 'x-extra': '1' },
          });
          await seed(d);

          assert.deepEqual(await store.get(dlv('c1')), { ...d, lastResponse: 'answer 2' });
          assert.equal(await store.get(NEVER_CREATED), undefined);
          assert.equal(await store.get(MALFORMED), undefined);
        }),
      );

      it(
        'getMany answers each known id once, in the order first asked, skipping unknown ones',
        withStore(async (store, seed) => {
          await seed(aDelivery({ id: dlv('a') }), aDelivery({ id: dlv('b') }), aDelivery({ id: dlv('c') }));

          const found = await store.getMany([dlv('c'), NEVER_CREATED, dlv('a'), MALFORMED, dlv('c')]);

          assert.deepEqual(
            found.map((d) => d.id),
            [dlv('c'), dlv('a')],
          );
          assert.deepEqual(await store.getMany([]), []);
          // An eventually consistent read answers the same once the writes have settled (here at once).
          assert.deepEqual(
            (await store.getMany([dlv('b'), dlv('a')], 'eventual')).map((d) => d.id),
            [dlv('b'), dlv('a')],
          );
        }),
      );
    });

    describe("write, expecting no row (a delivery's first write)", () => {
      for (const [action, state] of [...OUTCOMES, ['reschedule', 'pending'] as const]) {
        it(
          `${action}: writes the whole row in ${state}, where no row was`,
          withStore(async (store) => {
            const first = aDelivery({ id: dlv(`first-${action}`) });
            const row =
              action === 'reschedule' ? { ...first, nextAttemptAt: at(600), updatedAt: NOW } : after(first, action);

            assert.equal(await store.write(action, row, NO_ROW), true);

            assert.deepEqual(await store.get(row.id), {
              ...row,
              state,
              ...(row.lastAttempt ? { lastResponse: row.lastAttempt.responseSnippet } : {}),
            });
            // A wait's row has no attempt in it yet, so a first write may still go over it; an outcome's has one.
            assert.equal(await store.write(action, row, NO_ROW), action === 'reschedule', 'the second first write');
          }),
        );
      }

      it(
        "writes over a row written before any attempt (a wait's, the sweeper's rebuild): the attempt made is recorded",
        withStore(async (store, seed) => {
          const waiting = aDelivery({ id: dlv('waiting'), nextAttemptAt: at(600) });
          await seed(waiting);
          const row = after(aDelivery({ id: dlv('waiting') }), 'succeed');

          assert.equal(await store.write('succeed', row, NO_ROW), true);

          assert.deepEqual(
            [(await store.get(waiting.id))!.state, (await store.get(waiting.id))!.attemptSeq],
            ['delivered', 1],
          );
        }),
      );

      it(
        'refuses a row an attempt was recorded in, or one not pending, and changes nothing',
        withStore(async (store, seed) => {
          const attempted = retrying(dlv('attempted'), 1);
          await seed(attempted, inFlight(dlv('claimed')), aDelivery({ id: dlv('done'), state: STATE.failed }));

          assert.equal(
            await store.write('succeed', after(aDelivery({ id: dlv('attempted') }), 'succeed'), NO_ROW),
            false,
          );
          assert.equal(
            await store.write('succeed', after(aDelivery({ id: dlv('claimed') }), 'succeed'), NO_ROW),
            false,
          );
          assert.equal(await store.write('reschedule', aDelivery({ id: dlv('done') }), NO_ROW), false);
          assert.deepEqual(await store.get(attempted.id), { ...attempted, lastResponse: 'answer 1' });
        }),
      );
    });

    describe('write, expecting the row as written (every later write)', () => {
      for (const [action, state] of OUTCOMES) {
        it(
          `${action}: writes ${state} with the attempt's fields, from the row as expected`,
          withStore(async (store, seed) => {
            const row = retrying(dlv(`next-${action}`));
            await seed(row);
            const next = after(
              row,
              action,
              action === 'retry' ? { nextAttemptAt: at(60), lastStatus: 503, lastError: 'HTTP 503' } : {},
            );

            assert.equal(await store.write(action, next, expectationOf(row)), true);

            assert.deepEqual(await store.get(row.id), { ...next, state, lastResponse: 'answer 3' });
          }),
        );
      }

      it(
        'an outcome removes what its attempt did not give: no status after a timeout, no error after a success',
        withStore(async (store, seed) => {
          const row = retrying(dlv('clears'));
          await seed(row);
          const { lastStatus: _s, lastError: _e, ...timedOut } = after(row, 'succeed');

          assert.equal(await store.write('succeed', timedOut, expectationOf(row)), true);

          const stored = (await store.get(row.id))!;
          assert.equal(stored.lastStatus, undefined);
          assert.equal(stored.lastError, undefined);
        }),
      );

      it(
        "keeps what the writer did not know: a restore's marker, the tenant, the event",
        withStore(async (store, seed) => {
          const restored = { objectKey: 'deliveries/dt=2024-04-01/x.json.gz', until: at(86_400), updatedAt: at(-7200) };
          const row = retrying(dlv('restored'), 2, { restored, tenantId: 'acme' });
          await seed(row);
          const { restored: _r, tenantId: _t, ...unknowing } = row;

          assert.equal(await store.write('succeed', after(unknowing, 'succeed'), expectationOf(row)), true);

          const stored = (await store.get(row.id))!;
          assert.deepEqual([stored.restored, stored.tenantId, stored.state], [restored, 'acme', 'delivered']);
        }),
      );

      it(
        'writes the earlier attempts an outcome carries; one that carries none leaves the row its own',
        withStore(async (store, seed) => {
          const row = retrying(dlv('earlier'), 2, { earlierAttempts: [attemptNo(1)] });
          await seed(row);
          const longer = [attemptNo(1), attemptNo(2)];

          assert.equal(
            await store.write('retry', after(row, 'retry', { earlierAttempts: longer }), expectationOf(row)),
            true,
          );
          assert.deepEqual((await store.get(row.id))!.earlierAttempts, longer);

          const { earlierAttempts: _e, ...unknowing } = after(row, 'retry');
          assert.equal(
            await store.write('succeed', { ...unknowing, attemptSeq: 4 }, { row: 'as', attemptSeq: 3 }),
            true,
          );
          assert.deepEqual((await store.get(row.id))!.earlierAttempts, longer, "an earlier version's message");
        }),
      );

      it(
        'refuses a row at another attempt number, or not pending, and changes nothing',
        withStore(async (store, seed) => {
          const row = retrying(dlv('moved'));
          const done = retrying(dlv('done'), 2, { state: STATE.delivered });
          await seed(row, done, inFlight(dlv('claimed'), { attemptSeq: 2, nextAttemptAt: at(-5) }));

          assert.equal(await store.write('succeed', after(row, 'succeed'), { row: 'as', attemptSeq: 1 }), false);
          assert.equal(await store.write('succeed', after(done, 'succeed'), expectationOf(done)), false);
          assert.equal(
            await store.write(
              'succeed',
              after(retrying(dlv('claimed')), 'succeed'),
              expectationOf(retrying(dlv('claimed'))),
            ),
            false,
            "an earlier version's claim",
          );
          assert.equal(
            await store.write('succeed', after(retrying(NEVER_CREATED), 'succeed'), expectationOf(row)),
            false,
          );
          assert.deepEqual(await store.get(row.id), { ...row, lastResponse: 'answer 2' });
        }),
      );

      it(
        "records an attempt though its row's due time moved meanwhile (a wait, the sweeper's re-send)",
        withStore(async (store, seed) => {
          const row = retrying(dlv('rescheduled'));
          await seed({ ...row, nextAttemptAt: at(3600) });

          assert.equal(await store.write('succeed', after(row, 'succeed'), expectationOf(row)), true);

          assert.equal((await store.get(row.id))!.state, 'delivered');
        }),
      );

      it(
        'lets only one of two racing outcomes of the same expectation through',
        withStore(async (store, seed) => {
          const row = retrying(dlv('race'));
          await seed(row);

          const results = await Promise.all([
            store.write('succeed', after(row, 'succeed'), expectationOf(row)),
            store.write('retry', after(row, 'retry', { nextAttemptAt: at(30) }), expectationOf(row)),
          ]);

          assert.deepEqual(results.filter(Boolean).length, 1);
        }),
      );

      it(
        'reschedule moves the due time alone, keeping the last status and error',
        withStore(async (store, seed) => {
          const row = retrying(dlv('wait'));
          await seed(row);

          assert.equal(
            await store.write(
              'reschedule',
              { ...row, nextAttemptAt: at(3600), lastError: undefined, updatedAt: NOW },
              expectationOf(row),
            ),
            true,
          );

          assert.deepEqual(await store.get(row.id), {
            ...row,
            nextAttemptAt: at(3600),
            updatedAt: NOW,
            lastResponse: 'answer 2',
          });
          assert.deepEqual(
            await store.listDue(at(3601), 10),
            [{ id: row.id }],
            "in the sweeper's view at its new time",
          );
        }),
      );

      it(
        'retry_now makes the row due with its backoff and deadline afresh, its attempt number and last attempt kept; not once the row moved on',
        withStore(async (store, seed) => {
          const row = retrying(dlv('hurry'), 3, { nextAttemptAt: at(600) });
          const moved = retrying(dlv('moved'), 4);
          const done = aDelivery({ id: dlv('done-now'), state: STATE.delivered, attemptSeq: 3 });
          await seed(row, moved, done);
          const retried = (d: Delivery) => ({
            ...d,
            attempts: 0,
            nextAttemptAt: NOW,
            giveUpAt: at(3600),
            updatedAt: NOW,
          });

          assert.equal(await store.write('retry_now', retried(row), expectationOf(row)), true);
          assert.equal(await store.write('retry_now', retried(moved), { row: 'as', attemptSeq: 3 }), false);
          assert.equal(await store.write('retry_now', retried(done), expectationOf(done)), false, 'not from delivered');

          assert.deepEqual(await store.get(row.id), { ...retried(row), lastResponse: 'answer 3' });
          assert.deepEqual(await store.get(moved.id), { ...moved, lastResponse: 'answer 4' });
          assert.equal((await store.get(done.id))?.state, 'delivered');
          assert.deepEqual(
            (await store.listDue(at(1), 10)).map((d) => d.id).sort(),
            [row.id, moved.id].sort(),
            "in the sweeper's view, due now",
          );
        }),
      );

      it(
        'expire dead-letters with its reason, keeping the attempt fields',
        withStore(async (store, seed) => {
          const row = retrying(dlv('late'), 2, { giveUpAt: at(-60) });
          await seed(row);

          assert.equal(
            await store.write(
              'expire',
              { ...row, lastError: 'retry deadline passed', updatedAt: NOW },
              expectationOf(row),
            ),
            true,
          );

          assert.deepEqual(await store.get(row.id), {
            ...row,
            state: 'expired',
            lastError: 'retry deadline passed',
            updatedAt: NOW,
            lastResponse: 'answer 2',
          });
          assert.deepEqual(
            (await store.listDeadLetters({ limit: 10 })).items.map((x) => x.id),
            [row.id],
          );
          assert.deepEqual(await store.listDue(at(3600), 10), []);
        }),
      );

      it(
        "a first write of an earlier version's claimed-then-released row clears its lease and stored response",
        withStore(async (store, seed) => {
          const row = retrying(dlv('legacy'), 2, {
            leaseUntil: at(-100),
            lastResponse: 'stored',
            lastAttempt: undefined,
          });
          await seed(row);

          assert.equal(await store.write('succeed', after(row, 'succeed'), expectationOf(row)), true);

          const stored = (await store.get(row.id))!;
          assert.equal(stored.leaseUntil, undefined);
          assert.equal(stored.lastResponse, 'answer 3', 'read back from the new latest attempt');
        }),
      );
    });

    describe('release (a row an earlier version left claimed)', () => {
      it(
        'hands back an in-flight delivery whose lease ran out: pending, due now, same attempt number',
        withStore(async (store, seed) => {
          const d = inFlight(dlv('stuck'), { leaseUntil: at(-1) });
          await seed(d);

          assert.equal(await store.release(dlv('stuck'), 5, NOW), true);

          const { leaseUntil: _l, ...rest } = d;
          assert.deepEqual(await store.get(dlv('stuck')), {
            ...rest,
            state: 'pending',
            nextAttemptAt: NOW,
            updatedAt: NOW,
            lastError: 'released: the worker holding this attempt stopped answering',
          });
        }),
      );

      it(
        'refuses while the lease has not expired yet (a worker still holds it)',
        withStore(async (store, seed) => {
          const d = inFlight(dlv('busy'), { leaseUntil: at(1) });
          await seed(d);

          assert.equal(await store.release(dlv('busy'), 5, NOW), false);
          assert.equal(
            await store.release(dlv('busy'), 5, d.leaseUntil!),
            false,
            'a lease ending exactly now still holds',
          );
          assert.deepEqual(await store.get(dlv('busy')), d);
        }),
      );

      it(
        'refuses another attempt number, or a delivery not in flight',
        withStore(async (store, seed) => {
          await seed(inFlight(dlv('old'), { leaseUntil: at(-1) }), aDelivery({ id: dlv('p'), leaseUntil: at(-1) }));

          assert.equal(await store.release(dlv('old'), 4, NOW), false);
          assert.equal(await store.release(dlv('p'), 0, NOW), false);
          assert.equal(await store.release(NEVER_CREATED, 0, NOW), false);
          assert.equal(await store.release(MALFORMED, 0, NOW), false);
        }),
      );
    });

    describe('replay', () => {
      for (const state of REPLAYABLE_STATES) {
        it(
          `brings ${an(state)} delivery back to pending: attempts 0, fresh deadline, same attempt number`,
          withStore(async (store, seed) => {
            const d = aDelivery({
              id: dlv('again', { subscriptionId: 'sub_rp' }),
              subscriptionId: 'sub_rp',
              state,
              attempts: 4,
              attemptSeq: 9,
              lastError: 'HTTP 500',
              lastStatus: 500,
              updatedAt: at(-3600),
            });
            await seed(d);

            const replayed = await store.replay(d.id, NOW, at(86_400), at(120));

            const { lastError: _e, ...rest } = d;
            const expected: Delivery = {
              ...rest,
              state: 'pending',
              attempts: 0,
              nextAttemptAt: at(120),
              giveUpAt: at(86_400),
              updatedAt: NOW,
            };
            assert.deepEqual(replayed, expected);
            assert.deepEqual(await store.get(d.id), expected);
            assert.deepEqual(
              (await store.listDeadLetters({ limit: 10, subscriptionId: 'sub_rp' })).items,
              [],
              'out of the dead letters',
            );
            assert.deepEqual(
              await store.listDue(at(121), 10),
              [{ id: dlv('again', { subscriptionId: 'sub_rp' }) }],
              'live again',
            );
          }),
        );
      }

      it(
        'is due now when no re-attempt time is given',
        withStore(async (store, seed) => {
          await seed(aDelivery({ id: dlv('now'), state: 'failed' }));

          assert.equal((await store.replay(dlv('now'), NOW, at(86_400)))!.nextAttemptAt, NOW);
        }),
      );

      for (const state of ['pending', 'in_flight'] as const) {
        it(
          `refuses ${an(state)} delivery and changes nothing`,
          withStore(async (store, seed) => {
            const d = aDelivery({ id: dlv('live'), state, attempts: 2, attemptSeq: 2 });
            await seed(d);

            assert.equal(await store.replay(dlv('live'), NOW, at(86_400)), undefined);
            assert.deepEqual(await store.get(dlv('live')), d);
          }),
        );
      }

      it(
        'refuses an unknown id',
        withStore(async (store, _seed) => {
          assert.equal(await store.replay(NEVER_CREATED, NOW, at(86_400)), undefined);
          assert.equal(await store.replay(MALFORMED, NOW, at(86_400)), undefined);
        }),
      );
    });

    describe('listBySubscription', () => {
      const states: readonly DeliveryState[] = [
        'pending',
        'failed',
        'delivered',
        'failed',
        'in_flight',
        'failed',
        'expired',
      ];
      const listed = (label: string, createdAt: string) => ({
        id: dlv(label, { subscriptionId: 'sub_list', createdAt }),
        subscriptionId: 'sub_list',
        createdAt,
      });
      const rows = states.map((state, i) => aDelivery({ ...listed(`s${i}`, at(-1000 + i * 10)), state }));
      const newestFirst = [...rows].reverse();
      const other = () =>
        aDelivery({
          id: dlv('other', { subscriptionId: 'sub_other', createdAt: at(-1) }),
          subscriptionId: 'sub_other',
          createdAt: at(-1),
        });

      it(
        "lists one subscription's deliveries newest first, page by page",
        withStore(async (store, seed) => {
          await seed(...rows, other());

          for (const limit of [1, 3, 7, 100]) {
            const ids = await allPages((r) => store.listBySubscription({ ...r, subscriptionId: 'sub_list' }), limit);
            assert.deepEqual(
              ids,
              newestFirst.map((d) => d.id),
              `limit ${limit}`,
            );
          }
          assert.deepEqual((await store.listBySubscription({ subscriptionId: 'sub_none', limit: 10 })).items, []);
        }),
      );

      it(
        'filters by state across pages, still newest first',
        withStore(async (store, seed) => {
          await seed(...rows);

          const failed = newestFirst.filter((d) => d.state === 'failed').map((d) => d.id);
          for (const limit of [1, 2, 5]) {
            assert.deepEqual(
              await allPages(
                (r) => store.listBySubscription({ ...r, subscriptionId: 'sub_list', state: 'failed' }),
                limit,
              ),
              failed,
              `limit ${limit}`,
            );
          }
          const first = await store.listBySubscription({ subscriptionId: 'sub_list', state: 'in_flight', limit: 10 });
          assert.deepEqual(first.items, [rows[4]]);
        }),
      );

      it(
        'lists them oldest first (publish order) with order: oldest, page by page',
        withStore(async (store, seed) => {
          await seed(...rows, other());

          for (const limit of [1, 3, 7, 100]) {
            const ids = await allPages(
              (r) => store.listBySubscription({ ...r, subscriptionId: 'sub_list', order: 'oldest' }),
              limit,
            );
            assert.deepEqual(
              ids,
              rows.map((d) => d.id),
              `limit ${limit}`,
            );
          }
        }),
      );

      it(
        'gives each item the cursor that continues right after it, in either order, also among equal creation times',
        withStore(async (store, seed) => {
          // Two of them created in the same instant, as the events of one publish batch are.
          const tied = [aDelivery(listed('t1', at(-995))), aDelivery(listed('t2', at(-995)))];
          await seed(...rows, ...tied);

          for (const order of ['oldest', 'newest'] as const) {
            const whole = await store.listBySubscription({ subscriptionId: 'sub_list', order, limit: 100 });
            assert.equal(whole.items.length, rows.length + 2);
            assert.equal(whole.itemCursors.length, whole.items.length);
            for (const [i, cursor] of whole.itemCursors.entries()) {
              const rest = await store.listBySubscription({ subscriptionId: 'sub_list', order, limit: 100, cursor });
              assert.deepEqual(
                rest.items.map((d) => d.id),
                whole.items.slice(i + 1).map((d) => d.id),
                `${order}, after item ${i}`,
              );
            }
            const failed = await store.listBySubscription({
              subscriptionId: 'sub_list',
              order,
              state: 'failed',
              limit: 100,
              cursor: whole.itemCursors[0]!,
            });
            assert.deepEqual(
              failed.items.map((d) => d.id),
              whole.items
                .slice(1)
                .filter((d) => d.state === 'failed')
                .map((d) => d.id),
              `${order}: a state filter from an item's cursor`,
            );
          }
        }),
      );

      const TYPES = [
        'order.created',
        'order.paid',
        'order.created',
        'order.created',
        'order.paid',
        'order.created',
        'order.paid',
      ];
      const typed = rows.map((d, i) => ({ ...d, eventType: TYPES[i]! }));
      type Filter = Omit<SubscriptionPageRequest, 'subscriptionId' | 'limit' | 'cursor' | 'order'>;
      /** Every page of the filtered listing, in `order`. */
      const filtered = (store: DeliveryStore, filter: Filter, order: 'newest' | 'oldest', limit: number) =>
        allPages((r) => store.listBySubscription({ ...r, ...filter, subscriptionId: 'sub_list', order }), limit);

      it(
        'filters by event type and by creation time (both ends included), alone and with a state, page by page in either order',
        withStore(async (store, seed) => {
          await seed(...typed, { ...other(), eventType: 'order.created' });
          // What each filter means, spelled out here rather than taken from the domain.
          const cases: ReadonlyArray<readonly [string, Filter, (d: Delivery) => boolean]> = [
            ['a type', { eventType: 'order.created' }, (d) => d.eventType === 'order.created'],
            ['since', { since: at(-980) }, (d) => d.createdAt >= at(-980)],
            ['until', { until: at(-960) }, (d) => d.createdAt <= at(-960)],
            [
              'a range',
              { since: at(-980), until: at(-960) },
              (d) => d.createdAt >= at(-980) && d.createdAt <= at(-960),
            ],
            [
              'all four',
              { state: 'failed', eventType: 'order.created', since: at(-990), until: at(-950) },
              (d) =>
                d.state === 'failed' &&
                d.eventType === 'order.created' &&
                d.createdAt >= at(-990) &&
                d.createdAt <= at(-950),
            ],
            ['a range with none in it', { since: at(-500) }, () => false],
            ['a type nobody sent', { eventType: 'order.refunded' }, () => false],
          ];
          for (const [what, filter, keeps] of cases) {
            const expected = typed.filter(keeps).map((d) => d.id);
            assert.ok(what.includes('none') || what.includes('nobody') || expected.length > 0, `${what} keeps some`);
            for (const limit of [1, 2, 5]) {
              assert.deepEqual(
                await filtered(store, filter, 'oldest', limit),
                expected,
                `${what}, oldest, limit ${limit}`,
              );
              assert.deepEqual(
                await filtered(store, filter, 'newest', limit),
                [...expected].reverse(),
                `${what}, newest, limit ${limit}`,
              );
            }
          }
          const range = { eventType: 'order.created', since: at(-1000), until: at(-950) };
          const whole = await store.listBySubscription({ ...range, subscriptionId: 'sub_list', limit: 100 });
          for (const [i, cursor] of whole.itemCursors.entries()) {
            const rest = await store.listBySubscription({ ...range, subscriptionId: 'sub_list', limit: 100, cursor });
            assert.deepEqual(
              rest.items.map((d) => d.id),
              whole.items.slice(i + 1).map((d) => d.id),
              `a filtered listing after item ${i}`,
            );
          }
        }),
      );

      it(
        "lists a row that does not keep its event type (an earlier version's) under any type filter, for its reader to settle",
        withStore(async (store, seed) => {
          const earlier = aDelivery({ ...listed('earlier', at(-985)), state: 'delivered' });
          assert.equal(earlier.eventType, undefined);
          await seed(...typed, earlier);

          const paid = [...typed.filter((d) => d.eventType === 'order.paid'), earlier]
            .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
            .map((d) => d.id);
          assert.deepEqual(await filtered(store, { eventType: 'order.paid' }, 'newest', 2), paid);
          assert.deepEqual(await filtered(store, { eventType: 'order.paid', state: 'pending' }, 'newest', 2), []);
          assert.deepEqual(await filtered(store, { eventType: 'order.paid', since: at(-980) }, 'newest', 2), [
            typed[6]!.id,
            typed[4]!.id,
          ]);
        }),
      );

      it(
        "refuses a cursor of another subscription's listing, and one it never issued",
        withStore(async (store, seed) => {
          await seed(...rows, other());
          const elsewhere = await store.listBySubscription({ subscriptionId: 'sub_other', limit: 1, order: 'oldest' });

          await assert.rejects(
            store.listBySubscription({ subscriptionId: 'sub_list', limit: 10, cursor: elsewhere.itemCursors[0]! }),
            InvalidCursorError,
          );
          await assert.rejects(
            store.listBySubscription({
              subscriptionId: 'sub_list',
              limit: 10,
              order: 'oldest',
              cursor: 'bm90LWEtY3Vyc29y',
            }),
            InvalidCursorError,
          );
        }),
      );
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

      it(
        'lists failed and expired deliveries of every subscription, newest change first, across days and pages',
        withStore(async (store, seed) => {
          await seed(...rows);

          for (const limit of [1, 2, 10]) {
            assert.deepEqual(
              await allPages((r) => store.listDeadLetters(r), limit),
              [dlv('f3', B), dlv('e2', A), dlv('f2', A), dlv('e1', B), dlv('f1', A)],
              `limit ${limit}`,
            );
          }
        }),
      );

      it(
        "lists one subscription's dead letters, newest change first, across pages",
        withStore(async (store, seed) => {
          await seed(...rows);

          for (const limit of [1, 2, 10]) {
            assert.deepEqual(
              await allPages((r) => store.listDeadLetters({ ...r, subscriptionId: 'sub_a' }), limit),
              [dlv('e2', A), dlv('f2', A), dlv('f1', A)],
              `limit ${limit}`,
            );
          }
          assert.deepEqual((await store.listDeadLetters({ subscriptionId: 'sub_none', limit: 10 })).items, []);
        }),
      );

      it(
        'follows the writes: an attempt that fails enters, a replayed one leaves',
        withStore(async (store, seed) => {
          const waiting = retrying(dlv('new', A), 2, A);
          await seed(rows[0]!, waiting);

          await store.write(
            'fail_permanently',
            after(waiting, 'fail_permanently', { lastStatus: 404, lastError: 'HTTP 404' }),
            expectationOf(waiting),
          );
          assert.deepEqual(
            (await store.listDeadLetters({ limit: 10, subscriptionId: 'sub_a' })).items.map((d) => d.id),
            [dlv('new', A), dlv('f1', A)],
          );

          await store.replay(dlv('f1', A), NOW, at(86_400));
          assert.deepEqual(
            (await store.listDeadLetters({ limit: 10 })).items.map((d) => d.id),
            [dlv('new', A)],
          );
        }),
      );
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

      // In no particular order: both sides sorted by id.
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

      it(
        'lists live deliveries due before the cut-off; each row keeps its own instant',
        withStore(async (store, seed) => {
          await seed(...rows);

          const due = await store.listDue(NOW, 100);

          assert.deepEqual([...due].sort(byId), [{ id: dlv('i1') }, { id: dlv('p1') }, { id: dlv('p2') }].sort(byId));
          assert.deepEqual(
            (await store.getMany([dlv('p2'), dlv('i1')])).map((d) => d.nextAttemptAt),
            [at(-10), at(-200)],
            'the row keeps its own instant',
          );
        }),
      );

      it(
        'may list one due later within a minute that started before the cut-off (the caller reads it), never one of a later minute',
        withStore(async (store, seed) => {
          await seed(...rows);

          const due = await store.listDue(at(-30), 100);

          assert.deepEqual(
            due.map((d) => d.id).sort(),
            [dlv('i1'), dlv('p1'), dlv('p2')].sort(),
            'p2 is due at -10 s: after the cut-off, in its minute',
          );
          assert.deepEqual((await store.listDue(at(-60), 100)).map((d) => d.id).sort(), [dlv('i1'), dlv('p1')].sort());
        }),
      );

      it(
        'returns at most `limit`, all of them due',
        withStore(async (store, seed) => {
          await seed(...rows);

          const due = await store.listDue(NOW, 2);

          assert.equal(due.length, 2);
          for (const d of due) assert.ok([dlv('p1'), dlv('p2'), dlv('i1')].includes(d.id), d.id);
        }),
      );
    });
  });
}
