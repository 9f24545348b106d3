import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { documentClient } from '#adapters/dynamodb.ts';
import { rowAttributes } from '#adapters/dynamodb-delivery-store.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage, type Watched } from '#test/browser.ts';
import { aDelivery } from '#test/fakes.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * A customer narrowing a subscription's deliveries in the portal, in a real browser (Chromium,
 * headless): by event type, state and creation time (presets and a custom range), each filter
 * kept in the URL hash so a reload or a link shows the same view; an empty result names the
 * filters and clears them; times read as "3 days ago" with the absolute time on hover. Checked
 * with axe-core at 1280 px and 390 px, with no sideways scroll on the phone.
 */

let stack: LocalStack;
let browser: Browser;
let sub = '';
/** More than a page (25) of one type, so a filtered list pages too. */
const CREATED = 27;
let paid: string[] = [];
/** A delivery created three days ago: in the last 7 days, not the last 24 hours. */
let old = '';
const OLD_AT = new Date(Date.now() - 3 * 86_400_000).toISOString();

async function openPortal(viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const link = await stack.api.post('/v1/tenants/tenant-a/portal-sessions', {});
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const watched = await openPage(browser, viewport);
  await watched.page.goto(link.body.url);
  await watched.page.getByRole('button', { name: 'Close session' }).waitFor();
  return watched;
}

/** The filter form: the page has other fields with the same labels (the test event's event type). */
const filters = (page: Page) => page.getByRole('form', { name: 'Filter deliveries' });
const deliveries = (page: Page) => page.locator('table:has(caption:text("Deliveries")) tbody tr');
const column = async (page: Page, n: number) =>
  page.locator(`table:has(caption:text("Deliveries")) tbody tr td:nth-child(${n})`).allTextContents();
const hashQuery = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');
/** A `datetime-local` value in the browser's zone (the test's: they run on one machine). */
const localInput = (ms: number) => {
  const at = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
};

describe('filtering deliveries in the portal, in a browser', { timeout: 240_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
    sub = (
      await stack.subscribe('/shop', {
        tenantId: 'tenant-a',
        eventTypes: ['shop.order.created', 'shop.order.paid'],
        description: 'Shop endpoint',
      })
    ).id;
    const publish = async (type: string, n: number) => {
      const res = await stack.api.post('/v1/events/batch', {
        events: Array.from({ length: n }, (_, i) => ({ type, payload: { i }, tenantId: 'tenant-a' })),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const ids = res.body.items.flatMap((item: { deliveryIds: string[] }) => item.deliveryIds) as string[];
      for (const id of ids) await stack.waitForState(id, ['delivered', 'failed']);
      return ids;
    };
    stack.receiver.script('/shop', [], { status: 200 });
    await publish('shop.order.created', CREATED);
    stack.receiver.script('/shop', [], { status: 400, body: '{"error":"unknown order"}' });
    paid = await publish('shop.order.paid', 2);
    // Publish stamps the present: a delivery of three days ago is written as its row would be.
    old = deliveryIdFor('evt_three_days_old', sub, OLD_AT);
    const row = aDelivery({
      id: old,
      eventId: 'evt_three_days_old',
      eventType: 'shop.order.created',
      subscriptionId: sub,
      tenantId: 'tenant-a',
      url: `${stack.receiver.url}/shop`,
      state: 'delivered',
      attempts: 1,
      attemptSeq: 1,
      lastStatus: 200,
      createdAt: OLD_AT,
      updatedAt: OLD_AT,
    });
    await documentClient(stack.runtime.clients.dynamodb).send(
      new PutCommand({
        TableName: stack.runtime.env.DELIVERIES_TABLE!,
        Item: { ...row, ...rowAttributes(row, row.state, row.updatedAt) },
      }),
    );
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('narrows by event type and state, keeps both in the URL through a reload, and an empty result names them and clears them', async () => {
    const { page, context, problems } = await openPortal();
    await page.getByRole('link', { name: 'Shop endpoint' }).click();
    await page.getByRole('button', { name: 'Load more' }).waitFor();
    assert.equal(await deliveries(page).count(), 25);
    // The event type is a column of its own, beside the state.
    assert.ok((await column(page, 3)).every((t) => t === 'shop.order.created' || t === 'shop.order.paid'));

    await filters(page).getByLabel('Event type').fill('shop.order.paid');
    await filters(page).getByLabel('Event type').press('Enter');
    await page.locator('table:has(caption:text("of type shop.order.paid"))').waitFor();
    assert.equal(hashQuery(page).get('type'), 'shop.order.paid');
    assert.deepEqual(await column(page, 3), ['shop.order.paid', 'shop.order.paid']);
    assert.deepEqual(new Set(await column(page, 1)), new Set(paid));
    assert.deepEqual(await column(page, 2), ['failed', 'failed']);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);

    await filters(page).getByLabel('State').selectOption('delivered');
    const empty = page.getByText('No delivered deliveries of type shop.order.paid.');
    await empty.waitFor();
    assert.equal(hashQuery(page).get('state'), 'delivered');
    assert.equal(hashQuery(page).get('type'), 'shop.order.paid', 'the typed type stays');
    await assertAccessible(page, 'an empty filtered list at 1280 px');

    await page.reload();
    await empty.waitFor();
    assert.equal(await filters(page).getByLabel('State').inputValue(), 'delivered');
    assert.equal(await filters(page).getByLabel('Event type').inputValue(), 'shop.order.paid');

    await page.locator('.note').getByRole('button', { name: 'Clear filters' }).click();
    await page.locator('table:has(caption:text("Deliveries, newest first"))').waitFor();
    assert.equal(hashQuery(page).toString(), '', 'no filter left in the URL');
    assert.equal(await deliveries(page).count(), 25);
    assert.equal(await filters(page).getByLabel('Event type').inputValue(), '');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('narrows by creation time: presets from now, a custom range, a linked view; times read relative with the absolute on hover', async () => {
    const { page, context, problems } = await openPortal();
    const base = `${stack.runtime.url}/dashboard#/subscriptions/${sub}`;
    await page.goto(`${base}?type=shop.order.created`);
    await page.locator('table:has(caption:text("of type shop.order.created"))').waitFor();
    assert.equal(
      await filters(page).getByLabel('Event type').inputValue(),
      'shop.order.created',
      'a link opens filtered',
    );

    await filters(page).getByLabel('Created', { exact: true }).selectOption('24h');
    await page.locator('table:has(caption:text("created in the last 24 hours"))').waitFor();
    assert.equal(
      hashQuery(page).get('range'),
      '24h',
      'the preset, not its instant, is kept: a link means the last 24 h',
    );
    await page.getByRole('button', { name: 'Load more' }).click();
    await waitFor('the second page', async () => (await deliveries(page).count()) === CREATED);
    const ids = await column(page, 1);
    assert.equal(new Set(ids).size, CREATED, 'no delivery twice across pages');
    assert.ok(!ids.includes(old), 'three days ago is not in the last 24 hours');
    assert.ok(
      (await column(page, 6)).every((t) => /^(just now|\d+ (s|min) ago)$/.test(t)),
      'times read relative',
    );
    await assertAccessible(page, 'a filtered list at 1280 px');

    await filters(page).getByLabel('Created', { exact: true }).selectOption('7d');
    await page.locator('table:has(caption:text("created in the last 7 days"))').waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await waitFor('the old one on the second page', async () => (await deliveries(page).count()) === CREATED + 1);
    const oldRow = page.locator('tr', { has: page.getByRole('link', { name: old }) });
    const time = oldRow.locator('time');
    assert.equal(await time.textContent(), '3 days ago');
    assert.equal(await time.getAttribute('datetime'), OLD_AT);
    assert.match((await time.getAttribute('title')) ?? '', /\d{4}/, 'the absolute time on hover');
    assert.notEqual(await time.getAttribute('title'), '3 days ago');

    await filters(page).getByLabel('Created', { exact: true }).selectOption('custom');
    await filters(page)
      .getByLabel('Created from')
      .fill(localInput(Date.parse(OLD_AT) - 3_600_000));
    await filters(page)
      .getByLabel('Created until')
      .fill(localInput(Date.parse(OLD_AT) + 3_600_000));
    await filters(page).getByRole('button', { name: 'Apply' }).click();
    await waitFor('the custom range', async () => hashQuery(page).get('since') !== null);
    await waitFor('only the old one', async () => {
      const shown = await column(page, 1);
      return shown.length === 1 && shown[0] === old;
    });
    const query = hashQuery(page);
    assert.equal(query.get('range'), 'custom');
    assert.ok(query.get('since')! <= OLD_AT && OLD_AT <= query.get('until')!, query.toString());

    await page.reload();
    await waitFor('the custom range again after a reload', async () => {
      const shown = await column(page, 1);
      return shown.length === 1 && shown[0] === old;
    });
    assert.equal(
      await filters(page).getByLabel('Created from').inputValue(),
      localInput(Date.parse(OLD_AT) - 3_600_000),
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('works at 390 px: every filter on screen, nothing scrolls the page sideways, no serious axe finding', async () => {
    const { page, context } = await openPortal({ width: 390, height: 844 });
    const since = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
    await page.goto(
      `${stack.runtime.url}/dashboard#/subscriptions/${sub}?type=shop.order.paid&range=custom&since=${since}`,
    );
    await page.locator('table:has(caption:text("of type shop.order.paid"))').waitFor();
    await filters(page).getByLabel('Created until').waitFor();
    await assertNoSidewaysScroll(page, 'a filtered list at 390 px');
    await assertAccessible(page, 'a filtered list at 390 px');

    await filters(page).getByLabel('State').selectOption('pending');
    await page.getByText('No pending deliveries of type shop.order.paid').waitFor();
    await assertNoSidewaysScroll(page, 'an empty filtered list at 390 px');
    await assertAccessible(page, 'an empty filtered list at 390 px');
    await context.close();
  });
});
