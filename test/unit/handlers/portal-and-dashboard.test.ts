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
import { PORTAL_SESSION_ROUTES } from '#handlers/api/portal-access.ts';
import { ROUTES, route } from '#handlers/api/router.ts';
import { DASHBOARD_CSP } from '#handlers/api/routes/dashboard.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import type { DashboardAssets } from '#ports/dashboard-assets.ts';
import { aDelivery, aSubscription, fakeDeps, FakeClock } from '#test/fakes.ts';
import { InMemoryPortalSessionStore } from '#test/memory-portal-session-store.ts';
import { InMemoryApiKeyStore } from '#test/memory-stores.ts';

const context = { getRemainingTimeInMillis: () => 10_000, awsRequestId: 'r', functionName: 'x' } as unknown as Context;
const limited: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'psn_1', subscriptionId: 'sub_a', portal: true };
const portal: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'psn_2', portal: true };
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

describe('the routes a portal session may call', () => {
  it('are tenant routes that read, resend, pause, resume or test; never a change of URL, a deletion, a rotation or an admin route', () => {
    const byKey = new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));
    for (const key of PORTAL_SESSION_ROUTES) assert.equal(byKey.get(key)?.access, 'tenant', key);
    for (const refused of [
      'PATCH /v1/subscriptions/{subscriptionId}',
      'DELETE /v1/subscriptions/{subscriptionId}',
      'POST /v1/subscriptions/{subscriptionId}/rotate-secret',
    ]) {
      assert.ok(byKey.has(refused) && !PORTAL_SESSION_ROUTES.has(refused), refused);
    }
  });

  it('the router refuses a portal session elsewhere with 403, and lets a tenant key through', async () => {
    const deps = await seeded();
    await assert.rejects(
      route(deps as never, {
        method: 'PATCH',
        path: '/v1/subscriptions/sub_a',
        query: {},
        body: '{"description":"x"}',
        principal: portal,
      }),
      (e: Error) => e.name === 'ForbiddenError' && /not open to a portal session/.test(e.message),
    );
    await assert.rejects(
      route(deps as never, {
        method: 'POST',
        path: '/v1/subscriptions/sub_a/rotate-secret',
        query: {},
        body: null,
        principal: portal,
      }),
      { name: 'ForbiddenError' },
    );
    const res = await route(deps as never, {
      method: 'PATCH',
      path: '/v1/subscriptions/sub_a',
      query: {},
      body: '{"description":"x"}',
      principal: tenantKey,
    });
    assert.equal(res.status, 200);
    assert.equal(
      (
        await route(deps as never, {
          method: 'GET',
          path: '/v1/subscriptions/sub_a',
          query: {},
          body: null,
          principal: portal,
        })
      ).status,
      200,
    );
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
      portal: 'true',
      subscriptionId: 'sub_a',
    });
    assert.deepEqual(principalOf(result.context), {
      role: 'tenant',
      tenantId: 'acme',
      keyId: link.id,
      subscriptionId: 'sub_a',
      portal: true,
    });
    // An unlimited link: an empty subscriptionId is no limit.
    const all = await mintPortalSession(deps, 'acme', {}, 'https://x');
    const allSession = await exchangePortalCode(deps, all.url.split('#portal=')[1]!);
    assert.deepEqual(principalOf((await handler(token(allSession.token), context)).context), {
      role: 'tenant',
      tenantId: 'acme',
      keyId: all.id,
      portal: true,
    });
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
