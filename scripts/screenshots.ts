/**
 * `npm run screenshots`: the dashboard's main pages as PNGs under docs/screenshots/, for the
 * README. The same setup as the browser tests (test/support/browser.ts: the Debian chromium,
 * headless, through playwright-core) against a throwaway local runtime with a little traffic:
 * a tenant with a healthy, a flaky and a broken endpoint.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage } from '#test/browser.ts';
import { startLocalStack } from '#test/local-stack.ts';

const OUT = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(OUT, { recursive: true });
/** `npm run screenshots -- <name> …` writes only those (every page is still visited on the way); no name writes all. */
const ONLY = new Set(process.argv.slice(2));
const wanted = (name: string) => ONLY.size === 0 || ONLY.has(name);

const stack = await startLocalStack();
const browser = await launchBrowser();
try {
  const { receiver } = stack;
  receiver.script('/orders', [], { status: 204, delayMs: 40 });
  receiver.script('/billing', [{ status: 503 }, { status: 200, delayMs: 120 }], { status: 200, delayMs: 90 });
  receiver.script('/crm', [], { status: 400, body: '{"error":"unknown field customerRef"}' });
  const orders = await stack.subscribe('/orders', {
    tenantId: 'acme',
    eventTypes: ['order.*'],
    description: 'Orders: fulfilment service',
  });
  const billing = await stack.subscribe('/billing', {
    tenantId: 'acme',
    eventTypes: ['order.*', 'invoice.*'],
    description: 'Billing: invoices',
  });
  const crm = await stack.subscribe('/crm', { tenantId: 'acme', eventTypes: ['order.*'], description: 'CRM sync' });
  await stack.subscribe('/orders', { tenantId: 'globex', eventTypes: ['invoice.*'], description: 'Globex ledger' });
  const ids: string[] = [];
  for (let i = 1; i <= 6; i++)
    ids.push(
      ...(
        await stack.publish(
          i % 3 ? 'order.created' : 'invoice.paid',
          { orderId: 1000 + i, total: `${(i * 17.5).toFixed(2)}`, currency: 'EUR' },
          `ord-${1000 + i}`,
          { tenantId: 'acme' },
        )
      ).deliveryIds,
    );
  ids.push(
    ...(
      await stack.publish('invoice.paid', { invoice: 'G-77', total: '310.00', currency: 'EUR' }, 'inv-g-77', {
        tenantId: 'globex',
      })
    ).deliveryIds,
  );
  for (const id of ids) await stack.waitForState(id, ['delivered', 'failed', 'expired'], 30_000);
  const deadLetter = (await stack.api.get(`/v1/dead-letters?subscriptionId=${crm.id}`)).body.items[0].id as string;
  const catalog: [string, Record<string, unknown>][] = [
    [
      'invoice.paid',
      {
        description: 'An invoice was paid in full.',
        schema: {
          type: 'object',
          required: ['invoice', 'total', 'currency'],
          properties: { invoice: { type: 'string' }, total: { type: 'string' }, currency: { type: 'string' } },
        },
        example: { invoice: 'G-77', total: '310.00', currency: 'EUR' },
      },
    ],
    [
      'order.created',
      {
        description: 'A customer placed an order; sent once, before payment.',
        example: { orderId: 1001, total: '17.50', currency: 'EUR' },
      },
    ],
    ['order.placed', { description: 'The old name of order.created; kept while receivers move.', deprecated: true }],
  ];
  for (const [name, body] of catalog) await stack.api.raw('PUT', `/v1/event-types/${name}`, body);
  const link = (await stack.api.post('/v1/tenants/acme/portal-sessions', {})).body.url as string;

  /** Until nothing on the page says it is loading: an idle network alone can come before the last render. */
  const loaded = async (page: Page) => {
    await page.waitForLoadState('networkidle');
    await page
      .locator('main')
      .filter({ hasNotText: /loading/i })
      .waitFor();
  };
  const shot = async (page: Page, name: string) => {
    if (!wanted(name)) return;
    await loaded(page);
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
    console.log(`docs/screenshots/${name}.png`);
  };

  const portal = await openPage(browser, { width: 1200, height: 800 });
  await portal.page.goto(link);
  await portal.page.getByRole('link', { name: 'CRM sync' }).waitFor();
  await shot(portal.page, 'portal-subscriptions');
  await portal.page.getByRole('link', { name: 'CRM sync' }).click();
  await portal.page.getByRole('heading', { name: 'CRM sync' }).waitFor();
  await shot(portal.page, 'portal-subscription');
  // The flaky endpoint's health panel alone: its charts, by the hour (this traffic is minutes old, so in the newest hour).
  await portal.page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${billing.id}`);
  await portal.page.getByRole('img', { name: /^Attempt latency/ }).waitFor();
  if (wanted('portal-endpoint-health')) {
    await loaded(portal.page);
    await portal.page
      .getByRole('region', { name: /^Health, last/ })
      .screenshot({ path: join(OUT, 'portal-endpoint-health.png') });
    console.log('docs/screenshots/portal-endpoint-health.png');
  }
  await portal.page.goto(`${stack.runtime.url}/dashboard#/deliveries/${deadLetter}`);
  await portal.page.getByRole('button', { name: 'Resend' }).waitFor();
  await shot(portal.page, 'portal-dead-letter');
  await portal.page.goto(`${stack.runtime.url}/dashboard#/event-types`);
  await portal.page.getByRole('heading', { name: 'invoice.paid' }).waitFor();
  for (const summary of await portal.page.locator('li.catalog-item').first().locator('summary').all())
    await summary.click();
  await shot(portal.page, 'portal-event-types');
  await portal.page.setViewportSize({ width: 375, height: 740 });
  await portal.page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${orders.id}`);
  await portal.page.getByRole('heading', { name: 'Orders: fulfilment service' }).waitFor();
  await loaded(portal.page);
  if (wanted('portal-phone')) {
    await portal.page.screenshot({ path: join(OUT, 'portal-phone.png') });
    console.log('docs/screenshots/portal-phone.png');
  }

  const console_ = await openPage(browser, { width: 1200, height: 800 });
  const page = console_.page;
  await page.goto(`${stack.runtime.url}/dashboard`);
  await page.getByLabel('Admin key').fill(stack.runtime.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Globex ledger' }).waitFor();
  await shot(page, 'console-subscriptions');
  await page.goto(`${stack.runtime.url}/dashboard#/event-types`);
  await page.locator('td.type-name').getByText('invoice.paid', { exact: true }).waitFor();
  await shot(page, 'console-event-types');
  await page.goto(`${stack.runtime.url}/dashboard#/replays`);
  await page.getByLabel('Your name, for the audit log').fill('ops-alice');
  await page.getByRole('button', { name: 'Preview (dry run)' }).click();
  await page.getByRole('button', { name: /^Replay \d+ deliveries…$/ }).click();
  await page.getByRole('dialog').waitFor();
  // The viewport, not the full page: the modal dialog and its backdrop cover what is on screen.
  if (wanted('console-bulk-replay')) {
    await page.screenshot({ path: join(OUT, 'console-bulk-replay.png') });
    console.log('docs/screenshots/console-bulk-replay.png');
  }
} finally {
  await browser.close();
  await stack.stop();
}
