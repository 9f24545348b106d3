import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/**
 * `GET /v1/deliveries` narrowed by state, event type and creation time, over HTTP against the
 * local runtime (real handlers, dynalite, fauxqs): every page of a filtered listing together is
 * exactly the filter applied to the whole listing, in order, nothing skipped or repeated; a
 * tenant key filters its own; a bad filter is a 400 naming it.
 */

interface Row {
  readonly id: string;
  readonly eventType: string | null;
  readonly state: string;
  readonly createdAt: string;
}

/** Every page of `query`, `limit` at a time, following nextCursor with the same filters. */
async function walk(api: ApiClient, query: string, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res: { status: number; body: any } = await api.get(
      `/v1/deliveries?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.items.length <= limit);
    rows.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return rows;
  }
  throw new Error('paging does not end');
}

describe('GET /v1/deliveries, filtered', () => {
  let stack: LocalStack;
  let acme: ApiClient;
  let sub = '';
  /** Three publishes, each its own creation time: created (delivered), paid (failed), created again (delivered). */
  const batches = { first: [] as string[], paid: [] as string[], last: [] as string[] };
  let all: Row[] = [];
  const q = (filters: string) => `subscriptionId=${sub}${filters}`;

  before(async () => {
    stack = await startLocalStack();
    sub = (await stack.subscribe('/filtered', { eventTypes: ['shop.*'], tenantId: 'acme' })).id;
    acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
    const publish = async (type: string, n: number) => {
      const res = await stack.api.post('/v1/events/batch', {
        events: Array.from({ length: n }, (_, i) => ({ type, payload: { i }, tenantId: 'acme' })),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const ids = res.body.items.flatMap((item: { deliveryIds: string[] }) => item.deliveryIds) as string[];
      for (const id of ids) await stack.waitForState(id, ['delivered', 'failed']);
      return ids;
    };
    stack.receiver.script('/filtered', [], { status: 200 });
    batches.first = await publish('shop.order.created', 4);
    // A 400 is final: these dead-letter at their first attempt.
    stack.receiver.script('/filtered', [], { status: 400, body: '{"error":"no"}' });
    batches.paid = await publish('shop.order.paid', 5);
    stack.receiver.script('/filtered', [], { status: 200 });
    batches.last = await publish('shop.order.created', 3);
    all = await walk(stack.api, q(''), 100);
  });
  after(() => stack.stop());

  it('says each row’s event type, and lists them newest first by creation', async () => {
    assert.equal(all.length, 12);
    const typeOf = new Map(all.map((d) => [d.id, d.eventType]));
    for (const id of [...batches.first, ...batches.last]) assert.equal(typeOf.get(id), 'shop.order.created');
    for (const id of batches.paid) assert.equal(typeOf.get(id), 'shop.order.paid');
    const times = all.map((d) => d.createdAt);
    assert.deepEqual(times, [...times].sort().reverse());
    const created = (ids: string[]) => new Set(all.filter((d) => ids.includes(d.id)).map((d) => d.createdAt));
    assert.equal(created(batches.paid).size, 1, 'a batch is published at one instant');
    assert.ok([...created(batches.first)][0]! < [...created(batches.paid)][0]!);
    assert.ok([...created(batches.paid)][0]! < [...created(batches.last)][0]!);
  });

  it('every page together is the filter applied to the whole listing: nothing skipped, nothing twice', async () => {
    const paidAt = all.find((d) => d.id === batches.paid[0])!.createdAt;
    const firstAt = all.find((d) => d.id === batches.first[0])!.createdAt;
    const cases: ReadonlyArray<readonly [string, (d: Row) => boolean]> = [
      ['&eventType=shop.order.paid', (d) => d.eventType === 'shop.order.paid'],
      ['&eventType=shop.order.created', (d) => d.eventType === 'shop.order.created'],
      ['&state=failed', (d) => d.state === 'failed'],
      [`&since=${encodeURIComponent(paidAt)}`, (d) => d.createdAt >= paidAt],
      [`&until=${encodeURIComponent(paidAt)}`, (d) => d.createdAt <= paidAt],
      [`&since=${encodeURIComponent(paidAt)}&until=${encodeURIComponent(paidAt)}`, (d) => d.createdAt === paidAt],
      [
        `&eventType=shop.order.created&since=${encodeURIComponent(firstAt)}&until=${encodeURIComponent(paidAt)}`,
        (d) => d.eventType === 'shop.order.created' && d.createdAt <= paidAt,
      ],
      ['&eventType=shop.order.paid&state=delivered', () => false],
      ['&eventType=shop.order.refunded', () => false],
      ['&since=2999-01-01', () => false],
    ];
    for (const [filters, keeps] of cases) {
      const expected = all.filter(keeps).map((d) => d.id);
      for (const limit of [1, 2, 5]) {
        const ids = (await walk(stack.api, q(filters), limit)).map((d) => d.id);
        assert.deepEqual(ids, expected, `${filters}, pages of ${limit}`);
      }
    }
    assert.deepEqual(
      new Set((await walk(stack.api, q('&eventType=shop.order.paid&state=failed'), 2)).map((d) => d.id)),
      new Set(batches.paid),
    );
  });

  it("filters a tenant's own subscription with its key; another tenant's is not found, filtered or not", async () => {
    const rows = await walk(acme, q('&eventType=shop.order.paid'), 3);
    assert.deepEqual(new Set(rows.map((d) => d.id)), new Set(batches.paid));
    const other = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/globex/keys')).body.key);
    assert.equal((await other.get(`/v1/deliveries?${q('&eventType=shop.order.paid')}`)).status, 404);
  });

  it('refuses a bad filter with a 400 naming it', async () => {
    const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
      ['&since=2024-05-02&until=2024-05-01', 'until', /must not be before since/],
      ['&since=yesterday', 'since', /ISO 8601/],
      ['&until=2024-02-30', 'until', /ISO 8601/],
      ['&since=2024-05-01T10:00:00', 'since', /zone/],
      ['&state=lost', 'state', /must be one of/],
      ['&eventType=shop%20order', 'eventType', /letters, digits/],
      ['&since=2024-05-01&since=2024-05-02', 'since', /at most once/],
    ];
    for (const [filters, field, rule] of cases) {
      const res = await stack.api.get(`/v1/deliveries?${q(filters)}`);
      assert.equal(res.status, 400, `${filters}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid_request', filters);
      assert.match(res.body.error.message, new RegExp(`^${field}: `), filters);
      assert.match(res.body.error.message, rule, filters);
    }
  });
});
