import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN } from '#app/access.ts';
import { FAILING_SCAN_ROWS } from '#app/subscriptions/subscription-request.ts';
import { listSubscriptions } from '#app/subscriptions/subscriptions.ts';
import { aSubscription, InMemorySubscriptionStore } from '#test/fakes.ts';

const SINCE = '2026-12-04T10:00:00.000Z';

/** `total` subscriptions, every `every`-th failing (a dead-letter streak). */
function storeOf(total: number, every: number): InMemorySubscriptionStore {
  const store = new InMemorySubscriptionStore();
  for (let i = 0; i < total; i++) {
    const id = `sub_${String(i).padStart(5, '0')}`;
    store.items.set(
      id,
      aSubscription({ id, ...(i % every === 0 ? { deadLetteringSince: SINCE, deadLetterStreak: 2 } : {}) }),
    );
  }
  return store;
}

/** Every page of the failing listing, and how many there were. */
async function everyPage(store: InMemorySubscriptionStore, limit: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await listSubscriptions({ subscriptions: store }, ADMIN, {
      limit,
      failing: true,
      ...(cursor ? { cursor } : {}),
    });
    ids.push(...page.items.map((s) => s.id));
    sizes.push(page.items.length);
    cursor = page.nextCursor;
  } while (cursor);
  return { ids, sizes };
}

describe('listSubscriptions with failing', () => {
  it('keeps every failing one across pages, none twice, no page over its limit', async () => {
    const store = storeOf(250, 7);
    const { ids, sizes } = await everyPage(store, 10);
    const expected = [...store.items.values()].filter((s) => s.deadLetteringSince).map((s) => s.id);
    assert.deepEqual(ids.sort(), expected.sort());
    assert.ok(sizes.every((n) => n <= 10));
  });

  it(`reads at most ${FAILING_SCAN_ROWS} rows a request, answering what it found with a cursor`, async () => {
    const store = storeOf(FAILING_SCAN_ROWS * 2 + 5, FAILING_SCAN_ROWS * 10);
    let read = 0;
    const list = store.list.bind(store);
    store.list = async (request) => {
      const page = await list(request);
      read += page.items.length;
      return page;
    };
    const first = await listSubscriptions({ subscriptions: store }, ADMIN, { limit: 100, failing: true });
    assert.equal(read, FAILING_SCAN_ROWS);
    assert.deepEqual(
      first.items.map((s) => s.id),
      ['sub_00000'],
    );
    assert.ok(first.nextCursor, 'more to read');
    const { ids, sizes } = await everyPage(store, 100);
    assert.deepEqual(ids, ['sub_00000']);
    assert.deepEqual(sizes, [1, 0, 0], 'a page may be empty and still have a cursor');
  });

  it('lists every subscription without it', async () => {
    const page = await listSubscriptions({ subscriptions: storeOf(30, 7) }, ADMIN, { limit: 100 });
    assert.equal(page.items.length, 30);
  });
});
