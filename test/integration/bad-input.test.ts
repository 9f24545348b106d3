import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { STATE } from '#domain/states.ts';
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
  /** The field the message must name first (`field: rule`), where the refusal is about one. */
  readonly field?: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sub = (url: string, extra: Record<string, unknown> = {}) => ({ url, eventTypes: [NEVER_PUBLISHED], ...extra });
const event = (extra: Record<string, unknown>) => ({ type: 'bad.input', payload: {}, ...extra });
/** An event body around payload text written by hand (numbers and keys JSON.stringify could not produce). */
const rawEvent = (payload: string) => `{"type":"bad.input","payload":${payload}}`;
const replay = (extra: Record<string, unknown>) => ({
  createdFrom: '2024-01-01',
  createdTo: '2024-01-02',
  dryRun: true,
  ...extra,
});
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** Longer than DynamoDB allows a key (2048 bytes). */
const HUGE_ID = 'x'.repeat(3000);

function hostileCases(subscriptionId: string): HostileCase[] {
  const bad = (name: string, path: string, body: unknown, method = 'POST', field?: string): HostileCase => ({
    name,
    method,
    path,
    body,
    status: 400,
    code: 'invalid_request',
    ...(field ? { field } : {}),
  });
  const badSub = (name: string, body: unknown, field?: string) => bad(name, '/v1/subscriptions', body, 'POST', field);
  const badTarget = (name: string, url: string) => badSub(`subscription target: ${name}`, sub(url), 'url');
  const badEvent = (name: string, body: unknown, field?: string) => bad(name, '/v1/events', body, 'POST', field);
  const badPause = (name: string, body: unknown, field?: string) =>
    bad(`pause: ${name}`, `/v1/subscriptions/${subscriptionId}/pause`, body, 'POST', field);
  const badReplay = (name: string, body: unknown, field?: string) =>
    bad(`bulk replay: ${name}`, '/v1/replays', body, 'POST', field);
  const badQuery = (name: string, path: string, field?: string) => bad(name, path, undefined, 'GET', field);
  const wrongMethod = (name: string, path: string, body: unknown, method: string): HostileCase => ({
    name,
    method,
    path,
    body,
    status: 405,
    code: 'method_not_allowed',
  });
  const notFound = (name: string, path: string, method = 'GET'): HostileCase => ({
    name,
    method,
    path,
    status: 404,
    code: 'not_found',
  });
  // A path no route has is the API's surface, never a missing resource.
  const noRoute = (name: string, path: string, method = 'GET'): HostileCase => ({
    name,
    method,
    path,
    status: 404,
    code: 'route_not_found',
  });
  const unauthorized = (
    name: string,
    authorization: string | null,
    method = 'POST',
    path = '/v1/events',
  ): HostileCase => ({
    name,
    method,
    path,
    body: method === 'GET' ? undefined : event({}),
    authorization,
    status: 401,
    code: 'unauthorized',
  });
  return [
    unauthorized('no Authorization header', null),
    unauthorized('wrong key', 'Bearer hk_admin_not_the_key'),
    unauthorized('Basic instead of Bearer', 'Basic YWRtaW46YWRtaW4='),
    unauthorized('empty Bearer', 'Bearer '),
    unauthorized('a 600-character key', `Bearer ${'k'.repeat(600)}`),
    unauthorized('a tab after Bearer', 'Bearer\thk_admin_bad_input_0123456789abcdef'),
    unauthorized('the right key with trailing text', 'Bearer hk_admin_bad_input_0123456789abcdef extra'),
    unauthorized('another scheme with the right key', 'Token hk_admin_bad_input_0123456789abcdef'),
    unauthorized('the key without a scheme', 'hk_admin_bad_input_0123456789abcdef'),
    unauthorized('no key on a listing', null, 'GET', '/v1/subscriptions'),
    unauthorized('no key on an unknown path', null, 'GET', '/v1/nothing-here'),
    unauthorized('no key on a bulk replay', null, 'POST', '/v1/replays'),
    unauthorized('no key on minting a tenant key', null, 'POST', '/v1/tenants/acme/keys'),
    unauthorized('no key on POST /health', null, 'POST', '/health'),

    badEvent('invalid JSON', '{"type": "a",', 'body'),
    badEvent('a JSON array', '[1,2,3]', 'body'),
    badEvent('a JSON string', '"hello"', 'body'),
    badEvent('JSON null', 'null', 'body'),
    badEvent('an empty body', '', 'body'),
    badEvent('a body of whitespace', ' \n\t ', 'body'),
    badEvent('missing type', { payload: {} }, 'type'),
    badEvent('type is a number', { type: 42, payload: {} }, 'type'),
    badEvent('type is an array', { type: ['bad.input'], payload: {} }, 'type'),
    badEvent('type is an object', { type: { name: 'bad.input' }, payload: {} }, 'type'),
    badEvent('type is null', { type: null, payload: {} }, 'type'),
    badEvent('type is a boolean', { type: true, payload: {} }, 'type'),
    badEvent('type is empty', event({ type: '' }), 'type'),
    badEvent('type with a newline', event({ type: 'a.b\nX-Injected: 1' }), 'type'),
    badEvent('type of 300 characters', event({ type: 't'.repeat(300) }), 'type'),
    badEvent('type of 100 000 characters', event({ type: 't'.repeat(100_000) }), 'type'),
    badEvent('type with a Cyrillic lookalike letter', event({ type: 'іnvoice.paid' }), 'type'),
    badEvent('type with a zero-width space', event({ type: 'invoice\u200b.paid' }), 'type'),
    badEvent('type with a right-to-left override', event({ type: 'invoice.\u202edia' }), 'type'),
    badEvent('type "*"', event({ type: '*' }), 'type'),
    badEvent('type with an escaped lone surrogate', '{"type":"bad.input\\ud800","payload":{}}', 'type'),
    badEvent('type with an emoji', event({ type: 'bad.input.🎉' }), 'type'),
    badEvent('missing payload', { type: 'bad.input' }, 'payload'),
    badEvent('an unknown field', event({ extra: true }), 'extra'),
    badEvent('a __proto__ field', '{"type":"bad.input","payload":1,"__proto__":{"admin":true}}', '__proto__'),
    badEvent('header injection in the event id', event({ id: 'evt-1\r\nX-Injected: yes' }), 'id'),
    badEvent('event id of 129 characters', event({ id: 'i'.repeat(129) }), 'id'),
    badEvent('event id is a number', event({ id: 12345 }), 'id'),
    badEvent('event id is an array', event({ id: ['evt-1'] }), 'id'),
    badEvent('event id is an object', event({ id: { id: 'evt-1' } }), 'id'),
    badEvent('event id is null', event({ id: null }), 'id'),
    badEvent('event id is empty', event({ id: '' }), 'id'),
    badEvent('event id is a space', event({ id: ' ' }), 'id'),
    badEvent('event id with a NUL', event({ id: 'evt\u0000x' }), 'id'),
    badEvent('event id with DEL', event({ id: 'evt\u007fx' }), 'id'),
    badEvent('non-ASCII event id', event({ id: 'ünïcödé' }), 'id'),
    badEvent('event id of 3000 characters', event({ id: HUGE_ID }), 'id'),
    badEvent('payload over 256 KiB', event({ payload: 'x'.repeat(300 * 1024) }), 'body'),
    badEvent('payload over 256 KiB in UTF-8 bytes, not characters', event({ payload: 'é'.repeat(140 * 1024) }), 'body'),
    {
      name: 'body over 1 MiB (gateway limit)',
      method: 'POST',
      path: '/v1/events',
      body: event({ payload: 'x'.repeat(1100 * 1024) }),
      status: 413,
      code: 'payload_too_large',
    },

    // Payloads JSON.parse would silently rewrite, or choke on.
    badEvent(
      'a payload number JSON.parse turns into Infinity',
      rawEvent('{"items":[{},{},{},{"price":1e400}]}'),
      'payload.items[3].price',
    ),
    badEvent('a payload number that becomes -Infinity', rawEvent('-1e400'), 'payload'),
    badEvent('a payload integer beyond 2^53', rawEvent('{"id":9007199254740993}'), 'payload.id'),
    badEvent('a payload integer below -2^53', rawEvent('[-9007199254740993]'), 'payload[0]'),
    badEvent('a payload integer of 400 digits', rawEvent(`{"n":${'9'.repeat(400)}}`), 'payload.n'),
    badEvent('a duplicate key in the payload', rawEvent('{"amount":1,"amount":1000}'), 'payload.amount'),
    badEvent('a duplicate key spelt with an escape', rawEvent('{"amount":1,"\\u0061mount":1000}'), 'payload.amount'),
    badEvent('a duplicate key deep in the payload', rawEvent('{"a":[{"b":{"c":1,"c":2}}]}'), 'payload.a[0].b.c'),
    badEvent('a duplicate type field', '{"type":"bad.input","type":"other.type","payload":{}}', 'type'),
    badEvent('a duplicate payload field', '{"type":"bad.input","payload":{},"payload":{"x":1}}', 'payload'),
    badEvent('a duplicate id field', '{"id":"a","id":"b","type":"bad.input","payload":{}}', 'id'),
    badEvent('a payload nested 65 deep', rawEvent(arrays(65)), `payload${'[0]'.repeat(64)}`),
    badEvent('a payload of arrays nested 5000 deep', rawEvent(arrays(5000)), `payload${'[0]'.repeat(64)}`),
    badEvent('a payload of objects nested 5000 deep', rawEvent(objects(5000)), `payload${'.a'.repeat(64)}`),
    badEvent(
      'a payload nested 100 000 deep',
      rawEvent(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      `payload${'[0]'.repeat(64)}`,
    ),
    badEvent(
      'an unknown field nested 5000 deep',
      `{"type":"bad.input","payload":1,"junk":${arrays(5000)}}`,
      `junk${'[0]'.repeat(64)}`,
    ),
    badEvent('NaN in the payload', rawEvent('NaN'), 'body'),
    badEvent('Infinity in the payload', rawEvent('Infinity'), 'body'),
    badEvent('a leading zero in the payload', rawEvent('012'), 'body'),
    badEvent('a trailing comma', '{"type":"bad.input","payload":{},}', 'body'),
    badEvent('single quotes', "{'type':'bad.input','payload':{}}", 'body'),
    badEvent('a comment', '{"type":"bad.input",/* c */"payload":{}}', 'body'),
    badEvent('a raw control character in a string', '{"type":"bad.input","payload":"a\u0001b"}', 'body'),
    badEvent('an invalid escape', rawEvent('"\\x41"'), 'body'),
    badEvent('a truncated unicode escape', rawEvent('"\\u12"'), 'body'),
    badEvent('two JSON values', '{"type":"bad.input","payload":{}} {}', 'body'),
    badEvent('a byte-order mark', '\uFEFF{"type":"bad.input","payload":{}}', 'body'),

    badSub('subscription without url', { eventTypes: ['a.b'] }, 'url'),
    badSub('url is a number', sub(1234 as unknown as string), 'url'),
    badSub('url is an array', sub([PUBLIC_TARGET] as unknown as string), 'url'),
    badSub('url is an object', sub({ href: PUBLIC_TARGET } as unknown as string), 'url'),
    badSub('url is null', sub(null as unknown as string), 'url'),
    badSub('url is a boolean', sub(true as unknown as string), 'url'),
    badSub(
      'url given twice',
      `{"url":"${PUBLIC_TARGET}","url":"https://203.0.113.11/x","eventTypes":["${NEVER_PUBLISHED}"]}`,
      'url',
    ),
    badSub('an unknown subscription field', sub(PUBLIC_TARGET, { secret: 'whsec_mine' }), 'secret'),
    badSub('a subscription body that is an array', [sub(PUBLIC_TARGET)], 'body'),
    badSub(
      'a subscription body nested 5000 deep',
      `{"url":"${PUBLIC_TARGET}","retryPolicy":${objects(5000)}}`,
      `retryPolicy${'.a'.repeat(64)}`,
    ),
    badSub('a subscription body over 64 KiB', sub(PUBLIC_TARGET, { description: 'd'.repeat(70 * 1024) }), 'body'),
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
    badSub('eventTypes empty', sub(PUBLIC_TARGET, { eventTypes: [] }), 'eventTypes'),
    badSub('eventTypes a string', sub(PUBLIC_TARGET, { eventTypes: 'a.b' }), 'eventTypes'),
    badSub('eventTypes an object', sub(PUBLIC_TARGET, { eventTypes: { 0: 'a.b' } }), 'eventTypes'),
    badSub('eventTypes null', sub(PUBLIC_TARGET, { eventTypes: null }), 'eventTypes'),
    badSub('eventTypes nested arrays', sub(PUBLIC_TARGET, { eventTypes: [['a.b']] }), 'eventTypes'),
    badSub(
      'eventTypes of 101 entries',
      sub(PUBLIC_TARGET, { eventTypes: Array.from({ length: 101 }, (_, i) => `t.${i}`) }),
      'eventTypes',
    ),
    badSub(
      'eventTypes of 20 000 entries',
      sub(PUBLIC_TARGET, { eventTypes: Array.from({ length: 20_000 }, (_, i) => `type.${i}`) }),
      'body',
    ),
    badSub('eventTypes with a bad pattern', sub(PUBLIC_TARGET, { eventTypes: ['a..b', '**'] }), 'eventTypes'),
    badSub('eventTypes with a number', sub(PUBLIC_TARGET, { eventTypes: [7] }), 'eventTypes'),
    badSub('eventTypes with a control character', sub(PUBLIC_TARGET, { eventTypes: ['a.\u0000'] }), 'eventTypes'),
    badSub(
      'retryPolicy with an unknown field',
      sub(PUBLIC_TARGET, { retryPolicy: { retries: 3 } }),
      'retryPolicy.retries',
    ),
    badSub(
      'retryPolicy with a negative delay',
      sub(PUBLIC_TARGET, { retryPolicy: { initialDelaySeconds: -1 } }),
      'retryPolicy.initialDelaySeconds',
    ),
    badSub('retryPolicy as a string', sub(PUBLIC_TARGET, { retryPolicy: 'fast' }), 'retryPolicy'),
    badSub('retryPolicy as an array', sub(PUBLIC_TARGET, { retryPolicy: [1, 2] }), 'retryPolicy'),
    badSub(
      'retryPolicy delay as a string',
      sub(PUBLIC_TARGET, { retryPolicy: { initialDelaySeconds: '10' } }),
      'retryPolicy.initialDelaySeconds',
    ),
    badSub(
      'retryPolicy jitter as an array',
      sub(PUBLIC_TARGET, { retryPolicy: { jitter: [0.1] } }),
      'retryPolicy.jitter',
    ),
    badSub(
      'retryPolicy maxAttempts as a fraction',
      sub(PUBLIC_TARGET, { retryPolicy: { maxAttempts: 1.5 } }),
      'retryPolicy.maxAttempts',
    ),
    badSub(
      'retryPolicy multiplier 1e400',
      `{"url":"${PUBLIC_TARGET}","retryPolicy":{"multiplier":1e400}}`,
      'retryPolicy.multiplier',
    ),
    badSub(
      'retryPolicy deadline beyond 2^53',
      `{"url":"${PUBLIC_TARGET}","retryPolicy":{"deadlineSeconds":9007199254740993}}`,
      'retryPolicy.deadlineSeconds',
    ),
    badSub(
      'retryPolicy field given twice',
      `{"url":"${PUBLIC_TARGET}","retryPolicy":{"jitter":0,"jitter":0.5}}`,
      'retryPolicy.jitter',
    ),
    badSub('description of 2000 characters', sub(PUBLIC_TARGET, { description: 'd'.repeat(2000) }), 'description'),
    badSub('description is a number', sub(PUBLIC_TARGET, { description: 5 }), 'description'),
    badSub('description is an array', sub(PUBLIC_TARGET, { description: ['billing'] }), 'description'),
    badSub('description is an object', sub(PUBLIC_TARGET, { description: { text: 'billing' } }), 'description'),
    badSub('tenantId with a slash', sub(PUBLIC_TARGET, { tenantId: '../other' }), 'tenantId'),
    badSub('tenantId is a number', sub(PUBLIC_TARGET, { tenantId: 7 }), 'tenantId'),
    badSub('tenantId is an array', sub(PUBLIC_TARGET, { tenantId: ['acme'] }), 'tenantId'),
    badSub('tenantId with a control character', sub(PUBLIC_TARGET, { tenantId: 'acme\u0007' }), 'tenantId'),
    badSub('tenantId of 200 characters', sub(PUBLIC_TARGET, { tenantId: 't'.repeat(200) }), 'tenantId'),

    badPause('reason is a number', { reason: 5 }, 'reason'),
    badPause('reason is an array', { reason: ['maintenance'] }, 'reason'),
    badPause('reason is empty', { reason: '' }, 'reason'),
    badPause('reason of 501 characters', { reason: 'r'.repeat(501) }, 'reason'),
    badPause('an unknown field', { reason: 'x', until: 'tomorrow' }, 'until'),
    badPause('invalid JSON', '{"reason":', 'body'),
    badPause('a JSON array', '["maintenance"]', 'body'),
    badPause('reason given twice', '{"reason":"a","reason":"b"}', 'reason'),
    badPause('a body over 4 KiB', { reason: 'r'.repeat(5000) }, 'body'),

    badReplay('no createdFrom', { createdTo: '2024-01-02' }, 'createdFrom'),
    badReplay('createdFrom is a number', replay({ createdFrom: 1714521600000 }), 'createdFrom'),
    badReplay('createdFrom is an array', replay({ createdFrom: ['2024-01-01'] }), 'createdFrom'),
    badReplay('createdFrom on 30 February', replay({ createdFrom: '2024-02-30' }), 'createdFrom'),
    badReplay('createdFrom in month 13', replay({ createdFrom: '2024-13-01' }), 'createdFrom'),
    badReplay('createdTo on 29 February of a common year', replay({ createdTo: '2023-02-29T00:00:00Z' }), 'createdTo'),
    badReplay('createdTo at hour 24', replay({ createdTo: '2024-01-02T24:00:00Z' }), 'createdTo'),
    badReplay('createdTo without a zone', replay({ createdTo: '2024-01-02T10:00:00' }), 'createdTo'),
    badReplay(
      'createdTo before createdFrom',
      replay({ createdFrom: '2024-02-01', createdTo: '2024-01-01' }),
      'createdTo',
    ),
    badReplay('states is a string', replay({ states: STATE.failed }), 'states'),
    badReplay('states is empty', replay({ states: [] }), 'states'),
    badReplay('states with a live state', replay({ states: [STATE.pending] }), 'states'),
    badReplay('states with a number', replay({ states: [1] }), 'states'),
    badReplay('subscriptionId is an array', replay({ subscriptionId: [subscriptionId] }), 'subscriptionId'),
    badReplay('subscriptionId is a number', replay({ subscriptionId: 5 }), 'subscriptionId'),
    badReplay('subscriptionId is an object', replay({ subscriptionId: { id: subscriptionId } }), 'subscriptionId'),
    badReplay('subscriptionId of 3000 characters', replay({ subscriptionId: `sub_${HUGE_ID}` }), 'subscriptionId'),
    badReplay('tenantId is an array', replay({ tenantId: ['acme'] }), 'tenantId'),
    badReplay('dryRun is a string', replay({ dryRun: 'true' }), 'dryRun'),
    badReplay('windowSeconds is a string', replay({ windowSeconds: '60' }), 'windowSeconds'),
    badReplay('windowSeconds is negative', replay({ windowSeconds: -1 }), 'windowSeconds'),
    badReplay(
      'windowSeconds 1e400',
      '{"createdFrom":"2024-01-01","createdTo":"2024-01-02","windowSeconds":1e400}',
      'windowSeconds',
    ),
    badReplay('operator is a number', replay({ operator: 7 }), 'operator'),
    badReplay('operator with a newline', replay({ operator: 'alice\nX-Injected: 1' }), 'operator'),
    badReplay('an unknown field', replay({ force: true }), 'force'),
    badReplay('a JSON array', '[]', 'body'),
    badReplay('a body over 16 KiB', replay({ operator: 'o'.repeat(17 * 1024) }), 'body'),
    badReplay(
      'createdFrom given twice',
      '{"createdFrom":"2024-01-01","createdFrom":"2020-01-01","createdTo":"2024-01-02"}',
      'createdFrom',
    ),

    bad('tenant key: a malformed percent-escape', '/v1/tenants/%E0%A4%A/keys', undefined, 'POST', 'tenantId'),
    bad('tenant key: a lone percent sign', '/v1/tenants/acme%/keys', undefined, 'POST', 'tenantId'),
    bad('tenant key: an encoded slash', '/v1/tenants/..%2Fother/keys', undefined, 'POST', 'tenantId'),
    bad('tenant key: an encoded NUL', '/v1/tenants/acme%00/keys', undefined, 'POST', 'tenantId'),
    bad('tenant key: encoded non-ASCII', '/v1/tenants/%C3%BCber/keys', undefined, 'POST', 'tenantId'),
    bad('tenant key: a tenant of 200 characters', `/v1/tenants/${'t'.repeat(200)}/keys`, undefined, 'POST', 'tenantId'),
    noRoute('tenant key: a tenant of 3000 characters', `/v1/tenants/${HUGE_ID}/keys`, 'POST'),

    notFound('unknown subscription id', '/v1/subscriptions/sub_doesnotexist'),
    notFound('unknown delivery id', '/v1/deliveries/dlv_doesnotexist'),
    notFound('replay of an unknown delivery', '/v1/deliveries/dlv_doesnotexist/replay', 'POST'),
    notFound('pause of an unknown subscription', '/v1/subscriptions/sub_doesnotexist/pause', 'POST'),
    notFound('resume of an unknown subscription', '/v1/subscriptions/sub_doesnotexist/resume', 'POST'),
    notFound('an unknown bulk replay', '/v1/replays/rpl_doesnotexist'),
    noRoute('an unknown route', '/v1/nothing-here'),
    noRoute('an encoded dot-dot path', '/v1/subscriptions/%2e%2e%2f%2e%2e%2fetc'),
    noRoute('a subscription id over 2 KB', `/v1/subscriptions/sub_${HUGE_ID}`),
    noRoute('pause with an id over 2 KB', `/v1/subscriptions/sub_${HUGE_ID}/pause`, 'POST'),
    noRoute('resume with an id over 2 KB', `/v1/subscriptions/sub_${HUGE_ID}/resume`, 'POST'),
    noRoute('a delivery id over 2 KB', `/v1/deliveries/dlv_${HUGE_ID}`),
    noRoute('replay of a delivery id over 2 KB', `/v1/deliveries/dlv_${HUGE_ID}/replay`, 'POST'),
    noRoute('a bulk replay id over 2 KB', `/v1/replays/rpl_${HUGE_ID}`),
    noRoute('a subscription id with an encoded NUL', '/v1/subscriptions/sub_a%00b'),
    noRoute('a subscription id with a malformed percent-escape', '/v1/subscriptions/sub_%E0%A4%A'),
    noRoute('a subscription id with encoded non-ASCII', '/v1/subscriptions/sub_%C3%BC'),
    noRoute('a delivery id with an encoded newline', '/v1/deliveries/dlv_a%0D%0Ab'),
    noRoute('an empty path segment', '/v1//subscriptions'),

    badQuery('cursor with bad characters', '/v1/dead-letters?cursor=!!!', 'cursor'),
    badQuery('cursor that is not base64 JSON', '/v1/dead-letters?cursor=AAAA', 'cursor'),
    badQuery('cursor that is a JSON array', `/v1/dead-letters?cursor=${b64([1, 2])}`, 'cursor'),
    badQuery(
      'cursor with nested objects',
      `/v1/subscriptions?cursor=${b64({ id: { nested: { deep: 1 } } })}`,
      'cursor',
    ),
    badQuery(
      'cursor forged with the wrong key for the table',
      `/v1/subscriptions?cursor=${b64({ notTheKey: 'x' })}`,
      'cursor',
    ),
    badQuery(
      'cursor forged with the wrong key for the index',
      `/v1/deliveries?subscriptionId=${subscriptionId}&cursor=${b64({ id: 'dlv_x' })}`,
      'cursor',
    ),
    badQuery('cursor of 3000 characters', `/v1/dead-letters?cursor=${'A'.repeat(3000)}`, 'cursor'),
    badQuery(
      'cursor of base64 JSON nested deep',
      `/v1/subscriptions?cursor=${Buffer.from(arrays(500)).toString('base64url')}`,
      'cursor',
    ),
    badQuery('limit 0', '/v1/dead-letters?limit=0', 'limit'),
    badQuery('limit 1000', '/v1/dead-letters?limit=1000', 'limit'),
    badQuery('limit not a number', '/v1/dead-letters?limit=ten', 'limit'),
    badQuery('limit negative', '/v1/subscriptions?limit=-1', 'limit'),
    badQuery('limit in exponent form', '/v1/subscriptions?limit=1e2', 'limit'),
    badQuery('limit of 30 digits', `/v1/subscriptions?limit=${'9'.repeat(30)}`, 'limit'),
    badQuery('limit with a space', '/v1/subscriptions?limit=%205', 'limit'),
    badQuery('limit empty', '/v1/subscriptions?limit=', 'limit'),
    badQuery('unknown state filter', `/v1/deliveries?subscriptionId=${subscriptionId}&state=lost`, 'state'),
    badQuery('a state filter in capitals', `/v1/deliveries?subscriptionId=${subscriptionId}&state=FAILED`, 'state'),
    badQuery('deliveries without subscriptionId', '/v1/deliveries', 'subscriptionId'),
    badQuery('malformed subscriptionId', '/v1/deliveries?subscriptionId=%27%20OR%201%3D1', 'subscriptionId'),
    badQuery('subscriptionId of 3000 characters', `/v1/deliveries?subscriptionId=sub_${HUGE_ID}`, 'subscriptionId'),
    badQuery('subscriptionId with a NUL', '/v1/deliveries?subscriptionId=sub_a%00', 'subscriptionId'),
    badQuery(
      'subscriptionId with a malformed percent-escape',
      '/v1/deliveries?subscriptionId=sub_%E0%A4%A',
      'subscriptionId',
    ),
    badQuery(
      'subscriptionId as a bracketed array',
      `/v1/deliveries?subscriptionId[]=${subscriptionId}`,
      'subscriptionId',
    ),
    badQuery('dead letters of a delivery id', '/v1/dead-letters?subscriptionId=dlv_x', 'subscriptionId'),
    badQuery('tenantId filter with an encoded slash', '/v1/subscriptions?tenantId=..%2Fother', 'tenantId'),
    badQuery(
      'subscriptionId repeated',
      `/v1/deliveries?subscriptionId=${subscriptionId}&subscriptionId=sub_other`,
      'subscriptionId',
    ),
    badQuery(
      'subscriptionId repeated on dead letters',
      `/v1/dead-letters?subscriptionId=${subscriptionId}&subscriptionId=sub_other`,
      'subscriptionId',
    ),
    badQuery('limit repeated', '/v1/dead-letters?limit=5&limit=6', 'limit'),
    badQuery(
      'state repeated',
      `/v1/deliveries?subscriptionId=${subscriptionId}&state=${STATE.failed}&state=${STATE.expired}`,
      'state',
    ),
    badQuery('cursor repeated', '/v1/subscriptions?cursor=a&cursor=b', 'cursor'),
    badQuery('tenantId repeated', '/v1/subscriptions?tenantId=acme&tenantId=globex', 'tenantId'),

    wrongMethod('DELETE on subscriptions', '/v1/subscriptions', undefined, 'DELETE'),
    wrongMethod('PUT on events', '/v1/events', event({}), 'PUT'),
    // GET /v1/events lists events; PATCH is on no events route.
    wrongMethod('PATCH on events', '/v1/events', undefined, 'PATCH'),
    wrongMethod('DELETE on events', '/v1/events', undefined, 'DELETE'),
    wrongMethod('PUT on a subscription', `/v1/subscriptions/${subscriptionId}`, { state: 'disabled' }, 'PUT'),
    // PATCH may not change the state (pause, resume and delete have their own routes).
    bad(
      "PATCH of a subscription's state",
      `/v1/subscriptions/${subscriptionId}`,
      { state: 'disabled' },
      'PATCH',
      'state',
    ),
    bad(
      "PATCH of a subscription's secrets",
      `/v1/subscriptions/${subscriptionId}`,
      { secrets: [] },
      'PATCH',
      'secrets',
    ),
    bad('PATCH with an empty body object', `/v1/subscriptions/${subscriptionId}`, {}, 'PATCH', 'body'),
    bad(
      'PATCH with a header Hookline sets',
      `/v1/subscriptions/${subscriptionId}`,
      { headers: { 'Webhook-Signature': 'v1,forged' } },
      'PATCH',
      'headers.Webhook-Signature',
    ),
    bad(
      'rotate-secret with a secret that is not whsec_',
      `/v1/subscriptions/${subscriptionId}/rotate-secret`,
      { secret: 'hunter2' },
      'POST',
      'secret',
    ),
    bad(
      'rotate-secret with an overlap of a year',
      `/v1/subscriptions/${subscriptionId}/rotate-secret`,
      { overlapSeconds: 31_536_000 },
      'POST',
      'overlapSeconds',
    ),
    wrongMethod('GET on pause', `/v1/subscriptions/${subscriptionId}/pause`, undefined, 'GET'),
    wrongMethod('PUT on replays', '/v1/replays', replay({}), 'PUT'),
    wrongMethod('PUT on tenant keys', '/v1/tenants/acme/keys', undefined, 'PUT'),
    wrongMethod('DELETE on a delivery', '/v1/deliveries/dlv_x', undefined, 'DELETE'),
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

  it('has at least 150 hostile cases, each named once', () => {
    const names = hostileCases('sub_x').map((c) => c.name);
    assert.ok(names.length >= 150, `${names.length} cases`);
    assert.equal(new Set(names).size, names.length);
  });

  for (const c of hostileCases('sub_placeholder')) {
    it(`${c.method ?? 'POST'} ${c.name} → ${c.status} ${c.code}${c.field ? ` on ${c.field.length > 40 ? `${c.field.slice(0, 40)}…` : c.field}` : ''}`, async () => {
      const real = hostileCases(subscriptionId).find((x) => x.name === c.name)!;
      const before = await countTables(stack.runtime);
      const res = await send(real);
      assert.equal(res.status, real.status, `status for ${real.name}: ${JSON.stringify(res.body)}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(typeof res.body?.error?.message, 'string', JSON.stringify(res.body));
      assert.ok(res.body.error.message.length > 0);
      assert.equal(res.body.error.code, real.code);
      assert.deepEqual(Object.keys(res.body), ['error']);
      if (real.field)
        assert.ok(
          res.body.error.message.startsWith(`${real.field}:`) || res.body.error.message.startsWith(`${real.field} `),
          `names ${real.field}: ${res.body.error.message.slice(0, 300)}`,
        );
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
    const created = await send({
      path: '/v1/subscriptions',
      body: sub(PUBLIC_TARGET, { description: 'after the storm' }),
    });
    assert.equal(created.status, 201);
    const got = await stack.api.get(`/v1/subscriptions/${created.body.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.description, 'after the storm');
    const published = await send({
      path: '/v1/events',
      body: { id: 'bad-input-after', type: 'bad-input.other', payload: { ok: true } },
    });
    assert.equal(published.status, 202);
    assert.deepEqual(published.body.deliveryIds, []);
    const counts = await countTables(stack.runtime);
    assert.deepEqual(
      { subscriptions: counts.subscriptions, deliveries: counts.deliveries, attempts: counts.attempts },
      { subscriptions: 2, deliveries: 0, attempts: 0 },
    );
  });
});
