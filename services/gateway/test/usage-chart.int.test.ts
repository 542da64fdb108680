/**
 * The console's usage over time in a real browser (Debian's chromium, headless, through playwright-core): the real
 * gateway and console in front of a fake session service whose GetDailyUsage answers a fixed series — 30 UTC days to
 * 2026-11-30, claude's 1,500 tokens (US$0.42) on the last day and nothing before. The chart shows every day, each
 * column's value in its SVG title, its accessible name saying the total and the busiest day; the table below has the
 * same numbers. At 1280 px light and 390 px dark, with no serious or critical axe-core finding; screenshots go to
 * .relay/e2e-artifacts/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const ARTIFACTS = `${root}.relay/e2e-artifacts`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let gateway: TestGateway;
let browser: Browser;
let page: Page;

/** Whether console/dist is missing or older than a source it is built from (the browser must test what is in src/). */
function consoleBuildIsStale(): boolean {
  const built = `${root}console/dist/index.html`;
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const sources = readdirSync(`${root}console/src`, { recursive: true, encoding: 'utf8' }).map((file) => `${root}console/src/${file}`);
  return sources.some((file) => statSync(file).mtimeMs > builtAt);
}

/** A screenshot, and the serious and critical accessibility violations axe-core finds on the page. */
async function shot(name: string): Promise<string[]> {
  await page.screenshot({ path: `${ARTIFACTS}/usage-over-time-${name}.png`, fullPage: true });
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (consoleBuildIsStale()) {
    const built = spawnSync('npm', ['run', 'build', '--workspace', '@relay/console'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the console did not build');
  }
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium`);
  [gateway, browser] = await Promise.all([startGateway(), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
  const token = gateway.owners.addUser('u1');
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await page.goto(`${gateway.url}/#token=${encodeURIComponent(token)}`);
  await page.getByRole('heading', { name: 'Sessions' }).waitFor({ timeout: 15_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('the Usage page: usage over time', () => {
  it('charts each of the last 30 UTC days per provider, zeros included, with every value readable as text', async () => {
    await page.goto(`${gateway.url}/usage`);
    const tokens = page.locator('[data-chart="daily-tokens"] svg[data-provider="claude"]');
    await tokens.waitFor({ timeout: 15_000 });
    // Asked for 30 days (again when the live connection says sessions changed, so at least once).
    const asked = gateway.owners.calls.filter((call) => call.method === 'getDailyUsage').map((call) => call.request);
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked.map((request) => JSON.stringify(request)))).toEqual(new Set([JSON.stringify({ days: 30 })]));

    const days = tokens.locator('rect.day');
    expect(await days.count()).toBe(30);
    expect(await days.first().getAttribute('data-day')).toBe('2026-11-01');
    expect(await days.last().getAttribute('data-day')).toBe('2026-11-30');
    expect(await days.last().locator('title').textContent()).toBe('claude, 2026-11-30: 1,500 tokens');
    expect(await days.last().getAttribute('height')).toBe('40');
    // A day with nothing is a day at zero, not a gap.
    expect(await tokens.locator('rect.day[data-day="2026-11-29"] title').textContent()).toBe('claude, 2026-11-29: 0 tokens');
    expect(await tokens.locator('rect.day[data-day="2026-11-29"]').getAttribute('height')).toBe('0');
    expect(await page.getByRole('img', { name: 'claude: 1,500 tokens in 30 days, most on 2026-11-30: 1,500 tokens' }).count()).toBe(1);

    const cost = page.locator('[data-chart="daily-cost_usd"] svg[data-provider="claude"]');
    expect(await cost.locator('rect.day[data-day="2026-11-30"] title').textContent()).toBe('claude, 2026-11-30: US$0.42');
    expect(await page.getByRole('img', { name: 'claude: US$0.42 in 30 days, most on 2026-11-30: US$0.42' }).count()).toBe(1);
    await expect.poll(() => page.locator('.over-time > p').textContent()).toBe('Each day (UTC) of the last 30, Nov 1 to Nov 30, for the whole relay.');

    // The same numbers as a table, for reading without sight.
    await page.getByText('The days as a table').click();
    expect(await page.locator('.over-time-table tr[data-day="2026-11-30"]').textContent()).toBe('2026-11-301,500 tokensUS$0.42');
    expect(await page.locator('.over-time-table tbody tr').count()).toBe(30);
    expect(await shot('desktop-light')).toEqual([]);
  });

  it('reads on a phone in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${gateway.url}/usage`);
    await page.locator('[data-chart="daily-tokens"] svg[data-provider="claude"]').waitFor({ timeout: 15_000 });
    // The chart fits the phone's width: no scrolling sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByText('The days as a table').click();
    expect(await shot('phone-dark')).toEqual([]);
  });
});
