import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage } from '#test/browser.ts';
import { FAST_RETRY_POLICY, startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * The console's Failing now page in a real browser (the harness of console.test.ts): with
 * nothing failing it says so; then an endpoint answering 503 (two tries, so its delivery expires
 * in about a second) and one refusing with a 400 are listed across tenants, longest failing
 * first, and a healthy one is not. axe-core finds nothing serious or critical at 1280 px and
 * 390 px, and the page never scrolls sideways on the phone, its key columns on screen.
 */

const TWO_TRIES = { ...FAST_RETRY_POLICY, maxAttempts: 2 };
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let stack: LocalStack;
let browser: Browser;
let page: Page;
const subs = { down: '', refused: '', healthy: '' };
const axeReport: Record<string, Record<string, number>> = {};

/** From another page, so the list is read afresh (going to the hash it is on would change nothing). */
const openFailingNow = async () => {
  await page.goto(`${stack.runtime.url}/dashboard#/subscriptions`);
  await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Failing now' }).click();
  await page.getByRole('heading', { name: 'Failing now', level: 1 }).waitFor();
  await page.getByText(/Loading/i).waitFor({ state: 'detached' });
};
const rows = 'table:has(caption:text("failing")) tbody tr';

/** One delivery to `tenantId`'s endpoint of `type`, settled in `states`, then its subscription's streak written. */
async function settle(type: string, tenantId: string, subscriptionId: string, states: readonly string[]) {
  const [id] = (await stack.publish(type, {}, undefined, { tenantId })).deliveryIds;
  await stack.waitForState(id!, states);
  if (states.includes('delivered')) return;
  await waitFor(`${subscriptionId}'s dead-letter streak`, async () =>
    (await stack.api.get(`/v1/subscriptions/${subscriptionId}`)).body.deadLetterStreak >= 1 ? true : undefined,
  );
}

describe('the console’s Failing now page, in a browser', { timeout: 180_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
    stack.receiver.script('/healthy', [], { status: 200 });
    subs.healthy = (
      await stack.subscribe('/healthy', { tenantId: 'acme', description: 'Acme healthy', eventTypes: ['ok.*'] })
    ).id;
    await settle('ok.x', 'acme', subs.healthy, ['delivered']);
    ({ page } = await openPage(browser, WIDE));
    await page.goto(`${stack.runtime.url}/dashboard`);
    await page.getByLabel('Admin key').fill(stack.runtime.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  it('is a link of the console’s navigation, and says when nothing is failing', async () => {
    await openFailingNow();
    assert.match(new URL(page.url()).hash, /^#\/failing$/);
    await page.getByRole('status').getByText('Nothing is failing').waitFor();
    axeReport.empty = await assertAccessible(page, 'Failing now with nothing failing');
  });

  it('lists the failing endpoints of every tenant, longest failing first, and not the healthy one', async () => {
    stack.receiver.script('/down', [], { status: 503, body: 'down' });
    stack.receiver.script('/refused', [], { status: 400, body: 'no' });
    subs.down = (
      await stack.subscribe('/down', {
        tenantId: 'initech',
        description: 'Initech down',
        eventTypes: ['down.*'],
        retryPolicy: TWO_TRIES,
      })
    ).id;
    subs.refused = (
      await stack.subscribe('/refused', { tenantId: 'globex', description: 'Globex refused', eventTypes: ['no.*'] })
    ).id;
    await settle('down.x', 'initech', subs.down, ['expired']);
    await settle('no.x', 'globex', subs.refused, ['failed']);
    await settle('no.x', 'globex', subs.refused, ['failed']);
    // Failing whatever its state says: a paused one stays listed.
    assert.equal((await stack.api.post(`/v1/subscriptions/${subs.refused}/pause`, { reason: 'ops' })).status, 200);

    await openFailingNow();
    await page.locator(rows).first().waitFor();
    const names = await page.locator(`${rows} td:first-child a`).allTextContents();
    assert.deepEqual(names, ['Initech down', 'Globex refused'], 'the longest failing first, the healthy one absent');
    const refused = page.locator(`${rows}:has-text("Globex refused")`);
    const cells = (await refused.locator('td').allInnerTexts()).map((t) => t.trim());
    assert.match(cells[0]!, new RegExp(subs.refused));
    assert.match(cells[1]!, /^(just now|\d+ \w+ ago)$/);
    assert.equal(cells[2], '2 in a row');
    assert.equal(cells[3], 'paused');
    assert.equal(cells[4], 'globex');
    assert.equal(cells[5], new URL(stack.receiver.url).host);
    // The absolute time on hover.
    const since = await refused.locator('td:nth-child(2) time').getAttribute('title');
    assert.ok(since && since.length > 10, `a hover title: ${since}`);
    axeReport.wide = await assertAccessible(page, 'Failing now at 1280 px');

    await refused.getByRole('link', { name: 'Globex refused' }).click();
    await page.getByRole('heading', { name: 'Globex refused', level: 1 }).waitFor();
    await page.getByText(/2 in a row since/).waitFor();
  });

  it('fits 390 px: no sideways scroll, the subscription and failing since on screen, no serious axe finding', async () => {
    await page.setViewportSize(PHONE);
    await openFailingNow();
    await page.locator(rows).first().waitFor();
    await assertNoSidewaysScroll(page, 'Failing now at 390 px');
    for (const column of [1, 2]) {
      const box = await page.locator(`${rows}:first-child td:nth-child(${column})`).boundingBox();
      assert.ok(
        box && box.x >= 0 && box.x + box.width <= PHONE.width,
        `column ${column} on screen: ${JSON.stringify(box)}`,
      );
    }
    axeReport.phone = await assertAccessible(page, 'Failing now at 390 px');
  });
});
