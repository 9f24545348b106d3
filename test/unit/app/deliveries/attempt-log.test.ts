import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import { attemptPage } from '#app/deliveries/deliveries.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { NotFoundError } from '#app/errors.ts';
import { route } from '#handlers/api/router.ts';
import { MAX_EVENT_BYTES } from '#app/parse.ts';
import { STATE } from '#domain/states.ts';
import type { Delivery } from '#domain/types.ts';
import { aDelivery, aSubscription, fakeDeps, SEEDED_TTL } from '#test/fakes.ts';

const ATTEMPTS = 2000;
const GLOBEX: Principal = { role: 'tenant', tenantId: 'globex', keyId: 'key_g' };

/** A delivery that a tenant kept resending: 2000 attempts, each with the largest snippet and a long error, and the largest body. */
async function busyDelivery() {
  const deps = fakeDeps();
  deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', tenantId: 'acme' }));
  deps.deliveries.put(
    aDelivery({
      id: 'dlv_busy',
      subscriptionId: 'sub_1',
      tenantId: 'acme',
      state: STATE.failed,
      attempts: ATTEMPTS,
      attemptSeq: ATTEMPTS,
    }),
  );
  deps.events.items.set('evt_1', {
    id: 'evt_1',
    type: 'a.b',
    body: JSON.stringify({ data: 'x'.repeat(MAX_EVENT_BYTES - 20) }),
    subscriptionIds: ['sub_1'],
    deliveryIds: ['dlv_busy'],
    createdAt: '2024-05-01T12:00:00.000Z',
  });
  for (let seq = 1; seq <= ATTEMPTS; seq++) {
    await deps.attempts.put(
      {
        deliveryId: 'dlv_busy',
        seq,
        attempt: ((seq - 1) % 10) + 1,
        startedAt: new Date(Date.parse('2024-05-01T12:00:00.000Z') + seq * 1000).toISOString(),
        durationMs: 30,
        status: 500,
        responseSnippet: 'r'.repeat(512),
        error: 'e'.repeat(1000),
      },
      SEEDED_TTL,
    );
  }
  const call = (path: string, query: Record<string, string> = {}, principal: Principal = ADMIN) =>
    route(deps as unknown as FunctionDeps<'api'>, { method: 'GET', path, query, body: null, principal });
  return { deps, call };
}

type Log = { attemptLog: { seq: number }[]; attemptLogNextCursor: string | null };

describe('the attempt log of a delivery', () => {
  it(`with ${ATTEMPTS} attempts: the detail shows the latest 50 (oldest first), a cursor for more, and stays far below 6 MB`, async () => {
    const { call } = await busyDelivery();

    const detail = await call('/v1/deliveries/dlv_busy');

    const body = detail.body as Log;
    assert.deepEqual(
      body.attemptLog.map((a) => a.seq),
      Array.from({ length: 50 }, (_, i) => ATTEMPTS - 49 + i),
    );
    assert.equal(typeof body.attemptLogNextCursor, 'string');
    const bytes = Buffer.byteLength(JSON.stringify(detail.body));
    assert.ok(bytes < 1024 * 1024, `detail is ${bytes} bytes`);
  });

  it('GET /v1/deliveries/{id}/attempts pages back through every attempt, each page oldest first', async () => {
    const { call } = await busyDelivery();
    const seen: number[] = [];
    let cursor = ((await call('/v1/deliveries/dlv_busy')).body as Log).attemptLogNextCursor;
    let pages = 0;
    while (cursor) {
      const page = (await call('/v1/deliveries/dlv_busy/attempts', { cursor, limit: '100' })).body as {
        items: { seq: number }[];
        nextCursor: string | null;
      };
      const seqs = page.items.map((a) => a.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'oldest first within a page',
      );
      seen.unshift(...seqs);
      cursor = page.nextCursor;
      pages++;
    }
    assert.equal(pages, Math.ceil((ATTEMPTS - 50) / 100));
    assert.deepEqual(
      seen,
      Array.from({ length: ATTEMPTS - 50 }, (_, i) => i + 1),
    );

    const first = (await call('/v1/deliveries/dlv_busy/attempts', { limit: '10' })).body as {
      items: { seq: number }[];
    };
    assert.deepEqual(
      first.items.map((a) => a.seq),
      Array.from({ length: 10 }, (_, i) => ATTEMPTS - 9 + i),
      'without a cursor: the latest',
    );
  });

  it("another tenant's delivery attempts are not found", async () => {
    const { call } = await busyDelivery();
    await assert.rejects(call('/v1/deliveries/dlv_busy/attempts', {}, GLOBEX), NotFoundError);
  });
});

describe('attemptPage over what the row holds and the table', () => {
  const inline = (seq: number) => ({
    seq,
    attempt: seq,
    startedAt: new Date(Date.parse('2024-05-01T12:00:00.000Z') + seq * 1000).toISOString(),
    durationMs: 5,
    status: 500,
  });

  /** Every page from the newest, as the API hands them out: each page's seqs. */
  async function pages(deps: ReturnType<typeof fakeDeps>, delivery: Delivery, limit: number) {
    const out: number[][] = [];
    let cursor: string | undefined;
    do {
      const page = await attemptPage(deps, delivery, { limit, ...(cursor ? { cursor } : {}) });
      out.push(page.items.map((a) => a.seq));
      cursor = page.nextCursor;
    } while (cursor && out.length < 20);
    return out;
  }

  it('the older inline attempts end the log: every attempt once, each page oldest first, at any page size', async () => {
    const deps = fakeDeps();
    for (const seq of [3, 4]) await deps.attempts.put({ deliveryId: 'dlv_1', ...inline(seq) }, SEEDED_TTL);
    const delivery = aDelivery({
      id: 'dlv_1',
      attemptSeq: 5,
      earlierAttempts: [inline(1), inline(2)],
      lastAttempt: inline(5),
    });

    assert.deepEqual(await pages(deps, delivery, 2), [[4, 5], [2, 3], [1]]);
    assert.deepEqual(await pages(deps, delivery, 1), [[5], [4], [3], [2], [1]]);
    assert.deepEqual(await pages(deps, delivery, 50), [[1, 2, 3, 4, 5]]);
  });

  it('does not query the table when the row holds every attempt', async () => {
    const deps = fakeDeps();
    let queries = 0;
    const latest = deps.attempts.latest.bind(deps.attempts);
    deps.attempts.latest = (id, request) => (queries++, latest(id, request));
    const delivery = aDelivery({
      id: 'dlv_1',
      attemptSeq: 3,
      earlierAttempts: [inline(1), inline(2)],
      lastAttempt: inline(3),
    });

    assert.deepEqual(await pages(deps, delivery, 2), [[2, 3], [1]]);
    assert.equal(queries, 0);
  });
});
