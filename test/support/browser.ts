import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * The real-browser tests' one setup: the Debian chromium (.ci/run installs it when absent),
 * driven headless by playwright-core, which downloads no browser of its own. One browser per
 * test file, a fresh context (its own sessionStorage) per scenario.
 */
export const CHROMIUM = process.env.HOOKLINE_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no browser at ${CHROMIUM}: install it (apt-get install -y chromium) or set HOOKLINE_CHROMIUM`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Watched {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Every answer's body the page received from the API (to prove what never reached the browser). */
  readonly bodies: string[];
  /** Console messages that report a Content-Security-Policy refusal, and uncaught page errors. */
  readonly problems: string[];
}

/**
 * A new context and page: axe-core is made available through an init script (DevTools
 * evaluation, which the page's CSP does not govern, so the check needs no inline script the
 * CSP would rightly refuse); every response body and every CSP complaint is recorded.
 */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript({ content: AXE_SOURCE });
  const page = await context.newPage();
  const bodies: string[] = [];
  const problems: string[] = [];
  page.on('response', (res) => {
    void res.text().then(
      (t) => bodies.push(`${res.url()}\n${t}`),
      () => undefined,
    );
  });
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { page, context, bodies, problems };
}

export interface AxeResult {
  readonly violations: readonly {
    id: string;
    impact: string | null;
    help: string;
    nodes: readonly { target: readonly string[] }[];
  }[];
}

/** Counts of axe-core violations by impact on the page as it is now (WCAG 2.1 A/AA and best practices). */
export async function axeViolations(page: Page): Promise<{ byImpact: Record<string, number>; result: AxeResult }> {
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }).then((r) => ({ violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })) }))`,
  )) as AxeResult;
  const byImpact: Record<string, number> = {};
  for (const v of result.violations) byImpact[v.impact ?? 'none'] = (byImpact[v.impact ?? 'none'] ?? 0) + 1;
  return { byImpact, result };
}

/** Fails naming each serious or critical violation (and where); lesser ones are returned for the report. */
export async function assertAccessible(page: Page, where: string): Promise<Record<string, number>> {
  const { byImpact, result } = await axeViolations(page);
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe-core on ${where}`,
  );
  if (process.env.HOOKLINE_AXE_REPORT)
    console.log(
      `axe ${where}: ${JSON.stringify(byImpact)} ${result.violations.map((v) => `${v.impact}:${v.id}`).join(' ')}`,
    );
  return byImpact;
}

/** The page does not scroll sideways at its width (a wide table may scroll inside its own region). */
export async function assertNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const [scroll, width] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [
    number,
    number,
  ];
  assert.ok(scroll <= width, `${where}: the page is ${scroll} px wide in a ${width} px viewport`);
}

/** What the page keeps in sessionStorage (the dashboard's credential). */
export async function storedCredential(page: Page): Promise<any> {
  const text = (await page.evaluate(`sessionStorage.getItem('hookline.credential')`)) as string | null;
  return text ? JSON.parse(text) : null;
}
