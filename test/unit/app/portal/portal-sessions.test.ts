import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UnauthorizedError, ValidationError, NotFoundError } from '#app/errors.ts';
import { parseExchangeBody, parseMintPortalSessionBody } from '#app/portal/portal-request.ts';
import {
  exchangePortalCode,
  mintPortalSession,
  portalSession,
  portalSessionView,
  revokePortalSession,
} from '#app/portal/portal-sessions.ts';
import {
  DEFAULT_PORTAL_ACCESS,
  portalAccessOf,
  portalSessionStatus,
  portalSessionTtlSeconds,
} from '#domain/portal-session.ts';
import { aSubscription, FakeClock, InMemorySubscriptionStore } from '#test/fakes.ts';
import { InMemoryPortalSessionStore } from '#test/memory-portal-session-store.ts';

const BASE = 'https://abc.execute-api.eu-west-1.amazonaws.com/prod';

function setup(consoleSettings: { consoleUrl?: string } = {}) {
  const clock = new FakeClock();
  const portalSessions = new InMemoryPortalSessionStore();
  const subscriptions = new InMemorySubscriptionStore();
  return { clock, portalSessions, subscriptions, deps: { clock, portalSessions, subscriptions, consoleSettings } };
}
const codeOf = (url: string) => url.slice(url.indexOf('#portal=') + '#portal='.length);

describe('portal links', () => {
  it('mints a link to the dashboard carrying a one-time code in its fragment, living an hour by default; only hashes are stored', async () => {
    const { deps, portalSessions, clock } = setup();
    const link = await mintPortalSession(deps, 'acme', {}, `${BASE}/`);
    assert.match(
      link.url,
      /^https:\/\/abc\.execute-api\.eu-west-1\.amazonaws\.com\/prod\/dashboard#portal=hk_pcode_psn_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/,
    );
    assert.equal(link.expiresAt, new Date(clock.nowMs + 3600_000).toISOString());
    assert.deepEqual(
      {
        tenantId: link.tenantId,
        subscriptionId: link.subscriptionId,
        exchangedAt: link.exchangedAt,
        revokedAt: link.revokedAt,
      },
      { tenantId: 'acme', subscriptionId: null, exchangedAt: null, revokedAt: null },
    );
    const stored = JSON.stringify([...portalSessions.items.values()]);
    assert.ok(!stored.includes(codeOf(link.url)), 'the code is not stored');
    assert.ok(!stored.includes(codeOf(link.url).split('.')[1]!), 'nor its secret part');
    assert.equal(parseExchangeBody(JSON.stringify({ code: codeOf(link.url) })).code, codeOf(link.url));
  });

  it('points at the dashboard the deployment names (a custom domain with a base path), not at the host the request came in on', async () => {
    const { deps } = setup({ consoleUrl: 'https://hooks.example.com/platform/dashboard' });
    const link = await mintPortalSession(deps, 'acme', {}, BASE);
    assert.match(link.url, /^https:\/\/hooks\.example\.com\/platform\/dashboard#portal=hk_pcode_psn_/);
  });

  it('takes a lifetime from 60 s to a day and a subscription of the tenant, refusing the rest naming the field', async () => {
    const { deps, subscriptions, clock } = setup();
    await subscriptions.create(aSubscription({ id: 'sub_a', tenantId: 'acme' }));
    await subscriptions.create(aSubscription({ id: 'sub_b', tenantId: 'globex' }));
    const day = await mintPortalSession(
      deps,
      'acme',
      parseMintPortalSessionBody('{"expiresInSeconds":86400,"subscriptionId":"sub_a"}'),
      BASE,
    );
    assert.equal(day.expiresAt, new Date(clock.nowMs + 86_400_000).toISOString());
    assert.equal(day.subscriptionId, 'sub_a');
    for (const [body, field] of [
      ['{"expiresInSeconds":86401}', 'expiresInSeconds'],
      ['{"expiresInSeconds":59}', 'expiresInSeconds'],
      ['{"expiresInSeconds":60.5}', 'expiresInSeconds'],
      ['{"subscriptionId":"dlv_x"}', 'subscriptionId'],
      ['{"tenant":"x"}', 'tenant'],
    ] as const) {
      assert.throws(
        () => parseMintPortalSessionBody(body),
        (e: unknown) => e instanceof ValidationError && e.field === field,
        body,
      );
    }
    await assert.rejects(
      mintPortalSession(deps, 'acme', { subscriptionId: 'sub_b' }, BASE),
      (e: unknown) =>
        e instanceof ValidationError &&
        e.field === 'subscriptionId' &&
        /not a subscription of tenant acme/.test(e.message),
    );
    await assert.rejects(
      mintPortalSession(deps, 'acme', { subscriptionId: 'sub_none' }, BASE),
      (e: unknown) => e instanceof ValidationError && e.field === 'subscriptionId',
    );
  });

  it('mints at the access level asked for, view when none is (stored with the link, answered on exchange); refuses any other level naming access', async () => {
    const { deps, portalSessions } = setup();
    const plain = await mintPortalSession(deps, 'acme', parseMintPortalSessionBody(null), BASE);
    assert.equal(plain.access, 'view');
    assert.equal(DEFAULT_PORTAL_ACCESS, 'view');
    assert.equal(
      portalSessions.items.get(plain.id)?.access,
      'view',
      'the level is stored, not re-derived from the default',
    );
    const managed = await mintPortalSession(deps, 'acme', parseMintPortalSessionBody('{"access":"manage"}'), BASE);
    assert.equal(managed.access, 'manage');
    assert.equal((await exchangePortalCode(deps, codeOf(managed.url))).access, 'manage');
    assert.equal((await exchangePortalCode(deps, codeOf(plain.url))).access, 'view');
    for (const body of ['{"access":"admin"}', '{"access":"MANAGE"}', '{"access":true}'])
      assert.throws(
        () => parseMintPortalSessionBody(body),
        (e: unknown) =>
          e instanceof ValidationError &&
          e.field === 'access' &&
          /must be one of "view", "manage"; default "view"/.test(e.message),
        body,
      );
  });

  it('a stored session without a level (minted before levels existed), or with one this version does not know, reads as view', () => {
    assert.equal(portalAccessOf(undefined), 'view');
    assert.equal(portalAccessOf('true'), 'view');
    assert.equal(portalAccessOf('owner'), 'view');
    assert.equal(portalAccessOf('manage'), 'manage');
    assert.equal(
      portalSessionView({ id: 'psn_old', tenantId: 'acme', createdAt: 'x', endsAt: 'y', codeHash: 'h' }).access,
      'view',
    );
  });

  it('trades the code once for a session token that ends with the link', async () => {
    const { deps, portalSessions, clock } = setup();
    const link = await mintPortalSession(deps, 'acme', {}, BASE);
    const session = await exchangePortalCode(deps, codeOf(link.url));
    assert.match(session.token, /^hk_portal_psn_/);
    assert.deepEqual(
      { ...session, token: '' },
      {
        token: '',
        tokenType: 'Bearer',
        sessionId: link.id,
        tenantId: 'acme',
        subscriptionId: null,
        access: 'view',
        expiresAt: link.expiresAt,
      },
    );
    assert.ok(!JSON.stringify([...portalSessions.items.values()]).includes(session.token), 'the token is not stored');
    assert.equal((await portalSession(portalSessions, session.token, clock.nowMs))?.tenantId, 'acme');
    // Once only, whoever tries again.
    await assert.rejects(
      exchangePortalCode(deps, codeOf(link.url)),
      (e: unknown) => e instanceof UnauthorizedError && /already opened at .* works only once/.test(e.message),
    );
    clock.advance(3600_000);
    assert.equal(
      await portalSession(portalSessions, session.token, clock.nowMs),
      undefined,
      'the session ended with the link',
    );
  });

  it('refuses an unknown, forged, expired or revoked code saying which', async () => {
    const { deps, clock } = setup();
    const link = await mintPortalSession(deps, 'acme', { expiresInSeconds: 60 }, BASE);
    const code = codeOf(link.url);
    const forged = `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}`;
    await assert.rejects(exchangePortalCode(deps, forged), /this portal link is not valid/);
    await assert.rejects(exchangePortalCode(deps, code.replace(link.id, 'psn_nope')), /this portal link is not valid/);
    await assert.rejects(exchangePortalCode(deps, 'hk_pcode_garbage'), /this portal link is not valid/);
    clock.advance(60_000);
    await assert.rejects(
      exchangePortalCode(deps, code),
      (e: unknown) => e instanceof UnauthorizedError && e.message.includes(`expired at ${link.expiresAt}`),
    );
    const other = await mintPortalSession(deps, 'acme', {}, BASE);
    await revokePortalSession(deps, 'acme', other.id);
    await assert.rejects(exchangePortalCode(deps, codeOf(other.url)), /was revoked at/);
  });

  it('a revoked session token is refused at once; revoking needs the owning tenant and keeps the first time', async () => {
    const { deps, portalSessions, clock } = setup();
    const link = await mintPortalSession(deps, 'acme', {}, BASE);
    const { token } = await exchangePortalCode(deps, codeOf(link.url));
    await assert.rejects(revokePortalSession(deps, 'globex', link.id), NotFoundError);
    assert.ok(await portalSession(portalSessions, token, clock.nowMs));
    const first = await revokePortalSession(deps, 'acme', link.id);
    clock.advance(1000);
    assert.equal((await revokePortalSession(deps, 'acme', link.id)).revokedAt, first.revokedAt);
    assert.equal(await portalSession(portalSessions, token, clock.nowMs), undefined);
    assert.equal(await portalSession(portalSessions, `${token.slice(0, -2)}xx`, clock.nowMs), undefined);
    assert.equal(await portalSession(portalSessions, 'hk_tenant_abc', clock.nowMs), undefined);
  });

  it('the domain: revoked beats ended; the row outlives its end by a week', () => {
    assert.equal(
      portalSessionStatus(
        { endsAt: '2024-01-01T00:00:00.000Z', revokedAt: '2023-12-31T00:00:00.000Z' },
        '2024-02-01T00:00:00.000Z',
      ),
      'revoked',
    );
    assert.equal(portalSessionStatus({ endsAt: '2024-01-01T00:00:00.000Z' }, '2024-01-01T00:00:00.000Z'), 'ended');
    assert.equal(portalSessionStatus({ endsAt: '2024-01-01T00:00:00.001Z' }, '2024-01-01T00:00:00.000Z'), 'live');
    assert.equal(
      portalSessionTtlSeconds(Date.parse('2024-01-01T00:00:00.000Z')),
      Date.parse('2024-01-08T00:00:00.000Z') / 1000,
    );
  });
});
