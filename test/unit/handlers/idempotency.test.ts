import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { IdempotencyKeyReusedError, ValidationError } from '#app/errors.ts';
import { IDEMPOTENCY_KEY_ROUTES, KEY_IS_EVENT_ID } from '#handlers/api/idempotency.ts';
import { ROUTES, route, type ApiRequest } from '#handlers/api/router.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';
import { InMemoryApiKeyStore, InMemoryIdempotencyStore, InMemoryRateLimiter } from '#test/memory-stores.ts';
import { DEFAULT_CUSTOMER_PAUSE_LIMIT } from '#domain/rate-limit.ts';

function deps() {
  const d = {
    ...fakeDeps(),
    idempotency: new InMemoryIdempotencyStore(),
    apiKeys: new InMemoryApiKeyStore(),
    rateLimiter: new InMemoryRateLimiter(),
    customerPauseLimit: DEFAULT_CUSTOMER_PAUSE_LIMIT,
  };
  d.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
  return d;
}
type Deps = ReturnType<typeof deps>;

const call = (
  d: Deps,
  method: string,
  path: string,
  options: { body?: string | null; key?: string; principal?: Principal } = {},
) =>
  route(d as unknown as FunctionDeps<'api'>, {
    method,
    path,
    query: {},
    body: options.body ?? null,
    headers: options.key === undefined ? {} : { 'idempotency-key': options.key },
    principal: options.principal ?? ADMIN,
  } satisfies ApiRequest);

describe('the Idempotency-Key routes', () => {
  it('are POST routes the router has, every one of them', () => {
    const known = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    for (const name of IDEMPOTENCY_KEY_ROUTES) {
      assert.ok(known.has(name), `${name} is a route`);
      assert.match(name, /^POST /);
    }
    assert.ok([...KEY_IS_EVENT_ID].every((name) => IDEMPOTENCY_KEY_ROUTES.has(name)));
  });

  it('answer a retry with the same key with the first answer, and do the work once', async () => {
    const d = deps();
    const first = await call(d, 'POST', '/v1/tenants/acme/keys', { key: 'mint-1' });
    const again = await call(d, 'POST', '/v1/tenants/acme/keys/', { key: 'mint-1' });

    assert.equal(first.status, 201);
    assert.deepEqual(again, first);
    assert.equal(d.apiKeys.items.size, 1);
    assert.notDeepEqual(await call(d, 'POST', '/v1/tenants/acme/keys'), first, 'no key, no idempotency');
    assert.equal(d.apiKeys.items.size, 2);
  });

  it('refuse the key with another request (422), and a malformed key before anything runs (400)', async () => {
    const d = deps();
    await call(d, 'POST', '/v1/tenants/acme/keys', { key: 'mint-1' });
    await assert.rejects(call(d, 'POST', '/v1/tenants/globex/keys', { key: 'mint-1' }), IdempotencyKeyReusedError);
    await assert.rejects(
      call(d, 'POST', '/v1/tenants/acme/keys', { key: 'mint-1', body: '{"expiresInSeconds":3600}' }),
      IdempotencyKeyReusedError,
    );
    await assert.rejects(
      call(d, 'POST', '/v1/tenants/acme/keys', { key: 'bad key' }),
      (e: unknown) => e instanceof ValidationError && e.field === 'Idempotency-Key',
    );
    assert.equal(d.apiKeys.items.size, 1);
  });

  it('leave every other route alone, whatever header it carries', async () => {
    const d = deps();
    await call(d, 'POST', '/v1/subscriptions/sub_1/pause', { key: 'bad key, not read here' });
    assert.equal(d.idempotency.items.size, 0);
    assert.equal((await call(d, 'GET', '/v1/subscriptions/sub_1', { key: 'k' })).status, 200);
    assert.equal(d.idempotency.items.size, 0);
  });
});
