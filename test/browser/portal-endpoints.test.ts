import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage, type Watched } from '#test/browser.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * Endpoint self-service in the customer portal, in a real browser (Chromium, headless): a
 * customer with a "manage" link creates an endpoint pointing at a real receiver, edits it, sends
 * a test event of a type it picks with an example payload it edits, and sees it arrive (the
 * receiver verifies the signature with the standardwebhooks package), rotates the secret and
 * sees until when the old one verifies, deletes the endpoint after a confirmation naming it,
 * and sees the API's own refusal of a bad URL beside the URL field. A "view" link shows none of
 * those controls. The forms are checked with axe-core at 1280 and 390 px.
 */

let stack: LocalStack;
let browser: Browser;
const TENANT = 'shop-co';
const axeReport: Record<string, Record<string, number>> = {};

async function mintLink(body: Record<string, unknown>) {
  const res = await stack.api.post(`/v1/tenants/${TENANT}/portal-sessions`, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; url: string };
}

/** A fresh tab (its own sessionStorage) on a portal link, once the session is open. */
async function openPortal(access: 'view' | 'manage', viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const watched = await openPage(browser, viewport);
  await watched.page.goto((await mintLink({ access })).url);
  await watched.page.getByRole('button', { name: 'Close session' }).waitFor();
  return watched;
}

const text = async (locator: Locator) => (await locator.allTextContents()).join(' ');
const tenantSubscriptions = async () =>
  (await stack.api.get(`/v1/subscriptions?tenantId=${TENANT}&limit=100`)).body.items as {
    id: string;
    state: string;
    url: string;
  }[];

/** Creates an endpoint through the New endpoint form; answers its id and the secret the page showed once. */
async function createThroughForm(page: Page, path: string, name: string): Promise<{ id: string; secret: string }> {
  await page.getByRole('button', { name: 'New endpoint' }).click();
  const form = page.getByRole('form', { name: 'New endpoint' });
  await form.getByLabel('Endpoint URL').fill(`${stack.receiver.url}${path}`);
  await form.getByLabel('Name (optional)').fill(name);
  await form.getByLabel('Event types').fill('order.*');
  await form.getByRole('button', { name: 'Create endpoint' }).click();
  const created = page.getByRole('status').filter({ hasText: 'Created' });
  await created.getByRole('link', { name }).waitFor();
  const secret = await text(created.locator('code.secret'));
  assert.match(secret, /^whsec_/, 'the signing secret, shown once');
  const id = (await created.getByRole('link', { name }).getAttribute('href'))!.split('/').pop()!;
  return { id, secret };
}

describe('endpoint self-service in the customer portal, in a browser', { timeout: 240_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  it('creates an endpoint, edits it, sends a test event of a chosen type that arrives signed, rotates the secret, and deletes it', async () => {
    const { page, context, problems } = await openPortal('manage');
    await page.getByText('There are no webhook endpoints set up for you yet. Add one with New endpoint.').waitFor();
    const { id, secret } = await createThroughForm(page, '/shop', 'Shop endpoint');
    stack.receiver.expectSecret('/shop', secret);
    const stored = (await stack.api.get(`/v1/subscriptions/${id}`)).body;
    assert.deepEqual(
      [stored.tenantId, stored.url, stored.eventTypes],
      [TENANT, `${stack.receiver.url}/shop`, ['order.*']],
      "the portal's own tenant, as typed",
    );

    // Edit: headers, rate limit and contact emails.
    await page.getByRole('status').getByRole('link', { name: 'Shop endpoint' }).click();
    await page.getByRole('heading', { name: 'Shop endpoint', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Edit endpoint' }).click();
    const edit = page.getByRole('form', { name: 'Edit endpoint' });
    assert.equal(await edit.getByLabel('Endpoint URL').inputValue(), `${stack.receiver.url}/shop`, 'starts as it is');
    await edit.getByLabel('Custom headers (optional)').fill('X-Team: shop');
    await edit.getByLabel('Rate limit per second (optional)').fill('20');
    await edit.getByLabel('Contact emails (optional)').fill('ops@shop.example');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved: the next deliveries use these settings.').waitFor();
    const settings = page.getByRole('region', { name: 'Endpoint settings' });
    // The panel re-reads the subscription after the save: wait for the new values, not just the notice.
    await settings.locator('.facts').getByText('ops@shop.example').waitFor();
    assert.match(await text(settings.locator('.facts')), /x-team: shop.*20 a second.*ops@shop\.example/s);
    const edited = (await stack.api.get(`/v1/subscriptions/${id}`)).body;
    assert.deepEqual(
      [edited.headers, edited.rateLimitPerSecond, edited.contactEmails],
      [{ 'x-team': 'shop' }, 20, ['ops@shop.example']],
    );

    // A test event of a type the endpoint receives, with the example payload edited.
    const test = page.getByRole('region', { name: 'Send a test event' });
    await test.getByLabel('Event type', { exact: true }).fill('order.created');
    const payload = test.getByLabel('Payload (JSON)');
    assert.match(await payload.inputValue(), /"type": "order.created"/, 'an example of the chosen type');
    await payload.fill('{"example": true, "order": 42, "total": "9.99"}');
    const since = stack.receiver.requests.length;
    await test.getByRole('button', { name: 'Send test event' }).click();
    await test
      .getByRole('status')
      .getByRole('link', { name: /^follow delivery dlv_/ })
      .waitFor();
    const arrived = await waitFor('the test event at the receiver', () =>
      stack.receiver.requests.slice(since).find((r) => r.path === '/shop'),
    );
    assert.ok(arrived.verified, 'standardwebhooks verified the signature');
    assert.equal(arrived.headers['x-team'], 'shop', 'the edited header is sent');
    const body = JSON.parse(arrived.body);
    assert.equal(body.type, 'order.created');
    assert.deepEqual(body.data, { example: true, order: 42, total: '9.99' });

    // Rotate with an hour's overlap: the page says until when the old secret still verifies.
    await settings.getByLabel('Old secret keeps verifying for').selectOption('3600');
    const before = Date.now();
    await settings.getByRole('button', { name: 'Rotate secret' }).click();
    const rotatedNote = settings.getByRole('status').filter({ hasText: 'New secret, signing now' });
    await rotatedNote.waitFor();
    const fresh = await text(rotatedNote.locator('code.secret'));
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, secret);
    assert.match(await text(rotatedNote), /The old secret still verifies until/);
    const until = Date.parse((await rotatedNote.locator('time').getAttribute('datetime'))!);
    assert.ok(until >= before + 3600_000 - 1000 && until <= Date.now() + 3600_000, 'an hour from the rotation');
    const secrets = (await stack.api.get(`/v1/subscriptions/${id}/secret`)).body.secrets;
    assert.deepEqual(
      secrets.map((s: { secret: string }) => s.secret),
      [fresh, secret],
    );
    // A receiver moved to the new secret verifies what is sent from now on.
    stack.receiver.expectSecret('/shop', fresh);
    const next = stack.receiver.requests.length;
    await test.getByRole('button', { name: 'Send test event' }).click();
    const signedNew = await waitFor('the next test event', () =>
      stack.receiver.requests.slice(next).find((r) => r.path === '/shop'),
    );
    assert.ok(signedNew.verified, 'signed with the new secret too');

    // Delete, after a confirmation that names the endpoint.
    await settings.getByRole('button', { name: 'Delete endpoint…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete endpoint “Shop endpoint”?' });
    await dialog.waitFor();
    assert.match(await text(dialog), new RegExp(`${stack.receiver.url}/shop will receive nothing more`));
    axeReport.deleteDialog = await assertAccessible(page, 'the delete confirmation');
    await dialog.getByRole('button', { name: 'Delete “Shop endpoint”' }).click();
    await page.getByText('This subscription was deleted: nothing more is sent to it.').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Endpoint settings' }).count(), 0, 'nothing left to manage');
    assert.equal((await stack.api.get(`/v1/subscriptions/${id}`)).body.state, 'deleted');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("shows the API's refusal of a bad URL beside the URL field, and stores nothing", async () => {
    const { page, context } = await openPortal('manage');
    const before = (await tenantSubscriptions()).length;
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    const url = form.getByLabel('Endpoint URL');
    await url.fill('ftp://example.com/hooks');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const refusal = form.locator('#new-url-error');
    await refusal.waitFor();
    // The API's own words, naming the field.
    const direct = await stack.api.post('/v1/subscriptions', { url: 'ftp://example.com/hooks' });
    assert.equal(direct.status, 400);
    assert.equal(await refusal.textContent(), direct.body.error.message);
    assert.match(direct.body.error.message, /^url: /);
    assert.equal(await refusal.getAttribute('role'), 'alert');
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.match((await url.getAttribute('aria-describedby')) ?? '', /new-url-error/);
    assert.equal((await tenantSubscriptions()).length, before, 'nothing stored');

    // A bad header is refused beside its own field, in the API's words.
    await url.fill(`${stack.receiver.url}/ok`);
    await form.getByLabel('Custom headers (optional)').fill('Content-Type: text/plain');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await form
      .locator('#new-headers-error')
      .getByText(/^headers\.Content-Type: /)
      .waitFor();
    assert.equal(await form.locator('#new-url-error').count(), 0, 'the URL is no longer refused');
    axeReport.refusal = await assertAccessible(page, 'the New endpoint form with a refusal, at 1280 px');
    assert.equal((await tenantSubscriptions()).length, before, 'still nothing stored');
    await context.close();
  });

  it('a view link shows no control that would change an endpoint, and still sends test events', async () => {
    const existing = await stack.subscribe('/view', { tenantId: TENANT, description: 'View endpoint' });
    const { page, context } = await openPortal('view');
    await page.getByRole('link', { name: 'View endpoint' }).click();
    await page.getByRole('heading', { name: 'View endpoint', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Send a test event' }).waitFor();
    for (const name of ['Edit endpoint', 'Rotate secret', 'Delete endpoint…'])
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    await page.getByRole('link', { name: 'Your endpoints' }).click();
    await page.getByRole('link', { name: 'View endpoint' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'New endpoint' }).count(), 0);
    await page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${existing.id}`);
    const test = page.getByRole('region', { name: 'Send a test event' });
    await test.getByRole('button', { name: 'Send test event' }).click();
    await test
      .getByRole('status')
      .getByRole('link', { name: /^follow delivery dlv_/ })
      .waitFor();
    await context.close();
  });

  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ])
    it(`the forms are accessible (axe-core: no serious or critical) at ${viewport.width} px, with no sideways scroll`, async () => {
      await stack.subscribe(`/wide-${viewport.width}`, {
        tenantId: TENANT,
        description: `A long endpoint name at ${viewport.width} px that has to wrap somewhere on a phone`,
        eventTypes: ['order.*', 'invoice.paid', 'customer.created'],
        headers: { 'x-a-rather-long-header-name': 'and-a-rather-long-value-without-spaces-0123456789' },
      });
      const { page, context } = await openPortal('manage', viewport);
      const where = (what: string) => `${what} at ${viewport.width} px`;
      await page.getByRole('button', { name: 'New endpoint' }).click();
      await page.getByRole('form', { name: 'New endpoint' }).getByLabel('Endpoint URL').fill('not a url');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.locator('#new-url-error').waitFor();
      axeReport[`new-${viewport.width}`] = await assertAccessible(page, where('the New endpoint form'));
      await assertNoSidewaysScroll(page, where('the New endpoint form'));

      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('link', { name: new RegExp(`^A long endpoint name at ${viewport.width} px`) }).click();
      await page.getByRole('button', { name: 'Edit endpoint' }).click();
      await page.getByRole('form', { name: 'Edit endpoint' }).waitFor();
      await page
        .getByRole('region', { name: 'Send a test event' })
        .getByLabel('Event type', { exact: true })
        .fill('nope.x');
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page
        .locator('#test-type-error')
        .getByText(/^type: 'nope.x' is not a type this subscription receives/)
        .waitFor();
      axeReport[`edit-${viewport.width}`] = await assertAccessible(page, where('the Edit, rotate and test forms'));
      await assertNoSidewaysScroll(page, where('the Edit, rotate and test forms'));
      await context.close();
    });
});
