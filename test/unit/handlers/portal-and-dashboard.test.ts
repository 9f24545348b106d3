import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import {
  canSee,
  limitedSubscriptionListing,
  visibleDelivery,
  visibleSubscription,
  type Principal,
} from '#app/access.ts';
import { getEventDetail } from '#app/events/events.ts';
import { exchangePortalCode, mintPortalSession, revokePortalSession } from '#app/portal/portal-sessions.ts';
import { createApiHandler, principalOf } from '#handlers/api/handler.ts';
import { NOT_FOR_ONE_SUBSCRIPTION, PORTAL_SESSION_ROUTES, portalLevelsFor } from '#handlers/api/portal-access.ts';
import { ROUTES, route } from '#handlers/api/router.ts';
import { DASHBOARD_CSP } from '#handlers/api/routes/dashboard.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import type { DashboardAssets } from '#ports/dashboard-assets.ts';
import { aDelivery, aSubscription, fakeDeps, FakeClock } from '#test/fakes.ts';
import { InMemoryPortalSessionStore } from '#test/memory-portal-session-store.ts';
import { InMemoryApiKeyStore } from '#test/memory-stores.ts';

const context = { getRemainingTimeInMillis: () => 10_000, awsRequestId: 'r', functionName: 'x' } as unknown as Context;
const limited: Principal = {
  role: 'tenant',
  tenantId: 'acme',
  keyId: 'psn_1',
  subscriptionId: 'sub_a',
  portal: 'view',
};
const portal: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'psn_2', portal: 'view' };
const manage: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'psn_3', portal: 'manage' };
const manageOne: Principal = { ...manage, keyId: 'psn_4', subscriptionId: 'sub_a' };
const tenantKey: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_1' };

async function seeded() {
  const deps = fakeDeps();
  await deps.subscriptions.create(aSubscription({ id: 'sub_a', tenantId: 'acme' }));
  await deps.subscriptions.create(aSubscription({ id: 'sub_a2', tenantId: 'acme' }));
  await deps.subscriptions.create(aSubscription({ id: 'sub_b', tenantId: 'globex' }));
  await deps.deliveries.put(aDelivery({ id: 'dlv_a', subscriptionId: 'sub_a', tenantId: 'acme' }));
  await deps.deliveries.put(aDelivery({ id: 'dlv_a2', subscriptionId: 'sub_a2', tenantId: 'acme' }));
  return deps;
}

describe('a principal limited to one subscription (a portal link for one)', () => {
  it('sees that subscription and its deliveries, and nothing else of its tenant', async () => {
    const deps = await seeded();
    assert.equal((await visibleSubscription(deps, limited, 'sub_a')).id, 'sub_a');
    await assert.rejects(visibleSubscription(deps, limited, 'sub_a2'), /subscription sub_a2 does not exist/);
    await assert.rejects(visibleSubscription(deps, limited, 'sub_b'), /does not exist/);
    assert.equal((await visibleDelivery(deps, limited, 'dlv_a')).id, 'dlv_a');
    await assert.rejects(visibleDelivery(deps, limited, 'dlv_a2'), /delivery dlv_a2 does not exist/);
    assert.deepEqual(
      (await limitedSubscriptionListing(deps, limited))?.items.map((s) => s.id),
      ['sub_a'],
    );
    assert.equal(await limitedSubscriptionListing(deps, tenantKey), undefined, 'everyone else lists by tenant');
    // Something of the tenant that names no subscription (an event seen through its tenant alone) is not its to see.
    assert.equal(canSee(limited, { tenantId: 'acme' }), false);
    assert.equal(canSee(tenantKey, { tenantId: 'acme' }), true);
    assert.equal(canSee(portal, { tenantId: 'globex', subscriptionId: 'sub_b' }), false);
  });

  it('lists only its subscription through the API, whatever it asks for', async () => {
    const deps = await seeded();
    const res = await route(deps as never, {
      method: 'GET',
      path: '/v1/subscriptions',
      query: { tenantId: 'globex' },
      body: null,
      principal: limited,
    });
    assert.deepEqual(
      (res.body as { items: { id: string }[] }).items.map((s) => s.id),
      ['sub_a'],
    );
    const all = await route(deps as never, {
      method: 'GET',
      path: '/v1/subscriptions',
      query: {},
      body: null,
      principal: portal,
    });
    assert.deepEqual((all.body as { items: { id: string }[] }).items.map((s) => s.id).sort(), ['sub_a', 'sub_a2']);
  });

  it("an event reaches it only through its own subscription's delivery", async () => {
    const deps = await seeded();
    deps.events.items.set('evt_1', {
      id: 'evt_1',
      type: 't',
      body: '{}',
      createdAt: '2024-05-01T12:00:00.000Z',
      subscriptionIds: ['sub_a2'],
      deliveryIds: ['dlv_a2'],
      tenantId: 'acme',
    });
    await assert.rejects(getEventDetail(deps, limited, 'evt_1'), /event evt_1 does not exist/);
    assert.equal((await getEventDetail(deps, tenantKey, 'evt_1')).deliveries.length, 1);
  });
});

const call = (deps: unknown, principal: Principal, method: string, path: string, body: string | null = null) =>
  route(deps as never, { method, path, query: {}, body, principal });

describe('the routes a portal session may call, by its access level', () => {
  const byKey = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));
  const SELF_SERVICE = [
    'POST /v1/subscriptions',
    'PATCH /v1/subscriptions/{subscriptionId}',
    'DELETE /v1/subscriptions/{subscriptionId}',
    'POST /v1/subscriptions/{subscriptionId}/rotate-secret',
  ];

  it('view: tenant routes that read, resend, pause, resume or test; never a change of URL, a deletion, a rotation or a create', () => {
    for (const key of PORTAL_SESSION_ROUTES.view) assert.equal(byKey.get(key)?.access, 'tenant', key);
    for (const refused of SELF_SERVICE)
      assert.ok(byKey.has(refused) && !PORTAL_SESSION_ROUTES.view.has(refused), refused);
  });

  it('manage: every view route and the self-service ones; its one admin route is the create, which a one-subscription link may not call', () => {
    for (const key of PORTAL_SESSION_ROUTES.view) assert.ok(PORTAL_SESSION_ROUTES.manage.has(key), key);
    for (const key of SELF_SERVICE) assert.ok(PORTAL_SESSION_ROUTES.manage.has(key), key);
    const admin = [...PORTAL_SESSION_ROUTES.manage].filter((key) => byKey.get(key)?.access !== 'tenant');
    assert.deepEqual(admin, ['POST /v1/subscriptions'], 'no other admin route, and no route that does not exist');
    assert.deepEqual([...NOT_FOR_ONE_SUBSCRIPTION], ['POST /v1/subscriptions']);
    assert.deepEqual(portalLevelsFor('GET /v1/subscriptions'), ['view', 'manage']);
    assert.deepEqual(portalLevelsFor('DELETE /v1/subscriptions/{subscriptionId}'), ['manage']);
    assert.deepEqual(portalLevelsFor('POST /v1/replays'), []);
  });

  it('the router refuses a view session the self-service routes with 403 naming the route and the level that opens it; a tenant key may still change', async () => {
    const deps = await seeded();
    for (const [method, path, body] of [
      ['PATCH', '/v1/subscriptions/sub_a', '{"description":"x"}'],
      ['POST', '/v1/subscriptions/sub_a/rotate-secret', null],
      ['DELETE', '/v1/subscriptions/sub_a', null],
      ['POST', '/v1/subscriptions', '{"url":"https://example.com/hooks"}'],
    ] as const) {
      await assert.rejects(
        call(deps, portal, method, path, body),
        (e: Error) =>
          e.name === 'ForbiddenError' &&
          e.message.startsWith(`${method} /v1/subscriptions`) &&
          /not open to a "view" portal session; a link minted with access "manage" may call it/.test(e.message),
        `${method} ${path}`,
      );
    }
    assert.equal((await call(deps, tenantKey, 'PATCH', '/v1/subscriptions/sub_a', '{"description":"x"}')).status, 200);
    assert.equal((await call(deps, portal, 'GET', '/v1/subscriptions/sub_a')).status, 200);
    // Nothing changed by the refusals.
    assert.equal((await deps.subscriptions.get('sub_a'))?.state, 'active');
    assert.equal((await deps.subscriptions.list({ limit: 10 })).items.length, 3);
  });

  it('no level opens an admin route other than the create, nor a tenant route outside its set', async () => {
    const deps = await seeded();
    await assert.rejects(call(deps, manage, 'GET', '/v1/replays'), /GET \/v1\/replays needs the admin key/);
    await assert.rejects(
      call(deps, manage, 'POST', '/v1/tenants/acme/portal-sessions', '{}'),
      /needs the admin key/,
      'a session never mints another',
    );
    await assert.rejects(call(deps, manage, 'GET', '/v1/events'), { name: 'ForbiddenError' });
  });

  it('a manage session creates for its own tenant (naming none or itself), never for another; a tenant key still may not create', async () => {
    const deps = await seeded();
    const created = await call(deps, manage, 'POST', '/v1/subscriptions', '{"url":"https://example.com/own"}');
    assert.equal(created.status, 201);
    const body = created.body as { id: string; tenantId: string; secret: string };
    assert.equal(body.tenantId, 'acme', "the session's tenant, though the body named none");
    assert.match(body.secret, /^whsec_/);
    assert.equal(
      (await call(deps, manage, 'POST', '/v1/subscriptions', '{"url":"https://example.com/b","tenantId":"acme"}'))
        .status,
      201,
    );
    const before = (await deps.subscriptions.list({ limit: 50 })).items.length;
    await assert.rejects(
      call(deps, manage, 'POST', '/v1/subscriptions', '{"url":"https://example.com/x","tenantId":"globex"}'),
      (e: Error) => e.name === 'ForbiddenError' && /not for tenant globex/.test(e.message),
    );
    await assert.rejects(
      call(deps, tenantKey, 'POST', '/v1/subscriptions', '{"url":"https://example.com/x"}'),
      /needs the admin key/,
    );
    assert.equal((await deps.subscriptions.list({ limit: 50 })).items.length, before, 'nothing stored');
  });

  it('a manage session limited to one subscription manages that one, may not create, and sees no other', async () => {
    const deps = await seeded();
    await assert.rejects(
      call(deps, manageOne, 'POST', '/v1/subscriptions', '{"url":"https://example.com/x"}'),
      (e: Error) => e.name === 'ForbiddenError' && /limited to one subscription \(sub_a\)/.test(e.message),
    );
    const changed = await call(deps, manageOne, 'PATCH', '/v1/subscriptions/sub_a', '{"description":"mine"}');
    assert.equal((changed.body as { description: string }).description, 'mine');
    await assert.rejects(
      call(deps, manageOne, 'PATCH', '/v1/subscriptions/sub_a2', '{"description":"x"}'),
      /subscription sub_a2 does not exist/,
    );
    await assert.rejects(call(deps, manage, 'DELETE', '/v1/subscriptions/sub_b'), /subscription sub_b does not exist/);
    assert.equal((await deps.subscriptions.get('sub_b'))?.state, 'active', "another tenant's is untouched");
  });
});

describe('the portal routes', () => {
  it('mints a link (admin) pointing at the dashboard of the base URL the request came in on, exchanges it without a key, revokes it', async () => {
    const deps = fakeDeps({ portalSessions: new InMemoryPortalSessionStore() } as never);
    const minted = await route(deps as never, {
      method: 'POST',
      path: '/v1/tenants/acme/portal-sessions',
      query: {},
      body: null,
      principal: { role: 'admin' },
      baseUrl: 'https://api.example.com/prod',
    });
    assert.equal(minted.status, 201);
    const { url, id } = minted.body as { url: string; id: string };
    assert.match(url, /^https:\/\/api\.example\.com\/prod\/dashboard#portal=hk_pcode_/);
    await assert.rejects(
      route(deps as never, {
        method: 'POST',
        path: '/v1/tenants/acme/portal-sessions',
        query: {},
        body: null,
        principal: tenantKey,
      }),
      { name: 'ForbiddenError' },
    );
    const code = url.split('#portal=')[1]!;
    const exchanged = await route(deps as never, {
      method: 'POST',
      path: '/v1/portal-sessions/exchange',
      query: {},
      body: JSON.stringify({ code }),
      principal: undefined,
    });
    assert.equal(exchanged.status, 200);
    await assert.rejects(
      route(deps as never, {
        method: 'POST',
        path: '/v1/portal-sessions/exchange',
        query: {},
        body: '{"code":"nope"}',
        principal: undefined,
      }),
      (e: Error) => e.name === 'ValidationError' && e.message.startsWith('code:'),
    );
    const revoked = await route(deps as never, {
      method: 'DELETE',
      path: `/v1/tenants/acme/portal-sessions/${id}`,
      query: {},
      body: null,
      principal: { role: 'admin' },
    });
    assert.match((revoked.body as { revokedAt: string }).revokedAt, /^\d{4}-/);
    await assert.rejects(
      route(deps as never, {
        method: 'DELETE',
        path: `/v1/tenants/globex/portal-sessions/${id}`,
        query: {},
        body: null,
        principal: { role: 'admin' },
      }),
      /portal session .* does not exist/,
    );
  });
});

describe('the authorizer and portal session tokens', () => {
  const token = (t: string) =>
    ({
      type: 'TOKEN',
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc/prod/GET/v1/subscriptions',
      authorizationToken: `Bearer ${t}`,
    }) as APIGatewayTokenAuthorizerEvent;

  it('lets a live token in as its tenant, marked portal and limited as its link was; the API reads the same principal back', async () => {
    const clock = new FakeClock();
    const store = new InMemoryPortalSessionStore();
    const subscriptions = fakeDeps().subscriptions;
    await subscriptions.create(aSubscription({ id: 'sub_a', tenantId: 'acme' }));
    const deps = { clock, portalSessions: store, subscriptions, consoleSettings: {} };
    const handler = createAuthorizerHandler(
      new StaticKeySource('hk_admin_key'),
      { logger: new Logger({ logLevel: 'SILENT' }) },
      new InMemoryApiKeyStore(),
      () => clock.nowMs,
      store,
    );
    const link = await mintPortalSession(deps, 'acme', { subscriptionId: 'sub_a' }, 'https://x');
    const session = await exchangePortalCode(deps, link.url.split('#portal=')[1]!);
    const result = await handler(token(session.token), context);
    assert.equal(result.principalId, 'tenant:acme');
    assert.deepEqual(result.context, {
      role: 'tenant',
      tenantId: 'acme',
      keyId: link.id,
      portal: 'view',
      subscriptionId: 'sub_a',
    });
    assert.deepEqual(principalOf(result.context), {
      role: 'tenant',
      tenantId: 'acme',
      keyId: link.id,
      subscriptionId: 'sub_a',
      portal: 'view',
    });
    // An unlimited manage link: an empty subscriptionId is no limit, and the level is carried through.
    const all = await mintPortalSession(deps, 'acme', { access: 'manage' }, 'https://x');
    const allSession = await exchangePortalCode(deps, all.url.split('#portal=')[1]!);
    assert.equal(allSession.access, 'manage');
    assert.deepEqual(principalOf((await handler(token(allSession.token), context)).context), {
      role: 'tenant',
      tenantId: 'acme',
      keyId: all.id,
      portal: 'manage',
    });
    // A decision cached from before levels (`portal: 'true'`), or a level this version does not know, grants the least.
    assert.deepEqual(
      ['true', 'admin', 'manage'].map(
        (old) =>
          (principalOf({ role: 'tenant', tenantId: 'acme', keyId: all.id, portal: old }) as { portal?: string }).portal,
      ),
      ['view', 'view', 'manage'],
    );
    // The one-time code itself is no bearer credential; a revoked or ended token is refused.
    await assert.rejects(handler(token(link.url.split('#portal=')[1]!), context), /Unauthorized/);
    await revokePortalSession(deps, 'acme', link.id);
    await assert.rejects(handler(token(session.token), context), /Unauthorized/);
    clock.advance(3600_000);
    await assert.rejects(handler(token(allSession.token), context), /Unauthorized/);
  });
});

describe('the dashboard files', () => {
  const assets: DashboardAssets = { file: async (name) => (name === 'app.css' ? undefined : `<${name}>`) };
  const v2 = (path: string, headers: Record<string, string> = {}) =>
    ({
      version: '2.0',
      rawPath: path,
      rawQueryString: '',
      headers,
      isBase64Encoded: false,
      requestContext: {
        http: { method: 'GET', path },
        stage: '$default',
        domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
      },
    }) as unknown as APIGatewayProxyEventV2;

  it('are served without a key, the page with its CSP, every file nosniff, unframed and uncached; a file the deployment lacks is a 404', async () => {
    const handler = createApiHandler(
      fakeDeps() as never,
      { logger: new Logger({ logLevel: 'SILENT' }) },
      { dashboard: assets },
    );
    const page = await handler(v2('/dashboard'), context);
    assert.equal(page.statusCode, 200);
    assert.equal(page.body, '<index.html>');
    assert.equal(page.headers!['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers!['content-security-policy'], DASHBOARD_CSP);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ])
      assert.ok(DASHBOARD_CSP.includes(directive), directive);
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval|https?:/);
    const js = await handler(v2('/dashboard/app.js'), context);
    assert.equal(js.headers!['content-type'], 'text/javascript; charset=utf-8');
    for (const res of [page, js]) {
      assert.equal(res.headers!['x-content-type-options'], 'nosniff');
      assert.equal(res.headers!['x-frame-options'], 'DENY');
      assert.equal(res.headers!['cache-control'], 'no-store');
    }
    const missing = await handler(v2('/dashboard/app.css'), context);
    assert.equal(missing.statusCode, 404);
    assert.equal(JSON.parse(missing.body).error.code, 'not_found');
    const none = await createApiHandler(fakeDeps() as never, { logger: new Logger({ logLevel: 'SILENT' }) })(
      v2('/dashboard'),
      context,
    );
    assert.equal(none.statusCode, 404, 'no assets given: the API still answers, the page is not part of it');
  });

  it('the base URL a portal link gets: https and the domain, with a REST stage; http only where the local gateway says so', async () => {
    const deps = fakeDeps({ portalSessions: new InMemoryPortalSessionStore() } as never);
    const handler = createApiHandler(deps as never, { logger: new Logger({ logLevel: 'SILENT' }) });
    const http = await handler(
      {
        ...v2('/v1/tenants/acme/portal-sessions'),
        requestContext: {
          http: { method: 'POST', path: '/v1/tenants/acme/portal-sessions' },
          stage: '$default',
          domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
          authorizer: { lambda: { role: 'admin' } },
        },
      } as never,
      context,
    );
    assert.match(
      JSON.parse(http.body).url,
      /^https:\/\/abc\.execute-api\.eu-west-1\.amazonaws\.com\/dashboard#portal=/,
    );
    const rest = await handler(
      {
        httpMethod: 'POST',
        path: '/v1/tenants/acme/portal-sessions',
        body: null,
        isBase64Encoded: false,
        headers: { 'X-Forwarded-Proto': 'https' },
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        requestContext: {
          stage: 'prod',
          domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
          authorizer: { role: 'admin' },
        },
      } as unknown as APIGatewayProxyEvent,
      context,
    );
    assert.match(
      JSON.parse(rest.body).url,
      /^https:\/\/abc\.execute-api\.eu-west-1\.amazonaws\.com\/prod\/dashboard#portal=/,
    );
    const local = await handler(
      {
        ...v2('/v1/tenants/acme/portal-sessions', { 'x-forwarded-proto': 'http' }),
        requestContext: {
          http: { method: 'POST', path: '/v1/tenants/acme/portal-sessions' },
          stage: '$default',
          domainName: '127.0.0.1:3000',
          authorizer: { lambda: { role: 'admin' } },
        },
      } as never,
      context,
    );
    assert.match(JSON.parse(local.body).url, /^http:\/\/127\.0\.0\.1:3000\/dashboard#portal=/);
  });
});
