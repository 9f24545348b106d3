import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { createClient, HooklineApiError, HooklineUnreachableError, pathFor } from '#client/hookline-client.ts';
import { errorResponse } from '#handlers/api/http.ts';
import { route } from '#handlers/api/router.ts';
import { checkAnswer } from '#test/api-contract.ts';
import { fakeDeps } from '#test/fakes.ts';

const KEY = 'hk_admin_client_test_0123456789';

/** The real router over in-memory fakes, behind a real HTTP server: what the client talks to. */
function apiServer() {
  const deps = fakeDeps() as unknown as FunctionDeps<'api'>;
  return http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
      );
      let status: number;
      let body: string;
      let extra: Record<string, string> = {};
      try {
        const answer = await route(deps, {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          body: text || null,
          headers,
          principal: req.headers.authorization === `Bearer ${KEY}` ? ADMIN : undefined,
        });
        status = answer.status;
        body = JSON.stringify(answer.body);
      } catch (error) {
        const { response } = errorResponse(error);
        status = response.statusCode;
        body = response.body;
        extra = response.headers as Record<string, string>;
      }
      res.writeHead(status, { 'content-type': 'application/json', ...extra });
      res.end(body);
    });
  });
}

describe('the typed client (client/hookline-client.ts) against the real router', () => {
  const server = apiServer();
  let baseUrl: string;
  const seen: string[] = [];
  before(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((done) => server.close(() => done())));

  // Every answer is also checked against the OpenAPI document.
  const client = () =>
    createClient({
      baseUrl,
      key: KEY,
      onAnswer: ({ key, method, path, status, body }) => {
        seen.push(`${key} ${status}`);
        checkAnswer(method, path, status, body);
      },
    });

  it('builds each path from the operations table key, percent-encoding parameters', () => {
    assert.equal(
      pathFor('GET /v1/subscriptions/{subscriptionId}', { subscriptionId: 'sub_a' }),
      '/v1/subscriptions/sub_a',
    );
    assert.equal(
      pathFor('POST /v1/tenants/{tenantId}/keys', { tenantId: 'acme:eu/1' }),
      '/v1/tenants/acme%3Aeu%2F1/keys',
    );
    assert.throws(() => pathFor('GET /v1/replays/{replayId}'), /needs the path parameter replayId/);
  });

  it('creates, reads, lists and pages subscriptions, typed from the schemas', async () => {
    const hookline = client();
    const created = await hookline.request('POST /v1/subscriptions', {
      body: { url: 'https://example.com/hooks', eventTypes: ['invoice.*'] },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.secret ?? '', /^whsec_/);
    const id: string = created.body.id;
    const read = await hookline.call('GET /v1/subscriptions/{subscriptionId}', { params: { subscriptionId: id } });
    assert.deepEqual([read.id, read.eventTypes, read.state], [id, ['invoice.*'], 'active']);
    assert.equal('secret' in read, false);

    for (let i = 0; i < 2; i++)
      await hookline.call('POST /v1/subscriptions', { body: { url: `https://example.com/hooks/${i}` } });
    const page = await hookline.call('GET /v1/subscriptions', { query: { limit: 2 } });
    assert.equal(page.items.length, 2);
    assert.ok(page.nextCursor);
    const all: string[] = [];
    for await (const s of hookline.paginate('GET /v1/subscriptions', { query: { limit: 1 } })) all.push(s.url);
    assert.equal(all.length, 3);
    assert.equal(new Set(all).size, 3);
  });

  it('publishes JSON text exactly as given (bodyText), and reads the status a duplicate answers', async () => {
    const hookline = client();
    const first = await hookline.request('POST /v1/events', {
      bodyText: '{"id":"cl-1","type":"invoice.paid","payload":{"n":1.0}}',
    });
    assert.equal(first.status, 202);
    const again = await hookline.request('POST /v1/events', {
      bodyText: '{"id":"cl-1","type":"invoice.paid","payload":{"n":1.0}}',
    });
    assert.deepEqual([again.status, again.body.eventId], [200, 'cl-1']);
  });

  it('throws HooklineApiError with the code, message and status of a refusal', async () => {
    const hookline = client();
    await assert.rejects(
      hookline.call('GET /v1/subscriptions/{subscriptionId}', { params: { subscriptionId: 'sub_nope' } }),
      (e: unknown) =>
        e instanceof HooklineApiError && e.status === 404 && e.code === 'not_found' && /sub_nope/.test(e.message),
    );
    await assert.rejects(
      hookline.call('GET /v1/deliveries', { query: { subscriptionId: 'sub_a', limit: 0 } }),
      (e: unknown) => e instanceof HooklineApiError && e.status === 400 && /^limit: /.test(e.message),
    );
    const anonymous = createClient({ baseUrl });
    await assert.rejects(
      anonymous.call('GET /v1/subscriptions'),
      (e: unknown) => e instanceof HooklineApiError && e.status === 401 && e.code === 'unauthorized',
    );
    assert.deepEqual(await anonymous.call('GET /health'), { status: 'ok' });
  });

  it('throws HooklineUnreachableError when nothing listens', async () => {
    await assert.rejects(
      createClient({ baseUrl: 'http://127.0.0.1:9' }).call('GET /health'),
      (e: unknown) => e instanceof HooklineUnreachableError && /cannot reach the Hookline API/.test(e.message),
    );
  });

  it('checks its types at compile time (tsc runs over this file)', () => {
    const hookline = client();
    // Each of these is a type error the line below it names; none of them is sent.
    const unsent = () => {
      // @ts-expect-error a route the operations table does not have
      void hookline.call('GET /v1/nope');
      // @ts-expect-error a path parameter is required
      void hookline.call('GET /v1/subscriptions/{subscriptionId}');
      // @ts-expect-error the body must be a subscription request
      void hookline.call('POST /v1/subscriptions', { body: { url: 5 } });
      // @ts-expect-error a field the answer does not have
      void hookline.call('GET /health').then((h) => h.nothing);
    };
    assert.equal(typeof unsent, 'function');
    assert.ok(seen.length > 0, 'answers were checked against the document');
  });
});
