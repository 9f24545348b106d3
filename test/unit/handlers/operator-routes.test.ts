import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileMailbox, FileMailCatcher } from '#adapters/file-mail-catcher.ts';
import { ADMIN, type Principal } from '#app/access.ts';
import { errorResponse } from '#handlers/api/http.ts';
import { route, type ApiRequest } from '#handlers/api/router.ts';
import { MAIL_NOT_KEPT } from '#handlers/api/routes/operator.ts';
import type { ArchiverInvoker, ArchiverPayload } from '#ports/archiver-invoker.ts';
import type { Mailbox } from '#ports/mailbox.ts';
import { fakeDeps } from '#test/fakes.ts';

const REPORT = { kind: 'partial', objects: 20, archived: 400, kept: 1, dropped: 0, resumed: 0, subscriptions: 0 };

/** Keeps every payload and answers `answer` (the archiver's report or its `{status, error}` refusal). */
function recordingArchiver(answer: unknown = REPORT): ArchiverInvoker & { readonly payloads: ArchiverPayload[] } {
  const payloads: ArchiverPayload[] = [];
  return { payloads, invoke: async (p) => (payloads.push(p), answer) };
}

/** The route's answer as the handler would send it: refusals through the error table. The archiver is a dependency, the mailbox a request field. */
async function call(
  req: Partial<ApiRequest> & Pick<ApiRequest, 'method' | 'path'>,
  archiver: ArchiverInvoker = recordingArchiver(),
  principal: Principal = ADMIN,
) {
  try {
    const res = await route({ ...fakeDeps(), archiver } as never, { query: {}, body: null, principal, ...req });
    return { status: res.status, body: res.body as any };
  } catch (error) {
    const { response } = errorResponse(error);
    return { status: response.statusCode, body: JSON.parse(response.body) };
  }
}

describe('POST /v1/archive-runs', () => {
  it("invokes the archiver's archive action with maxObjects, and answers its report", async () => {
    const archiver = recordingArchiver();
    const res = await call({ method: 'POST', path: '/v1/archive-runs', body: '{"maxObjects":5}' }, archiver);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, REPORT);
    assert.deepEqual(archiver.payloads, [{ action: 'archive', maxObjects: 5 }]);
  });

  it("without a body leaves maxObjects to the archiver's default", async () => {
    const archiver = recordingArchiver({ ...REPORT, kind: 'busy' });
    const res = await call({ method: 'POST', path: '/v1/archive-runs' }, archiver);
    assert.equal(res.body.kind, 'busy');
    assert.deepEqual(archiver.payloads, [{ action: 'archive' }]);
  });

  it('refuses a bad maxObjects or an unknown field naming it, without invoking', async () => {
    const archiver = recordingArchiver();
    for (const [body, field] of [
      ['{"maxObjects":0}', 'maxObjects'],
      ['{"maxObjects":"5"}', 'maxObjects'],
      ['{"max":5}', 'max'],
    ] as const) {
      const res = await call({ method: 'POST', path: '/v1/archive-runs', body }, archiver);
      assert.equal(res.status, 400, body);
      assert.match(res.body.error.message, new RegExp(`^${field}`), body);
    }
    assert.deepEqual(archiver.payloads, []);
  });

  it("is the admin's only", async () => {
    const res = await call({ method: 'POST', path: '/v1/archive-runs' }, recordingArchiver(), {
      role: 'tenant',
      tenantId: 'acme',
      keyId: 'key_1',
    });
    assert.equal(res.status, 403);
  });
});

describe('POST /v1/restores', () => {
  it('invokes the restore with the range and subscription, and answers its report', async () => {
    const report = { days: 2, objects: 1, records: 3, restored: 3, present: 0, until: '2026-12-08T00:00:00.000Z' };
    const archiver = recordingArchiver(report);
    const res = await call(
      {
        method: 'POST',
        path: '/v1/restores',
        body: JSON.stringify({ from: '2026-11-01', to: '2026-11-02', subscriptionId: 'sub_abc' }),
      },
      archiver,
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, report);
    assert.deepEqual(archiver.payloads, [
      { action: 'restore', from: '2026-11-01', to: '2026-11-02', subscriptionId: 'sub_abc' },
    ]);
  });

  it("refuses what the archiver's restore schema refuses, naming the field, before invoking", async () => {
    const archiver = recordingArchiver();
    for (const [body, field] of [
      [{ from: '2026-11-02', to: '2026-11-01' }, 'to'],
      [{ from: '2026-13-01', to: '2026-11-01' }, 'from'],
      [{ to: '2026-11-01' }, 'from'],
      [{ from: '2026-11-01', to: '2026-11-01', subscriptionId: 'nope' }, 'subscriptionId'],
    ] as const) {
      const res = await call({ method: 'POST', path: '/v1/restores', body: JSON.stringify(body) }, archiver);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error.message, new RegExp(`^${field}`), JSON.stringify(body));
    }
    assert.deepEqual(archiver.payloads, []);
  });

  it("passes the archiver's own refusal on with its status", async () => {
    const refusal = { status: 409, error: { code: 'conflict', message: 'busy' } };
    const res = await call(
      { method: 'POST', path: '/v1/restores', body: '{"from":"2026-11-01","to":"2026-11-01"}' },
      recordingArchiver(refusal),
    );
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { error: refusal.error });
  });
});

describe('GET /v1/mail', () => {
  it("lists the local catcher's messages newest first, at most limit", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hookline-mail-')), 'mail');
    let now = Date.parse('2026-12-01T10:00:00Z');
    const catcher = new FileMailCatcher(dir, 'notices@hookline.invalid', () => now);
    for (const n of [1, 2, 3]) {
      now += 60_000;
      await catcher.send({
        messageId: `<m${n}@hookline>`,
        to: ['owner@example.com'],
        bcc: [],
        subject: `notice ${n}`,
        text: `body ${n}`,
        html: '',
        headers: {},
      });
    }
    const res = await call({ method: 'GET', path: '/v1/mail', query: { limit: '2' }, mailbox: new FileMailbox(dir) });
    assert.equal(res.status, 200);
    assert.equal(res.body.kept, true);
    assert.deepEqual(
      res.body.items.map((m: { subject: string }) => m.subject),
      ['notice 3', 'notice 2'],
    );
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), ['from', 'id', 'receivedAt', 'subject', 'text', 'to']);
    assert.equal(res.body.items[0].text, 'body 3');
  });

  it('says mail is not kept where there is no mailbox (AWS)', async () => {
    const res = await call({ method: 'GET', path: '/v1/mail' });
    assert.deepEqual(res.body, { kept: false, note: MAIL_NOT_KEPT, items: [] });
  });

  it('refuses a bad limit naming it', async () => {
    const mailbox: Mailbox = { list: async () => [] };
    const res = await call({ method: 'GET', path: '/v1/mail', query: { limit: '0' }, mailbox });
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /^limit/);
  });
});
