import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { documentClient } from '#adapters/dynamodb.ts';
import { DASHBOARD_CSP } from '#handlers/api/routes/dashboard.ts';
import { apiClient } from '#test/api-client.ts';
import {
  assertAccessible,
  assertNoSidewaysScroll,
  launchBrowser,
  openPage,
  storedCredential,
  type Watched,
} from '#test/browser.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';
import { retryWords } from '../../dashboard/src/contract-model.ts';

/** A string only tenant B's payload holds: seeing it anywhere in the browser would be a leak (short words occur in the bundle itself). */
const B_PAYLOAD_MARK = 'tenant-b-private-7f3a9c';

/**
 * The customer portal in a real browser (Chromium, headless): a tenant opens a portal link,
 * reads its subscriptions' health, opens a dead letter and its attempts, resends it and watches
 * it become delivered (the receiver verifies the signature), meets the resend limit, filters,
 * pauses and resumes, and cannot reach another tenant's anything. The customer resend limit is
 * set to 3 a minute here (HOOKLINE_CUSTOMER_REPLAY_LIMIT; 100 by default) so hitting it takes
 * four clicks, not a hundred and one.
 */

const RESEND_LIMIT = 3;
let stack: LocalStack;
let browser: Browser;
const a = { orders: '', billing: '', bulk: '' };
/** More than a page (25) of deliveries on one subscription. */
const BULK = 27;
let bSubscription = { id: '', secret: '' };
let bDelivery = '';
/** An event of tenant A's and one of tenant B's, by id. */
const events = { a: '', b: '' };
let billingDeadLetters: string[] = [];
const axeReport: Record<string, Record<string, number>> = {};

const TENANT_A = { tenantId: 'tenant-a' };

async function mintLink(tenantId: string, body: Record<string, unknown> = {}) {
  const res = await stack.api.post(`/v1/tenants/${tenantId}/portal-sessions`, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; url: string; expiresAt: string };
}

/** Opens a fresh tab (its own sessionStorage) on a portal link and waits for the session to open. */
async function openPortal(url: string, viewport?: { width: number; height: number }): Promise<Watched> {
  const watched = await openPage(browser, viewport);
  await watched.page.goto(url);
  await watched.page.getByRole('button', { name: 'Close session' }).waitFor();
  return watched;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).allTextContents()).join(' ');

describe('the customer portal, in a browser', { timeout: 240_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([
      startLocalStack({ env: { HOOKLINE_CUSTOMER_REPLAY_LIMIT: String(RESEND_LIMIT) } }),
      launchBrowser(),
    ]);
    stack.receiver.script('/a-billing', [], { status: 400, body: '{"error":"unknown field customerRef"}' });
    a.orders = (
      await stack.subscribe('/a-orders', {
        tenantId: 'tenant-a',
        eventTypes: ['a.order.*'],
        description: 'Orders endpoint',
      })
    ).id;
    a.billing = (
      await stack.subscribe('/a-billing', {
        tenantId: 'tenant-a',
        eventTypes: ['a.order.*'],
        description: 'Billing endpoint',
      })
    ).id;
    a.bulk = (
      await stack.subscribe('/a-bulk', { tenantId: 'tenant-a', eventTypes: ['a.bulk.*'], description: 'Bulk endpoint' })
    ).id;
    bSubscription = await stack.subscribe('/b', {
      tenantId: 'tenant-b',
      eventTypes: ['b.*'],
      description: 'Tenant B endpoint',
    });
    const published = await Promise.all([
      stack.publish('a.order.created', { order: 1, total: '42.00' }, undefined, TENANT_A),
      stack.publish('a.order.created', { order: 2, total: '7.50' }, undefined, TENANT_A),
      stack.publish('b.thing', { secret: B_PAYLOAD_MARK }, undefined, { tenantId: 'tenant-b' }),
    ]);
    for (const p of published) for (const id of p.deliveryIds) await stack.waitForState(id, ['delivered', 'failed']);
    bDelivery = published[2]!.deliveryIds[0]!;
    events.a = published[0]!.eventId;
    events.b = published[2]!.eventId;
    const batch = await stack.api.post('/v1/events/batch', {
      events: Array.from({ length: BULK }, (_, i) => ({ type: 'a.bulk.item', payload: { i }, ...TENANT_A })),
    });
    assert.equal(batch.status, 200);
    billingDeadLetters = (await stack.api.get(`/v1/dead-letters?subscriptionId=${a.billing}`)).body.items.map(
      (d: { id: string }) => d.id,
    );
    assert.equal(billingDeadLetters.length, 2);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  it("states this deployment's own delivery figures, and an endpoint's own retry policy on its page", async () => {
    const policy = (await stack.api.get('/v1/delivery-policy')).body;
    assert.deepEqual(
      policy.customerReplayLimit,
      { limit: RESEND_LIMIT, windowSeconds: 60 },
      'the figures of this stack',
    );
    // Its own tenant, so the other tests' counts of tenant A's endpoints stay as they are.
    const own = await stack.subscribe('/c-own-policy', {
      tenantId: 'tenant-c',
      eventTypes: ['c.own.*'],
      description: 'Own policy endpoint',
      retryPolicy: { initialDelaySeconds: 30, multiplier: 1.5, maxDelaySeconds: 600, jitter: 0, deadlineSeconds: 3600 },
    });
    const { page, context, problems } = await openPortal((await mintLink('tenant-c')).url);
    await page.evaluate("location.hash = '#/contract'");
    await page.getByRole('heading', { name: 'How delivery works', level: 1 }).waitFor();
    await page.getByText(`up to ${RESEND_LIMIT} resends per 60 s per endpoint`).waitFor();
    const stated = `Failures are retried ${retryWords(policy.retryPolicy)}`;
    assert.ok((await text(page, 'main')).includes(stated), stated);
    await page.evaluate(`location.hash = '#/subscriptions/${own.id}'`);
    await page.getByRole('heading', { name: 'Own policy endpoint', level: 1 }).waitFor();
    assert.match(
      await text(page, 'dl.facts'),
      /its own policy: for 1 h, waiting longer each time \(30 s, ×1\.5 each time up to 10 min\)/,
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('opens a portal link: the code leaves the URL at once, the session lives in sessionStorage only, and the page shows the tenant its own endpoints with their health', async () => {
    const link = await mintLink('tenant-a');
    assert.match(link.url, /\/dashboard#portal=hk_pcode_psn_/);
    const { page, context, problems } = await openPortal(link.url);
    assert.equal(new URL(page.url()).hash, '#/', 'the one-time code is gone from the address bar');
    const credential = await storedCredential(page);
    assert.equal(credential.kind, 'portal');
    assert.equal(credential.tenantId, 'tenant-a');
    assert.match(credential.token, /^hk_portal_psn_/);
    assert.deepEqual(await context.cookies(), [], 'no cookie: nothing a cross-site request could carry');
    await page.getByRole('link', { name: 'Billing endpoint' }).waitFor();
    // Each row's health loads on its own: wait for all of them ('0 %' alone also matches the 100 % of a row loaded first).
    const table = await waitFor("every endpoint's health", async () => {
      const shown = await text(page, 'table');
      return !shown.includes('loading…') && shown;
    });
    assert.match(table, /Orders endpoint/);
    assert.match(table, /100 %/);
    assert.match(table, /HTTP 400/, 'the last failure');
    assert.doesNotMatch(table, /Tenant B endpoint/);
    assert.match(await text(page, 'main'), /at least once/i, 'the delivery contract in plain words');
    // Times in the viewer's zone, the ISO instant on hover.
    const time = page.locator('time').first();
    assert.match((await time.getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    axeReport.subscriptions = await assertAccessible(page, 'the portal subscription list');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('serves the page with a CSP that refuses inline scripts and other origins, nosniff, no framing and no caching', async () => {
    const res = await fetch(`${stack.runtime.url}/dashboard`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-security-policy'), DASHBOARD_CSP);
    assert.match(DASHBOARD_CSP, /script-src 'self'(;|$)/);
    assert.match(DASHBOARD_CSP, /default-src 'none'/);
    assert.match(DASHBOARD_CSP, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin');
    const js = await (await fetch(`${stack.runtime.url}/dashboard/app.js`)).text();
    // The only absolute URLs in the bundle are XML namespace names (Preact's SVG and MathML), which are never fetched.
    const hosts = new Set([...js.matchAll(/https?:\/\/([A-Za-z0-9.-]+)/g)].map((m) => m[1]));
    assert.deepEqual([...hosts], ['www.w3.org'], 'the script calls no other origin');
  });

  it('finds a dead letter, opens it with its attempts, resends it, and watches it become delivered (the receiver verifies the signature)', async () => {
    const { page, context, problems } = await openPortal((await mintLink('tenant-a')).url);
    await page.getByRole('link', { name: 'Billing endpoint' }).click();
    await page.getByRole('link', { name: 'Dead letters' }).click();
    const dead = billingDeadLetters[0]!;
    await page.getByRole('link', { name: dead }).click();
    await page.getByRole('heading', { name: `Delivery ${dead}` }).waitFor();
    const attempts = await text(page, 'table:has(caption:text("Every attempt"))');
    assert.match(attempts, /400/);
    assert.match(attempts, /unknown field customerRef/, 'the response snippet');
    assert.match(await text(page, 'pre.body'), /"total": "(42\.00|7\.50)"/, 'the body, pretty-printed');
    await page.getByRole('button', { name: 'Copy body' }).waitFor();
    axeReport.delivery = await assertAccessible(page, 'a dead letter');

    stack.receiver.script('/a-billing', [], { status: 200 });
    const before = stack.receiver.on('/a-billing').length;
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Resent and delivered.').waitFor({ timeout: 30_000 });
    await page.locator('.facts .badge-delivered').waitFor();
    const resent = stack.receiver.on('/a-billing').slice(before);
    assert.ok(resent.length >= 1);
    assert.ok(
      resent.every((r) => r.verified),
      'every resent request carried a valid signature',
    );
    assert.equal((await stack.delivery(dead)).state, 'delivered');
    assert.match(await text(page, 'table:has(caption:text("Every attempt"))'), /200/);
    // The run's count restarts at a resend; the log keeps both runs, and the state line says so.
    assert.match(
      await text(page, '.facts'),
      /delivered after 1 attempt since it was last resent or retried \(\d+ in all\)/,
    );
    assert.doesNotMatch(await text(page, '.facts'), /Gives up at/, 'a finished delivery has no deadline to show');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it(`meets the resend limit (${RESEND_LIMIT} a minute per subscription here) and is told when to try again`, async () => {
    const { page, context } = await openPortal((await mintLink('tenant-a')).url);
    await page.goto(`${stack.runtime.url}/dashboard#/deliveries/${billingDeadLetters[0]}`);
    const resend = page.getByRole('button', { name: 'Resend' });
    // The window is fixed and aligned to the minute: one that turns over mid-test gives a fresh allowance, so click until refused.
    let refused = false;
    for (let click = 0; click < 2 * RESEND_LIMIT + 2 && !refused; click++) {
      await resend.click();
      // The button is busy until the resend is answered and, when accepted, delivered again. (A function, not a
      // string: the page's CSP refuses eval, and Playwright evaluates a string predicate with it.)
      await page.waitForFunction(
        () => !(globalThis as any).document.querySelector('.actions button.primary').disabled,
        undefined,
        { timeout: 30_000 },
      );
      refused = (await text(page, 'main')).includes('Limit reached.');
    }
    assert.ok(refused, 'the resend after the limit is refused');
    const alert = await text(page, '[role=alert]');
    assert.match(alert, /Try again in \d+ s, at/);
    axeReport.limit = await assertAccessible(page, 'the resend limit message');
    await context.close();
  });

  it('pages through deliveries', async () => {
    const { page, context } = await openPortal((await mintLink('tenant-a')).url);
    await page.getByRole('link', { name: 'Bulk endpoint' }).click();
    const rows = page.locator('table:has(caption:text("Deliveries")) tbody tr');
    await page.getByRole('button', { name: 'Load more' }).waitFor();
    assert.equal(await rows.count(), 25);
    await page.getByRole('button', { name: 'Load more' }).click();
    await waitFor('the second page', async () => (await rows.count()) === BULK);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'no more pages');
    const ids = await page.locator('table:has(caption:text("Deliveries")) tbody tr td:first-child').allTextContents();
    assert.equal(new Set(ids).size, BULK, 'no delivery twice');
    await context.close();
  });

  it('filters deliveries by state', async () => {
    const { page, context } = await openPortal((await mintLink('tenant-a')).url);
    await page.getByRole('link', { name: 'Billing endpoint' }).click();
    await page.getByLabel('State').selectOption('failed');
    await waitFor('the failed filter', async () => new URL(page.url()).hash.includes('state=failed'));
    await page.locator('table:has(caption:text("in state failed"))').waitFor();
    const failed = await page.locator('table:has(caption:text("in state failed")) tbody .badge').allTextContents();
    assert.ok(failed.length >= 1 && failed.every((s) => s === 'failed'), JSON.stringify(failed));
    await page.getByLabel('State').selectOption('delivered');
    await page.locator('table:has(caption:text("in state delivered"))').waitFor();
    assert.match(await text(page, 'table:has(caption:text("in state delivered"))'), new RegExp(billingDeadLetters[0]!));
    await page.getByLabel('State').selectOption('in_flight');
    await page.getByText('No in flight deliveries').waitFor();
    axeReport.deliveries = await assertAccessible(page, 'the filtered deliveries');
    await context.close();
  });

  it('pauses with a reason and resumes', async () => {
    const { page, context } = await openPortal((await mintLink('tenant-a')).url);
    await page.getByRole('link', { name: 'Orders endpoint' }).click();
    await page.getByLabel('Reason for pausing (optional)').fill('maintenance window');
    await page.getByRole('button', { name: 'Pause deliveries' }).click();
    await page.locator('.facts .badge-paused').waitFor();
    assert.match(await text(page, '.facts'), /maintenance window/);
    assert.equal((await stack.api.get(`/v1/subscriptions/${a.orders}`)).body.state, 'paused');
    await page.getByRole('button', { name: 'Resume deliveries' }).click();
    await page.locator('.facts .badge-active').waitFor();
    assert.equal((await stack.api.get(`/v1/subscriptions/${a.orders}`)).body.state, 'active');
    await context.close();
  });

  it("reveals the tenant's own signing secret on demand, and refuses tenant B's ids in the browser and through the API", async () => {
    const { page, context, bodies } = await openPortal((await mintLink('tenant-a')).url);
    await page.getByRole('link', { name: 'Billing endpoint' }).click();
    await page.getByRole('button', { name: 'Reveal signing secret' }).click();
    await page.locator('code.secret').waitFor();
    assert.match(await text(page, 'code.secret'), /^whsec_/);

    await page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${bSubscription.id}`);
    await page.getByRole('alert').getByText(`subscription ${bSubscription.id} does not exist`).waitFor();
    await page.goto(`${stack.runtime.url}/dashboard#/deliveries/${bDelivery}`);
    await page.getByRole('alert').getByText(`delivery ${bDelivery} does not exist`).waitFor();

    // The same session token, straight at the API: another tenant's ids look like ones that do not exist.
    const { token } = await storedCredential(page);
    const asPortal = apiClient(stack.runtime.url, token);
    assert.equal((await asPortal.get(`/v1/subscriptions/${bSubscription.id}`)).status, 404);
    assert.equal((await asPortal.get(`/v1/subscriptions/${bSubscription.id}/secret`)).status, 404);
    assert.equal((await asPortal.get(`/v1/subscriptions/${bSubscription.id}/stats`)).status, 404);
    assert.equal((await asPortal.get(`/v1/deliveries/${bDelivery}`)).status, 404);
    assert.equal((await asPortal.post(`/v1/deliveries/${bDelivery}/replay`)).status, 404);
    assert.equal((await asPortal.post(`/v1/subscriptions/${bSubscription.id}/pause`)).status, 404);
    assert.equal((await asPortal.get(`/v1/dead-letters?subscriptionId=${bSubscription.id}`)).status, 404);
    const listed = (await asPortal.get('/v1/subscriptions?tenantId=tenant-b')).body.items.map(
      (s: { tenantId: string }) => s.tenantId,
    );
    assert.deepEqual([...new Set(listed)], ['tenant-a']);
    // A browser session is no tenant key: it may not reconfigure, delete or rotate, nor use admin routes.
    assert.equal((await asPortal.patch(`/v1/subscriptions/${a.orders}`, { description: 'x' })).status, 403);
    assert.equal((await asPortal.post(`/v1/subscriptions/${a.orders}/rotate-secret`)).status, 403);
    assert.equal((await asPortal.get('/v1/replays')).status, 403);
    assert.equal((await asPortal.post('/v1/tenants/tenant-b/portal-sessions', {})).status, 403);

    await waitFor('the last responses to be read', async () => bodies.length > 5);
    const seen = bodies.join('\n');
    assert.ok(!seen.includes(stack.runtime.adminKey), 'the admin key never reached the browser');
    assert.ok(!seen.includes(bSubscription.secret), "tenant B's signing secret never reached the browser");
    assert.ok(!seen.includes(B_PAYLOAD_MARK), "tenant B's payloads never reached the browser");
    await context.close();
  });

  it('a link limited to one subscription opens on it and sees nothing else of the tenant', async () => {
    const { page, context } = await openPortal((await mintLink('tenant-a', { subscriptionId: a.orders })).url);
    await page.getByRole('heading', { name: 'Orders endpoint' }).waitFor();
    const { token } = await storedCredential(page);
    const asPortal = apiClient(stack.runtime.url, token);
    assert.deepEqual(
      (await asPortal.get('/v1/subscriptions')).body.items.map((s: { id: string }) => s.id),
      [a.orders],
    );
    assert.equal((await asPortal.get(`/v1/subscriptions/${a.billing}`)).status, 404);
    assert.equal((await asPortal.get(`/v1/deliveries/${billingDeadLetters[1]}`)).status, 404);
    await page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${a.billing}`);
    await page.getByRole('alert').getByText('does not exist').waitFor();
    await context.close();
  });

  it('an expired, a revoked or an already used link gets a page that says so and what to do; a session that ends says so too', async () => {
    const db = documentClient(stack.runtime.clients.dynamodb);
    const table = stack.runtime.env.PORTAL_SESSIONS_TABLE!;
    const endNow = (id: string) =>
      db.send(
        new UpdateCommand({
          TableName: table,
          Key: { id },
          UpdateExpression: 'SET endsAt = :past',
          ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
        }),
      );

    const expired = await mintLink('tenant-a', { expiresInSeconds: 60 });
    // The link's hour (here: minute) has passed: set its end in the past rather than wait it out.
    await endNow(expired.id);
    const one = await openPage(browser);
    await one.page.goto(expired.url);
    await one.page.getByRole('heading', { name: 'This link cannot be opened' }).waitFor();
    assert.match(await text(one.page, '[role=alert]'), /expired at/);
    assert.match(await text(one.page, 'main'), /Ask the team that sends you webhooks for a new link/);
    assert.equal(new URL(one.page.url()).hash, '#/', 'the refused code left the URL too');
    assert.equal(await storedCredential(one.page), null);
    axeReport.refused = await assertAccessible(one.page, 'the refused-link page');
    await one.page.setViewportSize({ width: 390, height: 844 });
    await assertNoSidewaysScroll(one.page, 'the refused-link page at 390 px');
    axeReport.refusedPhone = await assertAccessible(one.page, 'the refused-link page at 390 px');

    const revoked = await mintLink('tenant-a');
    assert.equal((await stack.api.delete(`/v1/tenants/tenant-a/portal-sessions/${revoked.id}`)).status, 200);
    await one.page.goto(revoked.url);
    await one.page.getByRole('alert').getByText('was revoked at').waitFor();

    const used = await mintLink('tenant-a');
    const first = await openPortal(used.url);
    await one.page.goto(used.url);
    await one.page.getByRole('alert').getByText('already opened').waitFor();

    // The open session ends with its link: the next call is refused and the page says so.
    await endNow(used.id);
    await first.page.reload();
    await first.page.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    assert.equal(await storedCredential(first.page), null, 'the dead token is dropped');
    await Promise.all([one.context.close(), first.context.close()]);
  });

  it("finds the tenant's own events and deliveries by id, and nothing of another tenant's", async () => {
    const { page, context, bodies, problems } = await openPortal((await mintLink('tenant-a')).url);
    const find = async (q: string) => {
      await page.getByRole('searchbox', { name: 'Event or delivery id' }).fill(q);
      await page.getByRole('button', { name: 'Find' }).click();
    };
    await page.getByRole('link', { name: 'Billing endpoint' }).waitFor();
    await find(events.a);
    await page.getByRole('heading', { name: 'a.order.created', level: 1 }).waitFor();
    assert.match(await text(page, 'pre'), /"order": 1/);
    await page.getByRole('link', { name: a.billing }).click();
    await page.getByRole('heading', { name: /^Delivery dlv_/, level: 1 }).waitFor();

    for (const q of [events.b, bDelivery]) {
      await find(q);
      await page.getByRole('heading', { name: `Find “${q}”`, level: 1 }).waitFor();
      assert.match(await text(page, 'main'), /Nothing found/);
    }
    assert.ok(!bodies.join('\n').includes(B_PAYLOAD_MARK), "tenant B's payload never reached the browser");
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`every portal screen at ${viewport.width} px: no sideways scroll, no serious or critical axe finding`, async () => {
      const { page, context } = await openPortal((await mintLink('tenant-a')).url, viewport);
      for (const [hash, heading] of [
        ['#/', 'Subscriptions'],
        [`#/subscriptions/${a.billing}`, 'Billing endpoint'],
        [`#/deliveries/${billingDeadLetters[0]}`, `Delivery ${billingDeadLetters[0]}`],
        [`#/events/${encodeURIComponent(events.a)}`, 'a.order.created'],
        ['#/contract', 'How delivery works'],
        [`#/search?q=${encodeURIComponent(events.b)}`, `Find “${events.b}”`],
      ] as const) {
        await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        const where = `${hash} at ${viewport.width} px`;
        await assertNoSidewaysScroll(page, where);
        axeReport[where] = await assertAccessible(page, where);
      }
      await context.close();
    });
  }

  it('works at 390 px wide, by keyboard alone', async () => {
    const { page, context } = await openPortal((await mintLink('tenant-a')).url, { width: 390, height: 844 });
    await page.getByRole('link', { name: 'Billing endpoint' }).waitFor();
    // Tab to the Billing endpoint's link and open it with Enter.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement && document.activeElement.textContent')) === 'Billing endpoint')
        break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Billing endpoint' }).waitFor();
    assert.equal(await page.evaluate('document.activeElement.tagName'), 'H1', 'focus moves to the new page');
    await assertNoSidewaysScroll(page, 'a subscription at 390 px');
    await context.close();
  });
});
