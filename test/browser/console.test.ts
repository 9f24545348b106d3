import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, assertNoSidewaysScroll, launchBrowser, openPage, storedCredential } from '#test/browser.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';
import { FileMailCatcher } from '#adapters/file-mail-catcher.ts';

/**
 * The operator console in a real browser: sign in with the admin key (kept in the tab's
 * sessionStorage only), every subscription with its health, filtered by tenant, the overall
 * dead letters newest first, a bulk replay from dry run through confirmation and progress to
 * its audit entry, and portal links minted and revoked. One browser for the file, one page
 * signed in once and reused by every test.
 */

let stack: LocalStack;
let browser: Browser;
let page: Page;
const subs = { a: '', b: '', down: '' };
let deadLetters: { id: string; updatedAt: string }[] = [];
/** A laptop's width and a phone's: every screen is checked at both. */
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const axeReport: Record<string, Record<string, number>> = {};

const text = async (selector: string) => (await page.locator(selector).allTextContents()).join(' ');
const go = async (hash: string, heading: string) => {
  await page.goto(`${stack.runtime.url}/dashboard${hash}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
};

describe('the operator console, in a browser', { timeout: 180_000 }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startLocalStack(), launchBrowser()]);
    stack.receiver.script('/broken-a', [], { status: 422, body: 'no' });
    stack.receiver.script('/broken-b', [], { status: 410, body: 'gone' });
    subs.a = (await stack.subscribe('/broken-a', { tenantId: 'acme', description: 'Acme orders' })).id;
    subs.b = (await stack.subscribe('/broken-b', { tenantId: 'globex', description: 'Globex billing' })).id;
    for (let i = 0; i < 3; i++) {
      const { deliveryIds } = await stack.publish('order.created', { i }, undefined, { audience: 'all' });
      for (const id of deliveryIds) await stack.waitForState(id, ['failed', 'expired', 'delivered']);
    }
    deadLetters = (await stack.api.get('/v1/dead-letters')).body.items;
    assert.ok(deadLetters.length >= 4);
    // An endpoint that is down, its one delivery still being retried (a minute apart): nothing has finished.
    stack.receiver.script('/down', [], { status: 503, body: 'down' });
    subs.down = (
      await stack.subscribe('/down', {
        tenantId: 'initech',
        description: 'Initech down',
        eventTypes: ['outage.*'],
        retryPolicy: { initialDelaySeconds: 60, multiplier: 1, maxDelaySeconds: 60, jitter: 0, deadlineSeconds: 3600 },
      })
    ).id;
    const [downDelivery] = (await stack.publish('outage.test', {}, undefined, { tenantId: 'initech' })).deliveryIds;
    await waitFor('its first attempt', async () => (await stack.delivery(downDelivery!)).attempts === 1);
    ({ page } = await openPage(browser, WIDE));
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    if (process.env.HOOKLINE_AXE_REPORT) console.log(`axe violations by impact: ${JSON.stringify(axeReport)}`);
  });

  it('signs in with the admin key only: a wrong key is refused, the right one stays in this tab and never in the URL', async () => {
    await page.goto(`${stack.runtime.url}/dashboard`);
    await page.getByRole('heading', { name: 'Hookline console' }).waitFor();
    axeReport.signIn = await assertAccessible(page, 'the sign-in page');
    await page.setViewportSize(PHONE);
    await assertNoSidewaysScroll(page, 'the sign-in page at 390 px');
    axeReport.signInPhone = await assertAccessible(page, 'the sign-in page at 390 px');
    await page.setViewportSize(WIDE);
    await page.getByLabel('Admin key').fill('hk_admin_not-the-key-at-all-000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('That is not the admin key').waitFor();
    assert.equal(await storedCredential(page), null);
    await page.getByLabel('Admin key').fill(stack.runtime.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
    assert.deepEqual(await storedCredential(page), { kind: 'admin', key: stack.runtime.adminKey });
    assert.ok(!page.url().includes(stack.runtime.adminKey));
  });

  it('lists every subscription with its health, and filters by tenant', async () => {
    await go('#/subscriptions', 'Subscriptions');
    await page.getByRole('link', { name: 'Globex billing' }).waitFor();
    await page.getByRole('cell', { name: '0 %' }).first().waitFor();
    const all = await text('table');
    assert.match(all, /Acme orders/);
    assert.match(all, /acme/);
    assert.match(all, /globex/);
    assert.match(all, /HTTP 4(22|10)/, 'the last failure');
    // Failing whatever its state says, and no bare "–" where nothing has finished yet.
    const down = page.locator('tr:has-text("Initech down")');
    await waitFor("the down endpoint's health", async () => (await down.textContent())?.includes('none finished'));
    assert.match((await down.textContent()) ?? '', /active.*none finished: 1 still failing.*failing\s*since/s);
    await down.locator('.badge-failing').waitFor();
    await assertNoSidewaysScroll(page, 'the subscription list with a failing badge');
    await down.getByRole('link', { name: 'Initech down' }).click();
    await page.getByRole('heading', { name: 'Initech down', level: 1 }).waitFor();
    await page.locator('.facts .badge-failing').waitFor();
    await page
      .locator('main')
      .filter({ hasNotText: /loading/i })
      .waitFor();
    await assertNoSidewaysScroll(page, 'a failing subscription, its badges and health');
    await go('#/subscriptions', 'Subscriptions');
    await page.getByRole('cell', { name: '0 %' }).first().waitFor();
    const names = await page.locator('table tbody tr td:first-child a').allTextContents();
    assert.ok(names.length > 1);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })),
      'listed by name',
    );
    axeReport.subscriptions = await assertAccessible(page, 'the console subscription list');
    await page.getByLabel('Tenant').fill('acme');
    await page.getByRole('button', { name: 'Filter' }).click();
    await waitFor(
      'the acme filter',
      async () => !(await text('table')).includes('Globex billing') && (await text('table')).includes('Acme orders'),
    );
    assert.match(new URL(page.url()).hash, /tenant=acme/);
    await page.getByLabel('Tenant').fill('nobody');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No subscriptions for tenant nobody yet').waitFor();
  });

  it('shows the overall dead letters, newest first', async () => {
    await go('#/dead-letters', 'Dead letters');
    await page.locator('table:has(caption:text("Dead letters")) tbody tr').first().waitFor();
    const ids = await page.locator('table:has(caption:text("Dead letters")) tbody tr td:first-child').allTextContents();
    const newestFirst = [...deadLetters].sort((x, y) => y.updatedAt.localeCompare(x.updatedAt)).map((d) => d.id);
    assert.deepEqual(ids, newestFirst);
    const subscriptionsShown = await page
      .locator('table:has(caption:text("Dead letters")) tbody tr td:nth-child(2)')
      .allTextContents();
    assert.deepEqual(new Set(subscriptionsShown), new Set([subs.a, subs.b]));
    axeReport.deadLetters = await assertAccessible(page, 'the overall dead letters');
  });

  it('bulk replay: a dry run previews the count and a sample, nothing happens without confirming, then progress until done, and the audit log records both', async () => {
    await go('#/replays', 'Bulk replay');
    await page.getByLabel('Subscription id (optional)').fill(subs.a);
    await page.getByLabel('Your name, for the audit log').fill('ops-alice');
    await page.getByRole('button', { name: 'Preview (dry run)' }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('3 deliveries match').waitFor();
    const sample = await preview.getByRole('link').allTextContents();
    assert.ok(sample.length >= 1 && sample.every((id) => deadLetters.some((d) => d.id === id)), JSON.stringify(sample));
    axeReport.replayPreview = await assertAccessible(page, 'the dry run preview');

    // Cancel: the dialog closes and nothing was replayed.
    await preview.getByRole('button', { name: 'Replay 3 deliveries…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay 3 deliveries?' });
    await dialog.waitFor();
    axeReport.replayConfirm = await assertAccessible(page, 'the replay confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(
      (await stack.api.get(`/v1/dead-letters?subscriptionId=${subs.a}`)).body.items.length,
      3,
      'still dead letters',
    );

    stack.receiver.script('/broken-a', [], { status: 200 });
    await preview.getByRole('button', { name: 'Replay 3 deliveries…' }).click();
    await dialog.getByRole('button', { name: 'Yes, replay 3 deliveries' }).click();
    await page.getByText(/finished: 3 deliveries are on their way again/).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('progress').getAttribute('value'), '3');
    assert.equal(
      (await stack.api.get(`/v1/dead-letters?subscriptionId=${subs.a}`)).body.items.length,
      0,
      'replayed: no longer dead letters',
    );

    const audit = page.locator('table:has(caption:text("Bulk replays")) tbody tr');
    await waitFor(
      'the audit log to show the replay',
      async () => (await audit.count()) >= 2 && /replay/.test((await audit.first().textContent()) ?? ''),
    );
    const [replayRow, dryRunRow] = await audit.allTextContents();
    assert.match(replayRow!, /ops-alice/);
    assert.match(replayRow!, /replay/);
    assert.match(replayRow!, /completed/);
    assert.match(replayRow!, new RegExp(subs.a));
    assert.match(dryRunRow!, /dry run/);
    assert.match(dryRunRow!, /ops-alice/);
    const replays = (await stack.api.get('/v1/replays')).body.items;
    assert.equal(replays[0].operator, 'ops-alice');
    assert.equal(replays[0].replayed, 3);
    axeReport.replayDone = await assertAccessible(page, 'the finished replay and the audit log');
  });

  it('mints a customer portal link and revokes it', async () => {
    await go('#/portal-links', 'Customer portal links');
    await page.getByLabel('Tenant').fill('globex');
    await page.getByLabel('Valid for').selectOption('900');
    await page.getByRole('button', { name: 'Create link' }).click();
    const link = (await page.getByRole('region', { name: 'Portal link' }).textContent()) ?? '';
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/dashboard#portal=hk_pcode_psn_/);
    axeReport.portalLinks = await assertAccessible(page, 'the portal links page');
    await page.getByRole('button', { name: 'Revoke this link' }).click();
    await page.getByText('the link and any session opened with it no longer work').waitFor();
    const code = link.slice(link.indexOf('#portal=') + '#portal='.length);
    const exchange = await stack.api.post('/v1/portal-sessions/exchange', { code });
    assert.equal(exchange.status, 401);
    assert.match(exchange.body.error.message, /revoked/);
  });

  it('archives now and shows the report, restores a day range and shows its report, and keeps the CLI commands', async () => {
    await go('#/archive', 'Archive and restore');
    assert.match(await text('main'), /npx hookline archive run/);
    await page.getByRole('button', { name: 'Archive now' }).click();
    // Nothing here is past retention: one slice finds nothing and says so, with its counts.
    await page
      .getByRole('status')
      .getByText(/Archive run finished: nothing archivable is left\. 0 objects written, 0 deliveries archived/)
      .waitFor();
    await page.getByLabel('First day (UTC)').fill('2026-11-01');
    await page.getByLabel('Last day (UTC)').fill('2026-11-02');
    assert.match(await text('main'), /npx hookline restore --from 2026-11-01 --to 2026-11-02/);
    await page.getByRole('button', { name: 'Restore' }).click();
    await page
      .getByRole('status')
      .getByText(/Restored 0 deliveries from 0 archive objects over 2 days/)
      .waitFor();
    axeReport.archive = await assertAccessible(page, 'the archive page');
    // A range that runs backwards is the archiver's refusal, shown naming the field.
    await page.getByLabel('Last day (UTC)').fill('2026-10-01');
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('alert').getByText(/to:/).waitFor();
  });

  it('lists the notice emails the local mail catcher kept, and opens one to read', async () => {
    // Written through the catcher itself, as the notifier would, into this runtime's data folder.
    await new FileMailCatcher(stack.runtime.mailDir, 'notices@hookline.invalid').send({
      messageId: '<console-test@hookline>',
      to: ['owner@example.com'],
      bcc: [],
      subject: 'Deliveries to Acme orders are failing',
      text: 'Your endpoint answered HTTP 422 since 10:00.',
      html: '<p>x</p>',
      headers: {},
    });
    await go('#/mail', 'Notice emails');
    await page.getByText('Deliveries to Acme orders are failing').click();
    await page.getByText('Your endpoint answered HTTP 422 since 10:00.').waitFor();
    assert.match(await text('main'), /owner@example\.com/);
    axeReport.mail = await assertAccessible(page, 'the notice emails page');
  });

  // Last but the layout check: its dead letter would change the counts the tests above read.
  it('lists events with who they were for, filters by tenant, and opens one: its payload and its delivery per subscription', async () => {
    const acme = await stack.publish('order.shipped', { parcel: 'AC-1' }, 'ev-console-acme', { tenantId: 'acme' });
    await stack.publish('order.shipped', { parcel: 'GX-1' }, 'ev-console-globex', { tenantId: 'globex' });
    await stack.waitForState(acme.deliveryIds[0]!, ['failed', 'delivered']);

    await go('#/events', 'Events');
    const rows = page.locator('table:has(caption:text("Published events")) tbody tr');
    await rows.first().waitFor();
    assert.match(await text('table'), /every tenant/, 'the broadcasts of before()');
    axeReport.events = await assertAccessible(page, 'the event log');
    await page.getByLabel('Tenant').fill('acme');
    await page.getByRole('button', { name: 'Filter' }).click();
    // Read the rows and their tenant cells together: the page may re-render between two reads.
    const tenantCells = page.locator('table:has(caption:text("Published events")) tbody tr td:nth-child(2)');
    await waitFor('the acme filter', async () => {
      const shown = await text('table');
      const tenants = await tenantCells.allTextContents();
      return shown.includes('ev-console-acme') && !shown.includes('ev-console-globex') && tenants.length > 0;
    });
    assert.deepEqual(new Set(await tenantCells.allTextContents()), new Set(['acme']));

    await page.locator('tr:has-text("ev-console-acme")').getByRole('link', { name: 'order.shipped' }).click();
    await page.getByRole('heading', { name: 'order.shipped', level: 1 }).waitFor();
    assert.match(await text('dl.facts'), /Published for\s*acme/);
    assert.match(await text('pre'), /"parcel": "AC-1"/);
    await page.getByRole('link', { name: subs.a }).click();
    await page.getByRole('link', { name: 'ev-console-acme' }).waitFor();
    axeReport.event = await assertAccessible(page, 'a delivery, linking back to its event');
  });

  it('finds an event or a delivery by its id from the header, and says so when nothing matches', async () => {
    await go('#/subscriptions', 'Subscriptions');
    const find = async (q: string) => {
      await page.getByRole('searchbox', { name: 'Event or delivery id' }).fill(q);
      await page.getByRole('button', { name: 'Find' }).click();
    };
    await find('ev-console-acme');
    await page.getByRole('heading', { name: 'order.shipped', level: 1 }).waitFor();
    assert.match(new URL(page.url()).hash, /^#\/events\/ev-console-acme$/, 'the event page, in place of the search');

    const dead = deadLetters[0]!.id;
    await find(` ${dead} `);
    await page.getByRole('heading', { name: `Delivery ${dead}`, level: 1 }).waitFor();

    await find('no-such-event');
    await page.getByRole('heading', { name: 'Find “no-such-event”', level: 1 }).waitFor();
    assert.match(await text('main'), /Nothing found for “no-such-event”/);
    axeReport.search = await assertAccessible(page, 'a search that found nothing');
  });

  for (const viewport of [WIDE, PHONE]) {
    it(`every console page at ${viewport.width} px: no sideways scroll, no serious or critical axe finding`, async () => {
      await page.setViewportSize(viewport);
      for (const [hash, heading] of [
        ['#/subscriptions', 'Subscriptions'],
        ['#/failing', 'Failing now'],
        ['#/events', 'Events'],
        ['#/events/ev-console-acme', 'order.shipped'],
        [`#/subscriptions/${subs.a}`, 'Acme orders'],
        [`#/deliveries/${deadLetters[0]!.id}`, `Delivery ${deadLetters[0]!.id}`],
        ['#/dead-letters', 'Dead letters'],
        ['#/replays', 'Bulk replay'],
        ['#/portal-links', 'Customer portal links'],
        ['#/archive', 'Archive and restore'],
        ['#/mail', 'Notice emails'],
        ['#/contract', 'How delivery works'],
        ['#/search?q=nothing-here', 'Find “nothing-here”'],
      ] as const) {
        await go(hash, heading);
        await page.waitForLoadState('networkidle');
        const where = `${hash} at ${viewport.width} px`;
        await assertNoSidewaysScroll(page, where);
        axeReport[where] = await assertAccessible(page, where);
      }
      await page.setViewportSize(WIDE);
    });
  }

  it('signs out: the key leaves the tab', async () => {
    await go('#/subscriptions', 'Subscriptions');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Hookline console' }).waitFor();
    assert.equal(await storedCredential(page), null);
  });
});
