import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbIdempotencyStore } from '#adapters/dynamodb-idempotency-store.ts';
import { answerKeys, fingerprintOf } from '#app/idempotency/sealed-answer.ts';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { countTables } from '#test/table-counts.ts';

const key = (k: string) => ({ 'idempotency-key': k });

describe('Idempotency-Key on the POSTs that create something', () => {
  let stack: LocalStack;
  let acme: ApiClient;
  before(async () => {
    stack = await startLocalStack();
    acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
  });
  after(() => stack.stop());

  const subscriptionBody = (path: string) => ({ url: `${stack.receiver.url}${path}`, eventTypes: ['idk-sub.*'] });

  it('POST /v1/subscriptions: a retry with the key gets the same status and body (its secret too), and one subscription is made', async () => {
    const before = (await stack.api.get('/v1/subscriptions?limit=100')).body.items.length;
    const first = await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-sub'), key('sub-create-1'));
    const again = await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-sub'), key('sub-create-1'));

    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.secret, /^whsec_/);
    assert.deepEqual([again.status, again.body], [first.status, first.body]);
    assert.equal((await stack.api.get('/v1/subscriptions?limit=100')).body.items.length, before + 1);
  });

  it('refuses the key with another body (422 idempotency_key_reused) or a malformed key (400 naming it), storing nothing', async () => {
    await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-a'), key('sub-create-2'));
    const counts = await countTables(stack.runtime);

    const reused = await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-b'), key('sub-create-2'));
    assert.deepEqual([reused.status, reused.body.error.code], [422, 'idempotency_key_reused']);
    assert.match(reused.body.error.message, /Idempotency-Key sub-create-2 was already used for a different request/);
    for (const bad of ['has space', 'k'.repeat(256), '']) {
      const res = await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-c'), key(bad));
      // An empty header is as good as none to some clients; here it is a key that breaks the rule.
      assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error.message, /^Idempotency-Key: must be 1 to 255 visible ASCII characters/);
    }
    assert.deepEqual(await countTables(stack.runtime), counts, 'nothing stored');
  });

  it('keeps nothing for a refused first request, so the corrected retry with the same key runs', async () => {
    const counts = await countTables(stack.runtime);
    const refused = await stack.api.post('/v1/subscriptions', { url: 'ftp://nope.example/hooks' }, key('sub-create-3'));
    assert.equal(refused.status, 400);
    assert.deepEqual(await countTables(stack.runtime), counts, 'nothing stored, not even the key');

    const corrected = await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-d'), key('sub-create-3'));
    assert.equal(corrected.status, 201);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const body = subscriptionBody('/idk-slow');
    const keys = answerKeys('admin', 'POST /v1/subscriptions', 'sub-running');
    const store = new DynamoDbIdempotencyStore(
      documentClient(stack.runtime.clients.dynamodb),
      stack.runtime.env.IDEMPOTENCY_KEYS_TABLE!,
    );
    // The first request, as it holds the key while it runs (in another container, say).
    const now = Date.now();
    await store.begin(
      {
        id: keys.id,
        fingerprint: fingerprintOf(keys, 'POST', '/v1/subscriptions', JSON.stringify(body)),
        createdAt: new Date(now).toISOString(),
        expiresAt: Math.ceil(now / 1000) + 86_400,
        owner: 'elsewhere',
        lockedUntil: new Date(now + 60_000).toISOString(),
      },
      new Date(now).toISOString(),
    );

    const res = await stack.api.post('/v1/subscriptions', body, key('sub-running'));
    assert.deepEqual([res.status, res.body.error.code], [409, 'conflict']);
    assert.match(res.body.error.message, /still running/);
    assert.equal(
      (await stack.api.post('/v1/subscriptions', subscriptionBody('/idk-other'), key('sub-running'))).status,
      422,
      'another body is still another request',
    );
  });

  it('POST /v1/events/batch: the key names the whole batch, so a retry gets the same generated ids and publishes nothing again', async () => {
    await stack.subscribe('/idk-batch', { eventTypes: ['idk.batch'] });
    const events = {
      events: [
        { type: 'idk.batch', payload: { n: 1 } },
        { type: 'idk.batch', payload: { n: 2 } },
      ],
    };
    const first = await stack.api.post('/v1/events/batch', events, key('batch-1'));
    // Counted once the first attempts wrote their rows (publish writes none), so only the retry could change a count.
    for (const item of first.body.items) for (const id of item.deliveryIds) await stack.waitForState(id, ['delivered']);
    const counts = await countTables(stack.runtime);
    const again = await stack.api.post('/v1/events/batch', events, key('batch-1'));

    assert.equal(first.status, 200);
    assert.ok(first.body.items.every((i: any) => i.kind === 'accepted' && i.eventId.startsWith('evt_')));
    assert.deepEqual([again.status, again.body], [200, first.body]);
    assert.deepEqual(await countTables(stack.runtime), counts, 'no event, manifest or delivery written again');
    const without = await stack.api.post('/v1/events/batch', events);
    assert.notDeepEqual(
      without.body.items.map((i: any) => i.eventId),
      first.body.items.map((i: any) => i.eventId),
      'without the key it is a new batch',
    );
  });

  it("POST /v1/deliveries/{id}/replay: once per key and caller; the same key is the admin's and each tenant's own", async () => {
    stack.receiver.script('/idk-replay', [{ status: 400 }, { status: 400 }], { status: 200 });
    await stack.subscribe('/idk-replay', { eventTypes: ['idk.replay'], tenantId: 'acme' });
    const a = (await stack.publish('idk.replay', { n: 1 }, 'idk-replay-a', { tenantId: 'acme' })).deliveryIds[0]!;
    const b = (await stack.publish('idk.replay', { n: 2 }, 'idk-replay-b', { tenantId: 'acme' })).deliveryIds[0]!;
    await stack.waitForState(a, ['failed']);
    await stack.waitForState(b, ['failed']);

    const first = await stack.api.post(`/v1/deliveries/${a}/replay`, undefined, key('replay-1'));
    assert.equal(first.status, 202, JSON.stringify(first.body));
    await stack.waitForState(a, ['delivered']);
    const again = await stack.api.post(`/v1/deliveries/${a}/replay`, undefined, key('replay-1'));
    assert.deepEqual(
      [again.status, again.body],
      [202, first.body],
      'the first answer, though the delivery is delivered by now',
    );
    assert.equal(
      (await stack.api.post(`/v1/deliveries/${b}/replay`, undefined, key('replay-1'))).status,
      422,
      'another delivery is another request',
    );

    const tenant = await acme.post(`/v1/deliveries/${b}/replay`, undefined, key('replay-1'));
    assert.equal(tenant.status, 202, "the tenant's key space is its own");
    await stack.waitForState(b, ['delivered']);
    assert.equal(stack.receiver.on('/idk-replay').length, 4, 'two first attempts, one replay each');
  });

  it('POST /v1/replays, /v1/tenants/{tenantId}/keys, rotate-secret and test: a retry with the key answers the first answer', async () => {
    const replay = {
      createdFrom: new Date(Date.now() - 3_600_000).toISOString(),
      createdTo: new Date().toISOString(),
      dryRun: true,
    };
    const r1 = await stack.api.post('/v1/replays', replay, key('bulk-1'));
    assert.ok([200, 202].includes(r1.status), JSON.stringify(r1.body));
    const r2 = await stack.api.post('/v1/replays', replay, key('bulk-1'));
    assert.deepEqual([r2.status, r2.body], [r1.status, r1.body]);
    assert.equal(
      (await stack.api.get('/v1/replays?limit=100')).body.items.filter((r: any) => r.id === r1.body.id).length,
      1,
    );

    const k1 = await stack.api.post('/v1/tenants/idk-co/keys', undefined, key('mint-1'));
    const k2 = await stack.api.post('/v1/tenants/idk-co/keys', undefined, key('mint-1'));
    assert.deepEqual([k2.status, k2.body], [201, k1.body]);
    assert.equal((await stack.api.get('/v1/tenants/idk-co/keys')).body.items.length, 1);

    const sub = await stack.subscribe('/idk-rotate', { eventTypes: ['idk.rotate'] });
    const rotated = await stack.api.post(`/v1/subscriptions/${sub.id}/rotate-secret`, {}, key('rotate-1'));
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.deepEqual(
      (await stack.api.post(`/v1/subscriptions/${sub.id}/rotate-secret`, {}, key('rotate-1'))).body,
      rotated.body,
    );

    const tested = await stack.api.post(`/v1/subscriptions/${sub.id}/test`, undefined, key('test-1'));
    assert.equal(tested.status, 202, JSON.stringify(tested.body));
    assert.deepEqual(
      (await stack.api.post(`/v1/subscriptions/${sub.id}/test`, undefined, key('test-1'))).body,
      tested.body,
    );
  });
});
