import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isForbiddenAddress } from '#domain/targets.ts';
import { apiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { countTables } from '#test/table-counts.ts';

/**
 * Hostile and malformed requests against the API in cloud mode (private targets refused):
 * each gets a 4xx with the documented `{"error":{"code","message"}}` shape, nothing is
 * stored, and the service keeps serving. (Another tenant's ids: tenant-scoped keys come with
 * issue 4; that case belongs there.)
 */

/** TEST-NET-3 (RFC 5737): a public literal that passes the target rules and is never called. */
const PUBLIC_TARGET = 'https://203.0.113.10/hooks';
/** No event of this type is ever published, so nothing is sent to PUBLIC_TARGET. */
const NEVER_PUBLISHED = 'bad-input.never';

interface HostileCase {
  readonly name: string;
  readonly method?: string;
  readonly path: string;
  /** A string is sent byte for byte; anything else as JSON. */
  readonly body?: unknown;
  /** The Authorization header; omitted means the admin key, null means none at all. */
  readonly authorization?: string | null;
  readonly status: number;
  readonly code: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sub = (url: string, extra: Record<string, unknown> = {}) => ({ url, eventTypes: [NEVER_PUBLISHED], ...extra });
const event = (extra: Record<string, unknown>) => ({ type: 'bad.input', payload: {}, ...extra });

function hostileCases(subscriptionId: string): HostileCase[] {
  const bad = (name: string, path: string, body: unknown, method = 'POST'): HostileCase => ({ name, method, path, body, status: 400, code: 'invalid_request' });
  const badSub = (name: string, body: unknown) => bad(name, '/v1/subscriptions', body);
  const badTarget = (name: string, url: string) => badSub(`subscription target: ${name}`, sub(url));
  const badEvent = (name: string, body: unknown) => bad(name, '/v1/events', body);
  const wrongMethod = (name: string, path: string, body: unknown, method: string): HostileCase => ({ name, method, path, body, status: 405, code: 'method_not_allowed' });
  const notFound = (name: string, path: string, method = 'GET'): HostileCase => ({ name, method, path, status: 404, code: 'not_found' });
  const unauthorized = (name: string, authorization: string | null): HostileCase => ({
    name, method: 'POST', path: '/v1/events', body: event({}), authorization, status: 401, code: 'unauthorized',
  });
  return [
    unauthorized('no Authorization header', null),
    unauthorized('wrong key', 'Bearer hk_admin_not_the_key'),
    unauthorized('Basic instead of Bearer', 'Basic YWRtaW46YWRtaW4='),
    unauthorized('empty Bearer', 'Bearer '),
    unauthorized('a 600-character key', `Bearer ${'k'.repeat(600)}`),

    badEvent('invalid JSON', '{"type": "a",'),
    badEvent('a JSON array', '[1,2,3]'),
    badEvent('a JSON string', '"hello"'),
    badEvent('JSON null', 'null'),
    badEvent('an empty body', ''),
    badEvent('missing type', { payload: {} }),
    badEvent('type is a number', { type: 42, payload: {} }),
    badEvent('type is empty', event({ type: '' })),
    badEvent('type with a newline', event({ type: 'a.b\nX-Injected: 1' })),
    badEvent('type of 300 characters', event({ type: 't'.repeat(300) })),
    badEvent('missing payload', { type: 'bad.input' }),
    badEvent('an unknown field', event({ extra: true })),
    badEvent('a __proto__ field', '{"type":"bad.input","payload":1,"__proto__":{"admin":true}}'),
    badEvent('header injection in the event id', event({ id: 'evt-1\r\nX-Injected: yes' })),
    badEvent('event id of 129 characters', event({ id: 'i'.repeat(129) })),
    badEvent('event id is a number', event({ id: 12345 })),
    badEvent('non-ASCII event id', event({ id: 'ünïcödé' })),
    badEvent('payload over 256 KiB', event({ payload: 'x'.repeat(300 * 1024) })),
    { name: 'body over 1 MiB (gateway limit)', method: 'POST', path: '/v1/events', body: event({ payload: 'x'.repeat(1100 * 1024) }), status: 413, code: 'payload_too_large' },

    badSub('subscription without url', { eventTypes: ['a.b'] }),
    badSub('url is a number', sub(1234 as unknown as string)),
    badSub('an unknown subscription field', sub(PUBLIC_TARGET, { secret: 'whsec_mine' })),
    badTarget('not a URL', 'not a url'),
    badTarget('ftp scheme', 'ftp://203.0.113.10/x'),
    badTarget('javascript scheme', 'javascript:alert(1)'),
    badTarget('file scheme', 'file:///etc/passwd'),
    badTarget('header injection (CRLF)', 'https://203.0.113.10/x\r\nX-Injected: yes'),
    badTarget('credentials in the URL', 'https://user:pass@203.0.113.10/x'),
    badTarget('a fragment', 'https://203.0.113.10/x#frag'),
    badTarget('over 2048 characters', `https://203.0.113.10/${'a'.repeat(2100)}`),
    badTarget('IPv4 loopback', 'http://127.0.0.1:8080/x'),
    badTarget('loopback elsewhere in 127/8', 'http://127.1.2.3/x'),
    badTarget('decimal loopback', 'http://2130706433/x'),
    badTarget('hex loopback', 'http://0x7f.0.0.1/x'),
    badTarget('localhost', 'http://localhost:3000/x'),
    badTarget('localhost with a trailing dot', 'http://localhost./x'),
    badTarget('a *.localhost name', 'http://hooks.localhost/x'),
    badTarget('0.0.0.0', 'http://0.0.0.0/x'),
    badTarget('private 10/8', 'http://10.0.0.1/x'),
    badTarget('private 172.16/12', 'http://172.16.5.4/x'),
    badTarget('private 192.168/16', 'http://192.168.1.1/x'),
    badTarget('CGNAT 100.64/10', 'http://100.64.0.1/x'),
    badTarget('link-local metadata 169.254.169.254', 'http://169.254.169.254/latest/meta-data/'),
    badTarget('metadata.google.internal', 'http://metadata.google.internal/computeMetadata/v1/'),
    badTarget('IPv6 loopback', 'http://[::1]:8080/x'),
    badTarget('IPv6 unspecified', 'http://[::]/x'),
    badTarget('IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/x'),
    badTarget('IPv4-mapped IPv6 metadata', 'http://[::ffff:169.254.169.254]/x'),
    badTarget('IPv6 link-local', 'http://[fe80::1]/x'),
    badTarget('AWS IPv6 metadata fd00:ec2::254', 'http://[fd00:ec2::254]/latest/meta-data/'),
    badTarget('NAT64 of a private address', 'http://[64:ff9b::a00:1]/x'),
    badSub('eventTypes empty', sub(PUBLIC_TARGET, { eventTypes: [] })),
    badSub('eventTypes a string', sub(PUBLIC_TARGET, { eventTypes: 'a.b' })),
    badSub('eventTypes of 101 entries', sub(PUBLIC_TARGET, { eventTypes: Array.from({ length: 101 }, (_, i) => `t.${i}`) })),
    badSub('eventTypes of 20 000 entries', sub(PUBLIC_TARGET, { eventTypes: Array.from({ length: 20_000 }, (_, i) => `type.${i}`) })),
    badSub('eventTypes with a bad pattern', sub(PUBLIC_TARGET, { eventTypes: ['a..b', '**'] })),
    badSub('eventTypes with a number', sub(PUBLIC_TARGET, { eventTypes: [7] })),
    badSub('retryPolicy with an unknown field', sub(PUBLIC_TARGET, { retryPolicy: { retries: 3 } })),
    badSub('retryPolicy with a negative delay', sub(PUBLIC_TARGET, { retryPolicy: { initialDelaySeconds: -1 } })),
    badSub('retryPolicy as a string', sub(PUBLIC_TARGET, { retryPolicy: 'fast' })),
    badSub('description of 2000 characters', sub(PUBLIC_TARGET, { description: 'd'.repeat(2000) })),
    badSub('tenantId with a slash', sub(PUBLIC_TARGET, { tenantId: '../other' })),

    notFound('unknown subscription id', '/v1/subscriptions/sub_doesnotexist'),
    notFound('unknown delivery id', '/v1/deliveries/dlv_doesnotexist'),
    notFound('replay of an unknown delivery', '/v1/deliveries/dlv_doesnotexist/replay', 'POST'),
    notFound('pause of an unknown subscription', '/v1/subscriptions/sub_doesnotexist/pause', 'POST'),
    notFound('resume of an unknown subscription', '/v1/subscriptions/sub_doesnotexist/resume', 'POST'),
    notFound('an unknown route', '/v1/nothing-here'),
    notFound('an encoded dot-dot path', '/v1/subscriptions/%2e%2e%2f%2e%2e%2fetc'),

    bad('cursor with bad characters', '/v1/dead-letters?cursor=!!!', undefined, 'GET'),
    bad('cursor that is not base64 JSON', '/v1/dead-letters?cursor=AAAA', undefined, 'GET'),
    bad('cursor that is a JSON array', `/v1/dead-letters?cursor=${b64([1, 2])}`, undefined, 'GET'),
    bad('cursor with nested objects', `/v1/subscriptions?cursor=${b64({ id: { nested: { deep: 1 } } })}`, undefined, 'GET'),
    bad('cursor forged with the wrong key for the table', `/v1/subscriptions?cursor=${b64({ notTheKey: 'x' })}`, undefined, 'GET'),
    bad('cursor forged with the wrong key for the index', `/v1/deliveries?subscriptionId=${subscriptionId}&cursor=${b64({ id: 'dlv_x' })}`, undefined, 'GET'),
    bad('limit 0', '/v1/dead-letters?limit=0', undefined, 'GET'),
    bad('limit 1000', '/v1/dead-letters?limit=1000', undefined, 'GET'),
    bad('limit not a number', '/v1/dead-letters?limit=ten', undefined, 'GET'),
    bad('unknown state filter', `/v1/deliveries?subscriptionId=${subscriptionId}&state=lost`, undefined, 'GET'),
    bad('deliveries without subscriptionId', '/v1/deliveries', undefined, 'GET'),
    bad('malformed subscriptionId', '/v1/deliveries?subscriptionId=%27%20OR%201%3D1', undefined, 'GET'),

    wrongMethod('DELETE on subscriptions', '/v1/subscriptions', undefined, 'DELETE'),
    wrongMethod('PUT on events', '/v1/events', event({}), 'PUT'),
    wrongMethod('GET on events', '/v1/events', undefined, 'GET'),
    wrongMethod('PATCH on a subscription', `/v1/subscriptions/${subscriptionId}`, { state: 'disabled' }, 'PATCH'),
  ];
}

describe('bad input: hostile requests get a clear 4xx and store nothing', () => {
  let stack: LocalStack;
  let subscriptionId: string;
  let privateHost: string | undefined;

  const send = (c: Pick<HostileCase, 'method' | 'path' | 'body' | 'authorization'>) => {
    const headers: Record<string, string> = {};
    if (c.authorization === undefined) headers.authorization = `Bearer ${stack.runtime.adminKey}`;
    else if (c.authorization !== null) headers.authorization = c.authorization;
    // A client without a default key, so each case controls the Authorization header alone.
    return apiClient(stack.runtime.url).raw(c.method ?? 'POST', c.path, c.body, headers);
  };

  before(async () => {
    stack = await startLocalStack({ allowPrivateTargets: false, adminKey: 'hk_admin_bad_input_0123456789abcdef' });
    const created = await stack.api.post('/v1/subscriptions', sub(PUBLIC_TARGET));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    subscriptionId = created.body.id;
    // This machine's own name resolves through /etc/hosts, without DNS traffic, usually to loopback.
    const name = hostname();
    const addresses = await lookup(name, { all: true }).catch(() => []);
    if (!/localhost$/i.test(name) && addresses.some((a) => isForbiddenAddress(a.address))) privateHost = name;
  });
  after(() => stack.stop());

  it('has at least 40 hostile cases', () => {
    assert.ok(hostileCases('sub_x').length >= 40);
  });

  for (const c of hostileCases('sub_placeholder')) {
    it(`${c.method ?? 'POST'} ${c.name} → ${c.status} ${c.code}`, async () => {
      const real = hostileCases(subscriptionId).find((x) => x.name === c.name)!;
      const before = await countTables(stack.runtime);
      const res = await send(real);
      assert.equal(res.status, real.status, `status for ${real.name}: ${JSON.stringify(res.body)}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(typeof res.body?.error?.message, 'string', JSON.stringify(res.body));
      assert.ok(res.body.error.message.length > 0);
      assert.equal(res.body.error.code, real.code);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.deepEqual(await countTables(stack.runtime), before, 'nothing stored');
    });
  }

  it('refuses a hostname that resolves to a private address', async (t) => {
    if (!privateHost) return t.skip('this machine name does not resolve locally to a private address');
    const before = await countTables(stack.runtime);
    const res = await send({ path: '/v1/subscriptions', body: sub(`http://${privateHost}:8080/x`) });
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /resolves to/);
    assert.deepEqual(await countTables(stack.runtime), before);
  });

  it('keeps serving: health, a good subscription and a good publish work afterwards', async () => {
    assert.equal((await stack.api.get('/health')).status, 200);
    const created = await send({ path: '/v1/subscriptions', body: sub(PUBLIC_TARGET, { description: 'after the storm' }) });
    assert.equal(created.status, 201);
    const got = await stack.api.get(`/v1/subscriptions/${created.body.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.description, 'after the storm');
    const published = await send({ path: '/v1/events', body: { id: 'bad-input-after', type: 'bad-input.other', payload: { ok: true } } });
    assert.equal(published.status, 202);
    assert.deepEqual(published.body.deliveryIds, []);
    const counts = await countTables(stack.runtime);
    assert.deepEqual({ subscriptions: counts.subscriptions, deliveries: counts.deliveries, attempts: counts.attempts }, { subscriptions: 2, deliveries: 0, attempts: 0 });
  });
});
