import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage, type Watched } from '#test/browser.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * Retry now in the customer portal, in a real browser (Chromium, headless; the harness of
 * portal.test.ts): a delivery whose endpoint failed waits ten minutes for its retry; the
 * customer, endpoint fixed, presses Retry now on its page and watches it become delivered, the
 * new attempt in its log (the receiver verifies the signature). A refusal shows the API's
 * answer. axe-core finds nothing serious or critical at a laptop's width and a phone's.
 */

/** A retry ten minutes away: the wait Retry now saves. */
const FAR = { initialDelaySeconds: 600, multiplier: 1, maxDelaySeconds: 600, jitter: 0, deadlineSeconds: 3600 };
const TENANT = { tenantId: 'tenant-r' };
const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;

let stack: LocalStack;
let browser: Browser;
let subscriptionId = '';
const axeReport: Record<string, Record<string, number>> = {};

/** A delivery whose first attempt got a 503: pending, its next attempt ten minutes away. */
async function waitingDelivery(): Promise<string> {
  stack.receiver.script('/r', [{ status: 503, body: 'down for maintenance' }], { status: 200 });
  const [id] = (await stack.publish('r.thing', { n: Date.now() }, undefined, TENANT)).deliveryIds;
  await waitFor(`${id}'s first attempt`, async () => ((await stack.delivery(id!)).attempts === 1 ? true : undefined));
  return id!;
}

/** Opens a fresh tab on a new `view` portal link at `viewport`, on the page of delivery `id`. */
async function openDelivery(id: string, viewport: { width: number; height: number }): Promise<Watched> {
  const res = await stack.api.post(`/v1/tenants/${TENANT.tenantId}/portal-sessions`, { access: 'view' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const watched = await openPage(browser, viewport);
  await watched.page.goto(res.body.url);
  await watched.page.getByRole('button', { name: 'Close session' }).waitFor();
  await watched.page.goto(`${stack.runtime.url}/dashboard#/deliveries/${id}`);
  await watched.page.getByRole('heading', { name: `Delivery ${id}` }).waitFor();
  return watched;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).allTextContents()).join(' ');
const attemptsTable = 'table:has(caption:text("Every attempt"))';

describe('Retry now in the portal, in a browser', { timeout: 180_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
    subscriptionId = (
      await stack.subscribe('/r', { ...TENANT, eventTypes: ['r.*'], description: 'Retry endpoint', retryPolicy: FAR })
    ).id;
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  for (const viewport of WIDTHS) {
    it(`at ${viewport.width} px: Retry now delivers a delivery waiting out its backoff, and the page shows the new attempt`, async () => {
      const id = await waitingDelivery();
      const { page, context, problems } = await openDelivery(id, viewport);
      assert.match(await text(page, attemptsTable), /503/);
      assert.match(await text(page, '.facts'), /pending after 1 attempt/);
      const retry = page.getByRole('button', { name: 'Retry now' });
      await retry.waitFor();
      assert.equal(await page.getByRole('button', { name: 'Resend' }).isDisabled(), true, 'nothing to resend yet');
      await assertNoSidewaysScroll(page, `a waiting delivery at ${viewport.width} px`);
      axeReport[`waiting-${viewport.width}`] = await assertAccessible(
        page,
        `a waiting delivery at ${viewport.width} px`,
      );

      const before = stack.receiver.on('/r').length;
      const startedMs = Date.now();
      await retry.click();
      await page.getByText('Retried and delivered.').waitFor({ timeout: 20_000 });
      await page.locator('.facts .badge-delivered').waitFor();

      assert.ok(Date.now() - startedMs < 20_000);
      const sent = stack.receiver.on('/r').slice(before);
      assert.equal(sent.length, 1, 'one POST');
      assert.ok(sent[0]!.verified, 'with a valid signature');
      await waitFor('the new attempt in the log', async () => /200/.test(await text(page, attemptsTable)));
      assert.match(
        await text(page, '.facts'),
        /delivered after 1 attempt since it was last resent or retried \(2 in all\)/,
      );
      assert.equal(await page.getByRole('button', { name: 'Retry now' }).count(), 0, 'nothing left to hurry');
      await assertNoSidewaysScroll(page, `the retried delivery at ${viewport.width} px`);
      axeReport[`retried-${viewport.width}`] = await assertAccessible(
        page,
        `the retried delivery at ${viewport.width} px`,
      );
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  it("shows the API's refusal: a delivery of a paused subscription waits for its resume", async () => {
    const id = await waitingDelivery();
    assert.equal((await stack.api.post(`/v1/subscriptions/${subscriptionId}/pause`)).status, 200);
    try {
      const { page, context } = await openDelivery(id, WIDTHS[1]);
      await page.getByRole('button', { name: 'Retry now' }).click();
      const alert = page.locator('[role=alert]');
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', /is paused; resume it/);
      assert.equal((await stack.delivery(id)).attempts, 1, 'nothing changed');
      axeReport.refused = await assertAccessible(page, 'the refused Retry now at 390 px');
      await context.close();
    } finally {
      await stack.api.post(`/v1/subscriptions/${subscriptionId}/resume`);
    }
  });
});
