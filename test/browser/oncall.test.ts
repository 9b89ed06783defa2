// The on-call's page, in real Chromium against a service with a token: a failing acquirer the router moved
// payments away from shows in the alerts panel with what routing did, and the routing panel draws each channel's
// share of routed payments with the leader change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import { launchChromium, openDashboard, type Browser } from './chromium.js';

const token = 'oncall-test-token-0123456789';
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
let service: RunningService;
let browser: Browser;
let serial = 0;

async function call(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * `batches` of 25 payments routed between the two acquirers, each recorded with the success its channel has now,
 * a snapshot apart, so the router sees the outcomes of one batch before it routes the next.
 */
async function routeAndRecord(batches: number, successOf: (channel: string) => number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    await routeBatch(25, successOf);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }
}

async function routeBatch(payments: number, successOf: (channel: string) => number): Promise<void> {
  const outcomes = [];
  for (let i = 0; i < payments; i++) {
    const requestId = `p${++serial}`;
    const { channel } = (await call('/v1/route', { candidates: ['acq-a', 'acq-b'], requestId })) as { channel: string };
    const ok = (serial * 7919) % 100 < successOf(channel) * 100;
    outcomes.push({ channel, requestId, at: Date.now(), ...(ok ? { status: 'success' } : { status: 'failure', code: 'do_not_honor' }) });
  }
  await call('/v1/outcomes', { outcomes });
}

beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', token, minSamples: 50, alerts: { evaluateEvery: '1s', silent: false, log: false } });
  // acq-a leads while healthy; then it fails and the router moves its payments to acq-b.
  await call('/v1/outcomes', { outcomes: Array.from({ length: 200 }, (_, i) => ({ channel: i % 2 ? 'acq-a' : 'acq-b', requestId: `seed${i}`, status: i % 2 || i % 20 ? 'success' : 'failure', at: Date.now() - 2_000 })) });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await routeAndRecord(6, (c) => (c === 'acq-a' ? 0.99 : 0.9));
  await routeAndRecord(12, (c) => (c === 'acq-a' ? 0.2 : 0.9));
  browser = await launchChromium();
  browser.page.on('dialog', (dialog) => void dialog.accept(token));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe("the on-call's page", () => {
  it('lists the firing alert with what routing did, and draws the share of routed payments', async () => {
    const { page } = browser;
    await openDashboard(page, service.url, 30_000);
    const alertRow = page.locator('#alerts-body tr').filter({ hasText: 'acq-a' }).first();
    await alertRow.waitFor({ timeout: 30_000 });
    await expect(alertRow.locator('.alert-routing').textContent()).resolves.toMatch(/^(routed away|still routed): share \d+(\.\d)? %/);
    await page.locator('#routing-chart[data-channels="2"]').waitFor({ timeout: 20_000 });
    await expect(page.locator('#routing-legend li[data-channel="acq-b"]').textContent()).resolves.toMatch(/acq-b: \d+(\.\d)? % of payments now/);
    expect(await page.locator('#routing-chart polyline').count()).toBe(2);
    // One channel, one colour: its routing swatch is its line's colour on the rate chart.
    const colours = await page.evaluate(() => {
      const onChart = Object.fromEntries([...document.querySelectorAll('#chart .u-legend .u-series')].map((tr) => [tr.querySelector('.u-label')?.textContent?.replace(/:$/, ''), getComputedStyle(tr.querySelector('.u-marker')!).borderColor]));
      return [...document.querySelectorAll<HTMLElement>('#routing-legend li[data-channel]')].map((li) => [getComputedStyle(li.querySelector('.swatch')!).backgroundColor, onChart[li.dataset.channel!]]);
    });
    expect(colours).toHaveLength(2);
    for (const [swatch, line] of colours) expect(swatch).toBe(line);
    // Every row says since when, and its share of routed payments.
    const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'acq-a', exact: true }) });
    await row.locator('.since').getByText(/^alert since \d\d:\d\d:\d\d/).waitFor();
    await expect(row.locator('.share').textContent()).resolves.toMatch(/^routed \d+(\.\d)? %$/);
    await page.locator('#routing').scrollIntoViewIfNeeded();
    // Into a temp dir: a test must not rewrite tracked files (the docs' screenshots come from scripts/demo-screenshots.ts).
    const shots = mkdtempSync(join(tmpdir(), 'paypulse-oncall-'));
    await page.screenshot({ path: join(shots, 'oncall-routing.png'), fullPage: true });
    rmSync(shots, { recursive: true, force: true });
    // The page's first read is answered 401 before it asks for the token: the browser logs that one.
    expect(browser.problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
  }, 90_000);
});
