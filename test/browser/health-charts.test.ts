import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage } from '#test/browser.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/**
 * An endpoint's health charts in a real browser (Chromium, headless), in the customer portal and
 * in the operator console: after three deliveries that got a 2xx and one refused with a 400, the
 * success-rate and latency charts of the last 24 h are drawn (one image each, labelled with what
 * they show), the toggle switches to 7 days in six-hour buckets, the table behind them opens with
 * a row per bucket, and axe-core finds nothing serious or critical at 1280 and 390 px, where the
 * page never scrolls sideways. A sampled answer is said so, beside the charts and in their labels.
 */

const TENANT = 'health-co';
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
let stack: LocalStack;
let browser: Browser;
let subscriptionId = '';
const axeReport: Record<string, Record<string, number>> = {};

const health = (page: Page) => page.getByRole('region', { name: /^Health, last/ });
const successChart = (page: Page) => health(page).getByRole('img', { name: /^Success rate of attempts/ });
const latencyChart = (page: Page) => health(page).getByRole('img', { name: /^Attempt latency/ });
const label = async (chart: Locator) => (await chart.getAttribute('aria-label')) ?? '';

/** The subscription's page, its health loaded. */
async function openEndpoint(page: Page) {
  await page.goto(`${stack.runtime.url}/dashboard#/subscriptions/${subscriptionId}`);
  await page.getByRole('heading', { name: 'Health endpoint', level: 1 }).waitFor();
  await successChart(page).waitFor();
}

/** Both charts as the day's: 4 attempts, all in the newest hour, 3 of them 2xx; both lines drawn. */
async function assertDay(page: Page) {
  assert.equal(await health(page).getByRole('button', { name: '24 h' }).getAttribute('aria-pressed'), 'true');
  assert.match(
    await label(successChart(page)),
    /^Success rate of attempts per hour, last 24 h: 4 attempts in 1 of 24 hours, 75\.0 % succeeded; lowest 75\.0 % from .+, latest 75\.0 % from .+\.$/,
  );
  assert.match(
    await label(latencyChart(page)),
    /^Attempt latency, p50 and p95, per hour, last 24 h: highest p95 \d+ ms from .+; latest p50 \d+ ms and p95 \d+ ms from .+\.$/,
  );
  // One bucket has attempts: a lone value, drawn as a dash in the newest slot (x 23.2 to 23.8 of 24).
  assert.match((await successChart(page).locator('path.line-success').getAttribute('d')) ?? '', /^M23\.2 25H23\.8$/);
  for (const line of ['line-p50', 'line-p95'])
    assert.match((await latencyChart(page).locator(`path.${line}`).getAttribute('d')) ?? '', /^M23\.2 [\d.]+H23\.8$/);
}

/** Switches to 7 days: the heading, the pressed button, 28 six-hour buckets, and the table's rows. */
async function assertWeek(page: Page) {
  await health(page).getByRole('button', { name: '7 d' }).click();
  await page.getByRole('heading', { name: 'Health, last 7 days' }).waitFor();
  await successChart(page).and(page.locator('[aria-label*="last 7 days"]')).waitFor();
  assert.equal(await health(page).getByRole('button', { name: '7 d' }).getAttribute('aria-pressed'), 'true');
  assert.equal(await health(page).getByRole('button', { name: '24 h' }).getAttribute('aria-pressed'), 'false');
  assert.match(
    await label(successChart(page)),
    /^Success rate of attempts per 6 hours, last 7 days: 4 attempts in 1 of 28 buckets of 6 hours, 75\.0 % succeeded;/,
  );
  assert.match(await label(latencyChart(page)), /per 6 hours, last 7 days: highest p95/);
  await health(page).getByText('The charts as a table, one row per 6 hours').click();
  const rows = health(page).locator('details[open] table tbody tr');
  assert.equal(await rows.count(), 28);
  const newest = (await rows.last().locator('th, td').allInnerTexts()).map((t) => t.trim());
  assert.deepEqual(newest.slice(1, 5), ['4', '3', '1', '75.0 %'], 'attempts, succeeded, failed, success rate');
  assert.equal(newest[7], '1', 'the 400 dead-lettered its delivery');
  const oldest = (await rows.first().locator('td').allInnerTexts()).map((t) => t.trim());
  assert.deepEqual(oldest, ['0', '0', '0', '–', '–', '–', '0'], 'an empty bucket has no rate, not 0 %');
}

/** axe at both widths, and at 390 px the charts fit: no sideways scroll, each chart inside the screen. */
async function assertBothWidths(page: Page, where: string) {
  await page.setViewportSize(WIDE);
  axeReport[`${where} wide`] = await assertAccessible(page, `${where}: health charts at 1280 px`);
  await page.setViewportSize(PHONE);
  await assertNoSidewaysScroll(page, `${where}: health charts at 390 px`);
  for (const chart of [successChart(page), latencyChart(page)]) {
    const box = await chart.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `a chart on screen: ${JSON.stringify(box)}`);
  }
  axeReport[`${where} phone`] = await assertAccessible(page, `${where}: health charts at 390 px`);
  await page.setViewportSize(WIDE);
}

describe('endpoint health charts, in a browser', { timeout: 180_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
    stack.receiver.script('/health', [{ status: 200 }, { status: 204 }, { status: 400 }, { status: 200 }]);
    subscriptionId = (
      await stack.subscribe('/health', { tenantId: TENANT, eventTypes: ['health.*'], description: 'Health endpoint' })
    ).id;
    // One at a time, so each scripted answer meets the delivery it is meant for.
    for (const outcome of ['delivered', 'delivered', 'failed', 'delivered']) {
      const [id] = (await stack.publish('health.check', {}, undefined, { tenantId: TENANT })).deliveryIds;
      await stack.waitForState(id!, [outcome]);
    }
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  it('shows the portal customer both charts of the last 24 h and of 7 days, accessible at 1280 and 390 px', async () => {
    const link = (await stack.api.post(`/v1/tenants/${TENANT}/portal-sessions`, {})).body.url as string;
    const { page, problems } = await openPage(browser, WIDE);
    await page.goto(link);
    await page.getByRole('button', { name: 'Close session' }).waitFor();
    await openEndpoint(page);
    await assertDay(page);
    await assertBothWidths(page, 'portal, 24 h');
    await assertWeek(page);
    await assertBothWidths(page, 'portal, 7 d');
    assert.deepEqual(problems, [], 'no CSP refusal, no page error');
  });

  it('says when the charts rest on a sample', async () => {
    // A sampled answer needs over 1,000 deliveries; the page's side of it is only the flag, so the answer is altered on its way.
    const { page, context } = await openPage(browser, WIDE);
    await context.route(/\/v1\/subscriptions\/[^/]+\/stats/, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), sampled: true, examined: 1000 } });
    });
    await page.goto((await stack.api.post(`/v1/tenants/${TENANT}/portal-sessions`, {})).body.url as string);
    await page.getByRole('button', { name: 'Close session' }).waitFor();
    await openEndpoint(page);
    await health(page).getByText('The charts are based on a sample: the newest 1000 deliveries.').waitFor();
    for (const chart of [successChart(page), latencyChart(page)])
      assert.match(
        await label(chart),
        / Based on a sample: the newest 1000 deliveries; older buckets may be missing some\.$/,
      );
  });

  it('says when the endpoint is in the slow lane, and until when, accessible at 390 px', async () => {
    // The sender marks a slow endpoint on its row (test/integration/slow-lane.test.ts makes one for real); here the mark is set.
    const until = new Date(Date.now() + 10 * 60_000).toISOString();
    const db = DynamoDBDocumentClient.from(stack.runtime.clients.dynamodb);
    const mark = (value: string | null) =>
      db.send(
        new UpdateCommand({
          TableName: stack.runtime.env.SUBSCRIPTIONS_TABLE,
          Key: { id: subscriptionId },
          ...(value
            ? { UpdateExpression: 'SET slowUntil = :u', ExpressionAttributeValues: { ':u': value } }
            : { UpdateExpression: 'REMOVE slowUntil' }),
        }),
      );
    await mark(until);
    try {
      const { page, problems } = await openPage(browser, PHONE);
      await page.goto((await stack.api.post(`/v1/tenants/${TENANT}/portal-sessions`, {})).body.url as string);
      await page.getByRole('button', { name: 'Close session' }).waitFor();
      await openEndpoint(page);
      const slow = page.locator('dt', { hasText: 'Slow lane' }).locator('xpath=following-sibling::dd[1]');
      assert.match(
        (await slow.textContent()) ?? '',
        /^answers slowly: its deliveries go through the slow lane, apart from other endpoints', until /,
      );
      assert.equal(await slow.locator('time').getAttribute('datetime'), until);
      await assertNoSidewaysScroll(page, 'portal: slow lane at 390 px');
      axeReport['portal slow lane phone'] = await assertAccessible(page, 'portal: slow lane at 390 px');
      assert.deepEqual(problems, [], 'no CSP refusal, no page error');
    } finally {
      await mark(null);
    }
  });

  it('shows the operator the same charts on the console’s endpoint page', async () => {
    const { page, problems } = await openPage(browser, WIDE);
    await page.goto(`${stack.runtime.url}/dashboard`);
    await page.getByLabel('Admin key').fill(stack.runtime.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
    await openEndpoint(page);
    await assertDay(page);
    await assertWeek(page);
    await assertBothWidths(page, 'console, 7 d');
    // Back to the day: the page's own stats, shown again without a read.
    await health(page).getByRole('button', { name: '24 h' }).click();
    await page.getByRole('heading', { name: 'Health, last 24 h' }).waitFor();
    await assertDay(page);
    assert.deepEqual(problems, [], 'no CSP refusal, no page error');
  });
});
