import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage, type Watched } from '#test/browser.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * The event-type catalog in a real browser (Chromium, headless), against the real local API: an
 * operator registers a type with a JSON Schema and an example in the console (a bad schema and
 * an example the schema refuses are shown beside their fields in the API's own words), edits
 * and deletes types; the portal lists the catalog with each example and schema, at both access
 * levels; a customer's New endpoint form picks a registered type beside a hand-typed pattern;
 * and a test event of that type, its payload pre-filled with the type's example, is delivered.
 * Every new screen is checked with axe-core at 1280 and 390 px, with no sideways scroll.
 */

let stack: LocalStack;
let browser: Browser;
const TENANT = 'catalog-co';
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const axeReport: Record<string, Record<string, number>> = {};

const SCHEMA = {
  type: 'object',
  required: ['invoice', 'total'],
  properties: { invoice: { type: 'string' }, total: { type: 'string' } },
};
const EXAMPLE = { invoice: 'in_1001', total: '19.99' };

const put = (name: string, body: unknown) => stack.api.raw('PUT', `/v1/event-types/${encodeURIComponent(name)}`, body);
const text = async (locator: Locator) => (await locator.allTextContents()).join(' ');

/** A fresh tab signed in to the console with the admin key. */
async function openConsole(viewport = WIDE): Promise<Watched> {
  const watched = await openPage(browser, viewport);
  await watched.page.goto(`${stack.runtime.url}/dashboard`);
  await watched.page.getByLabel('Admin key').fill(stack.runtime.adminKey);
  await watched.page.getByRole('button', { name: 'Sign in' }).click();
  await watched.page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
  return watched;
}

/** A fresh tab on a portal link of `TENANT`, once the session is open. */
async function openPortal(access: 'view' | 'manage', viewport = WIDE): Promise<Watched> {
  const res = await stack.api.post(`/v1/tenants/${TENANT}/portal-sessions`, { access });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const watched = await openPage(browser, viewport);
  await watched.page.goto(res.body.url);
  await watched.page.getByRole('button', { name: 'Close session' }).waitFor();
  return watched;
}

/** The Event types page, reached through the navigation. */
async function openCatalog(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event types' }).click();
  await page.getByRole('heading', { name: 'Event types', level: 1 }).waitFor();
  await page
    .locator('main')
    .filter({ hasNotText: /loading/i })
    .waitFor();
}

/** The refusal the API gives a body directly: the message the page must show in its own words. */
async function refusalOf(name: string, body: unknown): Promise<string> {
  const res = await put(name, body);
  assert.equal(res.status, 400, JSON.stringify(res.body));
  return res.body.error.message as string;
}

describe('the event-type catalog in the console and the portal, in a browser', { timeout: 240_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
    const legacy = await put('order.legacy', {
      description: 'The old order event; use order.placed.',
      example: { order: 7 },
      deprecated: true,
    });
    assert.equal(legacy.status, 201, JSON.stringify(legacy.body));
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  it('an operator registers a type with a schema and an example, sees the API refuse a bad one at its field, edits and deletes', async () => {
    const { page, context, problems } = await openConsole();
    await openCatalog(page);
    await page.getByRole('cell', { name: /^order\.legacy/ }).waitFor();
    await page.getByRole('button', { name: 'Register an event type' }).click();
    const form = page.getByRole('form', { name: 'Register an event type' });
    await form.getByLabel('Name').fill('invoice.paid');
    await form.getByLabel('Description').fill('An invoice was paid in full.');

    // A schema that is no JSON Schema: the API's own words, beside the schema field.
    const schema = form.getByLabel('JSON Schema (optional)');
    await schema.fill('{"type": "banana"}');
    await form.getByRole('button', { name: 'Register event type' }).click();
    const schemaError = form.locator('#new-type-schema-error');
    await schemaError.waitFor();
    const badSchema = await refusalOf('invoice.paid', {
      description: 'An invoice was paid in full.',
      schema: { type: 'banana' },
      deprecated: false,
    });
    assert.match(badSchema, /^schema\b/);
    assert.equal(await schemaError.textContent(), badSchema);
    assert.equal(await schemaError.getAttribute('role'), 'alert');
    assert.equal(await schema.getAttribute('aria-invalid'), 'true');
    assert.match((await schema.getAttribute('aria-describedby')) ?? '', /new-type-schema-error/);
    axeReport.refusal = await assertAccessible(page, 'the register form with a refusal at 1280 px');

    // An example the schema refuses: beside the example field, and the schema no longer refused.
    await schema.fill(JSON.stringify(SCHEMA, null, 2));
    const example = form.getByLabel('Example payload (optional)');
    await example.fill('{"invoice": 42}');
    await form.getByRole('button', { name: 'Register event type' }).click();
    const exampleError = form.locator('#new-type-example-error');
    await exampleError.waitFor();
    const badExample = await refusalOf('invoice.paid', {
      description: 'An invoice was paid in full.',
      schema: SCHEMA,
      example: { invoice: 42 },
      deprecated: false,
    });
    assert.match(badExample, /^example\b/);
    assert.equal(await exampleError.textContent(), badExample);
    assert.equal(await form.locator('#new-type-schema-error').count(), 0);

    // Text that is not JSON: the API's refusal of the body, placed at the text that breaks it.
    await example.fill('{"invoice": ');
    await form.getByRole('button', { name: 'Register event type' }).click();
    const notJson = await waitFor('the refusal of the example text', async () => {
      const said = await exampleError.textContent({ timeout: 1000 }).catch(() => null);
      return said && said !== badExample ? said : undefined;
    });
    assert.match(notJson, /^body\b/, "the API's refusal of a body that is not JSON");
    assert.equal((await stack.api.get('/v1/event-types/invoice.paid')).status, 404, 'nothing stored yet');

    await example.fill(JSON.stringify(EXAMPLE, null, 2));
    await form.getByRole('button', { name: 'Register event type' }).click();
    await page.getByRole('status').getByText('Registered invoice.paid.').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'invoice.paid' });
    await row.getByText('An invoice was paid in full.').waitFor();
    assert.match(await text(row), /just now/);
    assert.equal(await row.locator('time').count(), 1, 'when it changed, the exact time in datetime');
    const stored = (await stack.api.get('/v1/event-types/invoice.paid')).body;
    assert.deepEqual(
      [stored.description, stored.schema, stored.example, stored.deprecated],
      ['An invoice was paid in full.', SCHEMA, EXAMPLE, false],
    );
    // The deprecated one is marked, in words.
    await page.getByRole('row').filter({ hasText: 'order.legacy' }).getByText('deprecated').waitFor();
    // By name, as the API lists them.
    const names = await page.locator('table.catalog-table tbody td.type-name code').allTextContents();
    assert.deepEqual(names, [...names].sort());

    // Edit: the form starts from the type as it is.
    await row.getByRole('button', { name: 'Edit invoice.paid' }).click();
    const edit = page.getByRole('form', { name: 'Edit event type invoice.paid' });
    assert.deepEqual(JSON.parse(await edit.getByLabel('JSON Schema (optional)').inputValue()), SCHEMA);
    assert.deepEqual(JSON.parse(await edit.getByLabel('Example payload (optional)').inputValue()), EXAMPLE);
    await edit.getByLabel('Description').fill('An invoice was paid in full, by any means.');
    await edit.getByRole('button', { name: 'Save event type' }).click();
    await page.getByRole('status').getByText('Saved invoice.paid.').waitFor();
    await row.getByText('An invoice was paid in full, by any means.').waitFor();

    // Delete, after a confirmation that names the type.
    assert.equal((await put('scratch.thing', { description: 'To be deleted.' })).status, 201);
    await page.reload();
    await page.getByRole('heading', { name: 'Event types', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete scratch.thing…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete event type “scratch.thing”?' });
    await dialog.waitFor();
    axeReport.deleteDialog = await assertAccessible(page, 'the delete confirmation');
    await dialog.getByRole('button', { name: 'Delete “scratch.thing”' }).click();
    await page
      .getByRole('status')
      .getByText(/^Deleted scratch\.thing/)
      .waitFor();
    await waitFor(
      'the row gone',
      async () => (await page.getByRole('cell', { name: /^scratch\.thing/ }).count()) === 0,
    );
    assert.equal((await stack.api.get('/v1/event-types/scratch.thing')).status, 404);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('the portal lists the catalog, a New endpoint form picks from it, and a test event pre-filled with the example is delivered', async () => {
    await waitFor(
      'invoice.paid registered',
      async () => (await stack.api.get('/v1/event-types/invoice.paid')).status === 200,
    );
    // A view link reads the catalog too.
    const view = await openPortal('view');
    await openCatalog(view.page);
    await view.page.getByRole('heading', { name: /invoice\.paid/, level: 2 }).waitFor();
    await view.context.close();

    const { page, context, problems } = await openPortal('manage');
    await openCatalog(page);
    const paid = page.locator('li.catalog-item').filter({ has: page.getByRole('heading', { name: 'invoice.paid' }) });
    await paid.getByText('An invoice was paid in full, by any means.').waitFor();
    await paid.getByText('Example payload').click();
    assert.deepEqual(
      JSON.parse((await paid.getByRole('region', { name: 'Example payload of invoice.paid' }).textContent()) ?? ''),
      EXAMPLE,
    );
    await paid.getByText('JSON Schema').click();
    assert.deepEqual(
      JSON.parse((await paid.getByRole('region', { name: 'JSON Schema of invoice.paid' }).textContent()) ?? ''),
      SCHEMA,
    );
    const legacy = page
      .locator('li.catalog-item')
      .filter({ has: page.getByRole('heading', { name: /order\.legacy/ }) });
    await legacy.locator('.badge-deprecated').getByText('deprecated').waitFor();

    // New endpoint: a pattern typed by hand, and a registered type ticked beside it.
    await page.getByRole('link', { name: 'Your endpoints' }).click();
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('Endpoint URL').fill(`${stack.receiver.url}/catalog`);
    await form.getByLabel('Name (optional)').fill('Catalog endpoint');
    const types = form.getByLabel('Event types');
    await types.fill('order.*');
    const picks = form.getByRole('group', { name: 'Pick from the catalog' });
    // A deprecated type says so in its name.
    await picks.getByRole('checkbox', { name: 'order.legacy deprecated' }).waitFor();
    await picks.getByText('(already selected by order.*)').waitFor();
    await picks.getByRole('checkbox', { name: 'invoice.paid' }).check();
    assert.equal(await types.inputValue(), 'order.*\ninvoice.paid');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const created = page.getByRole('status').filter({ hasText: 'Created' });
    await created.getByRole('link', { name: 'Catalog endpoint' }).waitFor();
    stack.receiver.expectSecret('/catalog', await text(created.locator('code.secret')));
    const id = (await created.getByRole('link', { name: 'Catalog endpoint' }).getAttribute('href'))!.split('/').pop()!;
    assert.deepEqual((await stack.api.get(`/v1/subscriptions/${id}`)).body.eventTypes, ['order.*', 'invoice.paid']);

    // The test event offers the catalog's types this endpoint receives, and pre-fills the chosen one's example.
    await created.getByRole('link', { name: 'Catalog endpoint' }).click();
    await page.getByRole('heading', { name: 'Catalog endpoint', level: 1 }).waitFor();
    const test = page.getByRole('region', { name: 'Send a test event' });
    // Until the catalog has loaded, the picker offers what the endpoint's own patterns suggest
    // (invoice.paid among them): wait for a type only the catalog knows.
    await page.locator('#test-type-suggestions option[value="order.legacy"]').waitFor({ state: 'attached' });
    const offered = await Promise.all(
      (await page.locator('#test-type-suggestions option').all()).map((o) => o.getAttribute('value')),
    );
    assert.deepEqual(offered, ['hookline.test', 'invoice.paid', 'order.legacy']);
    await test.getByLabel('Event type', { exact: true }).fill('invoice.paid');
    const payload = test.getByLabel('Payload (JSON)');
    assert.deepEqual(JSON.parse(await payload.inputValue()), EXAMPLE, "the type's example");
    const since = stack.receiver.requests.length;
    await test.getByRole('button', { name: 'Send test event' }).click();
    const follow = test.getByRole('status').getByRole('link', { name: /^follow delivery dlv_/ });
    await follow.waitFor();
    const arrived = await waitFor('the test event at the receiver', () =>
      stack.receiver.requests.slice(since).find((r) => r.path === '/catalog'),
    );
    assert.ok(arrived.verified, 'signed');
    const body = JSON.parse(arrived.body);
    assert.deepEqual([body.type, body.data], ['invoice.paid', EXAMPLE]);
    await follow.click();
    await page.getByRole('heading', { name: /^Delivery/, level: 1 }).waitFor();
    await page.locator('.badge-delivered').first().waitFor();

    // The Edit form ticks what the endpoint names.
    await page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${id}`);
    await page.getByRole('button', { name: 'Edit endpoint' }).click();
    const edit = page.getByRole('form', { name: 'Edit endpoint' });
    assert.ok(await edit.getByRole('checkbox', { name: 'invoice.paid' }).isChecked());
    assert.ok(!(await edit.getByRole('checkbox', { name: /order\.legacy/ }).isChecked()));
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const viewport of [WIDE, PHONE])
    it(`every catalog screen is accessible (axe-core: no serious or critical) at ${viewport.width} px, with no sideways scroll`, async () => {
      const long = 'shipment.label.created-with-a-rather-long-name';
      await put(long, {
        description: `A long description at ${viewport.width} px that has to wrap somewhere on a phone, with a-rather-long-word-without-any-spaces-0123456789`,
        schema: SCHEMA,
        example: EXAMPLE,
      });
      const endpoint = await stack.subscribe(`/shipments-${viewport.width}`, {
        tenantId: TENANT,
        description: `Shipments at ${viewport.width} px`,
        eventTypes: ['shipment.*'],
      });
      const where = (what: string) => `${what} at ${viewport.width} px`;
      const operator = await openConsole(viewport);
      await openCatalog(operator.page);
      await operator.page.locator('td.type-name').getByText(long, { exact: true }).waitFor();
      axeReport[`console-${viewport.width}`] = await assertAccessible(operator.page, where('the console catalog'));
      await assertNoSidewaysScroll(operator.page, where('the console catalog'));
      const [inner, outer] = await operator.page
        .locator('.table-wrap')
        .evaluate((el) => [el.scrollWidth, el.clientWidth]);
      assert.ok(inner! <= outer!, where(`every column of the catalog in view (${inner} in ${outer} px)`));
      await operator.page.getByRole('button', { name: 'Register an event type' }).click();
      await operator.page.getByRole('button', { name: 'Register event type' }).click();
      await operator.page.locator('.field-error').first().waitFor();
      axeReport[`register-${viewport.width}`] = await assertAccessible(operator.page, where('the register form'));
      await assertNoSidewaysScroll(operator.page, where('the register form'));
      await operator.page.getByRole('button', { name: `Delete ${long}…` }).click();
      await operator.page.getByRole('dialog').waitFor();
      axeReport[`delete-${viewport.width}`] = await assertAccessible(operator.page, where('the delete confirmation'));
      await assertNoSidewaysScroll(operator.page, where('the delete confirmation'));
      await operator.page.getByRole('button', { name: 'Keep it' }).click();
      await operator.context.close();

      const customer = await openPortal('manage', viewport);
      await openCatalog(customer.page);
      for (const summary of await customer.page.locator('summary').all()) await summary.click();
      axeReport[`portal-${viewport.width}`] = await assertAccessible(customer.page, where('the portal catalog'));
      await assertNoSidewaysScroll(customer.page, where('the portal catalog'));
      await customer.page.getByRole('link', { name: 'Your endpoints' }).click();
      await customer.page.getByRole('button', { name: 'New endpoint' }).click();
      await customer.page.getByRole('group', { name: 'Pick from the catalog' }).waitFor();
      axeReport[`picks-${viewport.width}`] = await assertAccessible(
        customer.page,
        where('the New endpoint form with the catalog'),
      );
      await assertNoSidewaysScroll(customer.page, where('the New endpoint form with the catalog'));
      await customer.page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${endpoint.id}`);
      const test = customer.page.getByRole('region', { name: 'Send a test event' });
      await test.waitFor();
      await customer.page.locator(`#test-type-suggestions option[value="${long}"]`).waitFor({ state: 'attached' });
      await test.getByLabel('Event type', { exact: true }).fill(long);
      assert.deepEqual(JSON.parse(await test.getByLabel('Payload (JSON)').inputValue()), EXAMPLE);
      await customer.page.getByRole('button', { name: 'Edit endpoint' }).click();
      await customer.page.getByRole('form', { name: 'Edit endpoint' }).getByRole('group').waitFor();
      axeReport[`endpoint-${viewport.width}`] = await assertAccessible(
        customer.page,
        where('the Edit and test forms with the catalog'),
      );
      await assertNoSidewaysScroll(customer.page, where('the Edit and test forms with the catalog'));
      await customer.context.close();
    });
});
