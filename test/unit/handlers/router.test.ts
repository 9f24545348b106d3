import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import {
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  RouteNotFoundError,
  UnauthorizedError,
  ValidationError,
} from '#app/errors.ts';
import { ForbiddenTargetError } from '#domain/errors.ts';
import { STATE } from '#domain/states.ts';
import { type ApiRequest, route } from '#handlers/api/router.ts';
import { aDelivery, aSubscription, fakeDeps, SEEDED_TTL, type FakeDeps } from '#test/fakes.ts';
import { InMemoryRateLimiter } from '#test/memory-stores.ts';
import { DEFAULT_CUSTOMER_PAUSE_LIMIT } from '#domain/rate-limit.ts';

const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_acme' };
const GLOBEX: Principal = { role: 'tenant', tenantId: 'globex', keyId: 'key_globex' };

/** Two tenants, each with a subscription that has one delivered and one failed delivery. */
function seeded(): FakeDeps {
  const deps = fakeDeps();
  for (const [tenantId, sub] of [
    ['acme', 'sub_acme'],
    ['globex', 'sub_globex'],
  ] as const) {
    deps.subscriptions.items.set(sub, aSubscription({ id: sub, tenantId }));
    deps.deliveries.put(aDelivery({ id: `dlv_${tenantId}_ok`, subscriptionId: sub, tenantId, state: STATE.delivered }));
    deps.deliveries.put(
      aDelivery({
        id: `dlv_${tenantId}_dead`,
        subscriptionId: sub,
        tenantId,
        state: STATE.failed,
        attemptSeq: 1,
        eventId: `evt_${tenantId}`,
      }),
    );
  }
  deps.events.items.set('evt_acme', {
    id: 'evt_acme',
    type: 'invoice.paid',
    body: '{"id":"evt_acme"}',
    subscriptionIds: ['sub_acme'],
    deliveryIds: ['dlv_acme_dead'],
    createdAt: '2024-05-01T12:00:00.000Z',
  });
  void deps.attempts.put(
    {
      deliveryId: 'dlv_acme_dead',
      seq: 1,
      attempt: 1,
      startedAt: '2024-05-01T12:00:01.000Z',
      durationMs: 12,
      status: 500,
      responseSnippet: 'oops',
    },
    SEEDED_TTL,
  );
  return deps;
}

/** The routes used here touch only the delivery engine's dependencies. */
const call = (
  deps: FakeDeps,
  principal: Principal | undefined,
  method: string,
  path: string,
  query: ApiRequest['query'] = {},
  body: string | null = null,
) => route(deps as unknown as FunctionDeps<'api'>, { method, path, query, body, principal });

const ids = (body: unknown) => (body as { items: { id: string }[] }).items.map((i) => i.id).sort();

describe('route(): who may call', () => {
  it('answers GET /health without a principal', async () => {
    assert.deepEqual(await call(seeded(), undefined, 'GET', '/health'), { status: 200, body: { status: 'ok' } });
  });

  // Without a principal nothing but /health answers, not even with a 404 or 405 that would tell which paths exist.
  const anonymous: ReadonlyArray<readonly [string, string]> = [
    ['GET', '/v1/subscriptions'],
    ['POST', '/v1/events'],
    ['GET', '/v1/deliveries/dlv_acme_ok'],
    ['DELETE', '/v1/subscriptions'],
    ['GET', '/v1/nothing-here'],
    ['GET', '/v1/subscriptions/sub_unknown'],
  ];
  for (const [method, path] of anonymous) {
    it(`refuses ${method} ${path} without a principal as unauthorized`, async () => {
      await assert.rejects(call(seeded(), undefined, method, path), UnauthorizedError);
    });
  }

  it('refuses a tenant key on an admin route', async () => {
    await assert.rejects(call(seeded(), ACME, 'GET', '/v1/events'), ForbiddenError);
  });

  it('answers a known path with another method as 405, and a path no route has as route not found, never a missing resource', async () => {
    await assert.rejects(
      call(seeded(), ADMIN, 'DELETE', '/v1/subscriptions'),
      (e: unknown) => e instanceof MethodNotAllowedError && e.allowed.join() === 'POST,GET',
    );
    await assert.rejects(
      call(seeded(), ADMIN, 'GET', '/v1/replays/rpl_x/extra'),
      (e: unknown) => e instanceof RouteNotFoundError && e.path === '/v1/replays/rpl_x/extra',
    );
    await assert.rejects(
      call(seeded(), ADMIN, 'GET', '/v1/subscriptions/sub_nope'),
      (e: unknown) => e instanceof NotFoundError && e.kind === 'subscription',
    );
  });
});

describe('route(): each listing is scoped by the service', () => {
  it('lists only a tenant’s own subscriptions, whatever tenantId it asks for', async () => {
    const deps = seeded();
    assert.deepEqual(ids((await call(deps, ACME, 'GET', '/v1/subscriptions', { tenantId: 'globex' })).body), [
      'sub_acme',
    ]);
    assert.deepEqual(ids((await call(deps, ADMIN, 'GET', '/v1/subscriptions')).body), ['sub_acme', 'sub_globex']);
    assert.deepEqual(ids((await call(deps, ADMIN, 'GET', '/v1/subscriptions', { tenantId: 'globex' })).body), [
      'sub_globex',
    ]);
  });

  it('lists deliveries of a tenant’s own subscription, and hides another tenant’s as not found', async () => {
    const deps = seeded();
    const own = await call(deps, ACME, 'GET', '/v1/deliveries', { subscriptionId: 'sub_acme', state: STATE.failed });
    assert.deepEqual(ids(own.body), ['dlv_acme_dead']);
    assert.equal((own.body as { nextCursor: unknown }).nextCursor, null);
    await assert.rejects(call(deps, ACME, 'GET', '/v1/deliveries', { subscriptionId: 'sub_globex' }), NotFoundError);
    assert.deepEqual(ids((await call(deps, ADMIN, 'GET', '/v1/deliveries', { subscriptionId: 'sub_globex' })).body), [
      'dlv_globex_dead',
      'dlv_globex_ok',
    ]);
  });

  it('lists dead letters overall for the admin, per own subscription for a tenant', async () => {
    const deps = seeded();
    assert.deepEqual(ids((await call(deps, ADMIN, 'GET', '/v1/dead-letters')).body), [
      'dlv_acme_dead',
      'dlv_globex_dead',
    ]);
    assert.deepEqual(ids((await call(deps, ACME, 'GET', '/v1/dead-letters', { subscriptionId: 'sub_acme' })).body), [
      'dlv_acme_dead',
    ]);
    await assert.rejects(
      call(deps, ACME, 'GET', '/v1/dead-letters'),
      (e: unknown) => e instanceof ValidationError && e.field === 'subscriptionId',
    );
    await assert.rejects(call(deps, GLOBEX, 'GET', '/v1/dead-letters', { subscriptionId: 'sub_acme' }), NotFoundError);
  });

  it('shows a delivery’s detail to its tenant: body, the headers it sends, its attempt log', async () => {
    const deps = seeded();
    const { status, body } = await call(deps, ACME, 'GET', '/v1/deliveries/dlv_acme_dead');
    assert.equal(status, 200);
    const detail = body as Record<string, unknown>;
    assert.equal(detail.id, 'dlv_acme_dead');
    assert.equal(detail.body, '{"id":"evt_acme"}');
    assert.deepEqual(detail.headers, { 'content-type': 'application/json', 'webhook-id': 'evt_acme' });
    assert.deepEqual(detail.attemptLog, [
      {
        attempt: 1,
        seq: 1,
        startedAt: '2024-05-01T12:00:01.000Z',
        durationMs: 12,
        status: 500,
        responseSnippet: 'oops',
        error: null,
      },
    ]);
    // No event record: the body is null rather than missing.
    const other = await call(deps, ADMIN, 'GET', '/v1/deliveries/dlv_globex_ok');
    assert.equal((other.body as { body: unknown }).body, null);
    await assert.rejects(call(deps, GLOBEX, 'GET', '/v1/deliveries/dlv_acme_dead'), NotFoundError);
  });

  it('lets a tenant pause its own subscription only', async () => {
    const deps = Object.assign(seeded(), {
      rateLimiter: new InMemoryRateLimiter(),
      customerPauseLimit: DEFAULT_CUSTOMER_PAUSE_LIMIT,
    });
    const paused = await call(deps, ACME, 'POST', '/v1/subscriptions/sub_acme/pause', {}, '{"reason":"maintenance"}');
    assert.deepEqual(
      [(paused.body as { state: string }).state, (paused.body as { stateReason: string }).stateReason],
      ['paused', 'maintenance'],
    );
    await assert.rejects(call(deps, ACME, 'POST', '/v1/subscriptions/sub_globex/pause'), NotFoundError);
    assert.equal(deps.subscriptions.items.get('sub_globex')?.state, 'active');
  });
});

describe('route(): a refused target is the domain error, answered from its parts', () => {
  it('lets ForbiddenTargetError through from createSubscription, storing nothing', async () => {
    const deps = seeded();
    await assert.rejects(
      call(deps, ADMIN, 'POST', '/v1/subscriptions', {}, '{"url":"ftp://example.com/x"}'),
      (e: unknown) => e instanceof ForbiddenTargetError && e.path === 'url' && /scheme/.test(e.rule),
    );
    assert.equal(deps.subscriptions.items.size, 2);
  });
});
