import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { FAST_RETRY_POLICY, startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/** Two tries a second apart: a 503 endpoint expires its delivery in about a second. */
const TWO_TRIES = { ...FAST_RETRY_POLICY, maxAttempts: 2 };

/**
 * `GET /v1/subscriptions?failing=true` on the local runtime over HTTP: the subscriptions in a
 * dead-letter streak, whatever their state but deleted, across every page of the table; a
 * tenant key its own only; a bad value a 400 naming `failing`.
 */
describe('GET /v1/subscriptions?failing=true on the local runtime', () => {
  let stack: LocalStack;
  const ids = { down: '', refused: '', healthy: '', deleted: '' };

  /** Every id of the listing, page after page. */
  const listed = async (query: string, api = stack.api) => {
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const res = await api.get(`/v1/subscriptions?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      cursor = res.body.nextCursor ?? '';
      pages++;
    } while (cursor);
    return { ids: seen, pages };
  };

  /** One delivery to `id` settled in one of `states`, then its streak written. */
  const deadLetter = async (type: string, tenantId: string, id: string, states: readonly string[]) => {
    const [deliveryId] = (await stack.publish(type, {}, undefined, { tenantId })).deliveryIds;
    await stack.waitForState(deliveryId!, states);
    return waitFor(`${id}'s dead-letter streak`, async () => {
      const body = (await stack.api.get(`/v1/subscriptions/${id}`)).body;
      return body.deadLetterStreak >= 1 ? body : undefined;
    });
  };

  before(async () => {
    stack = await startLocalStack();
    stack.receiver.script('/down', [], { status: 503, body: 'down' });
    stack.receiver.script('/refused', [], { status: 400, body: 'no' });
    stack.receiver.script('/healthy', [], { status: 200 });
    stack.receiver.script('/deleted', [], { status: 400, body: 'no' });
    const sub = async (path: string, tenantId: string) =>
      (await stack.subscribe(path, { tenantId, eventTypes: [`${path.slice(1)}.*`], retryPolicy: TWO_TRIES })).id;
    ids.down = await sub('/down', 'acme');
    ids.refused = await sub('/refused', 'globex');
    ids.healthy = await sub('/healthy', 'acme');
    ids.deleted = await sub('/deleted', 'globex');
    await deadLetter('down.x', 'acme', ids.down, ['expired']);
    await deadLetter('refused.x', 'globex', ids.refused, ['failed']);
    await deadLetter('deleted.x', 'globex', ids.deleted, ['failed']);
    const [ok] = (await stack.publish('healthy.x', {}, undefined, { tenantId: 'acme' })).deliveryIds;
    await stack.waitForState(ok!, ['delivered']);
    // Failing whatever its state: a paused one is listed; a deleted one is history, not failing.
    assert.equal((await stack.api.post(`/v1/subscriptions/${ids.refused}/pause`, { reason: 'ops' })).status, 200);
    assert.equal((await stack.api.delete(`/v1/subscriptions/${ids.deleted}`)).status, 200);
  });
  after(() => stack.stop());

  it('lists the failing ones only, whatever their state but deleted, and the whole listing without it', async () => {
    const failing = await listed('failing=true&limit=100');
    assert.deepEqual(new Set(failing.ids), new Set([ids.down, ids.refused]));
    const all = await listed('failing=false&limit=100');
    for (const id of Object.values(ids)) assert.ok(all.ids.includes(id), `${id} in the whole listing`);
    const [row] = (await stack.api.get(`/v1/subscriptions?failing=true&limit=100`)).body.items.filter(
      (s: { id: string }) => s.id === ids.refused,
    );
    assert.equal(row.state, 'paused');
    assert.ok(row.deadLetteringSince);
    assert.equal(row.deadLetterStreak, 1);
  });

  it('pages through the table without skipping one: pages of one hold one failing subscription or none', async () => {
    const paged = await listed('failing=true&limit=1');
    assert.deepEqual(paged.ids.sort(), [ids.down, ids.refused].sort());
    assert.ok(paged.pages >= 2, `${paged.pages} pages`);
  });

  it("gives a tenant key its own tenant's failing ones only, whatever tenant it asks for", async () => {
    const acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
    assert.deepEqual((await listed('failing=true', acme)).ids, [ids.down]);
    assert.deepEqual((await listed('failing=true&tenantId=globex', acme)).ids, [ids.down]);
    assert.deepEqual((await listed('failing=true&tenantId=globex')).ids, [ids.refused]);
  });

  it('refuses a value that is not true or false with a 400 naming failing', async () => {
    for (const value of ['yes', '1', 'TRUE', '']) {
      const res = await stack.api.get(`/v1/subscriptions?failing=${value}`);
      assert.equal(res.status, 400, `failing=${value}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error.message, /^failing\b.*true or false/);
    }
  });
});
