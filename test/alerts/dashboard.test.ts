// The alert on the dashboard, in real headless Chromium against the real service over a socket: a channel
// that starts failing shows up in the banner, the alerts panel and as a marker on the chart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import type { Outcome } from '../../src/types.js';
import { launchChromium, openDashboard, type Browser } from '../browser/chromium.js';

const WAIT_MS = 30_000;
let service: RunningService;
let browser: Browser;
let serial = 0;

function outcomes(channel: string, count: number, status: 'success' | 'failure'): Outcome[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    channel, requestId: `${channel}-${++serial}`, status, at: now - (count - i) * 5, ...(status === 'failure' ? { code: 'do_not_honor' } : {}),
  }));
}

async function post(batch: Outcome[]): Promise<void> {
  const response = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes: batch }) });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', alerts: { evaluateEvery: '1s', silent: false, log: false } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('alerts on the dashboard', () => {
  it('shows a new alert in the banner, the panel and the chart', async () => {
    const { page } = browser;
    await post(outcomes('card-ok', 300, 'success'));
    await openDashboard(page, service.url, WAIT_MS);
    await page.getByText('No alert is firing.').waitFor({ timeout: WAIT_MS });
    expect(await page.getByRole('alert', { name: 'Alert banner' }).isHidden()).toBe(true);

    // 25 % of 400 in the last minute: the whole interval lies below every level.
    await post([...outcomes('bank-x', 100, 'success'), ...outcomes('bank-x', 300, 'failure')]);
    const banner = page.getByRole('alert', { name: 'Alert banner' });
    await banner.getByText(/Critical alert: bank-x/).waitFor({ timeout: WAIT_MS });
    expect(await banner.innerText()).toContain('25.0 %');
    const row = page.locator('#alerts-body tr').filter({ hasText: 'bank-x' });
    await row.waitFor({ timeout: WAIT_MS });
    expect(await row.innerText()).toContain('do_not_honor');
    expect(await page.getByText('No alert is firing.').isHidden()).toBe(true);
    await page.waitForFunction(() => Number(document.querySelector('#chart')?.getAttribute('data-markers')) >= 1, undefined, { timeout: WAIT_MS });
    expect(browser.problems).toEqual([]);
  }, 120_000);

  it('shows the alerts of a service that needs a token, and says so when they cannot be read', async () => {
    const token = 'dashboard-alerts-token-0123456789';
    const guarded = await startService({ ...defaultConfig, port: 0, token, logLevel: 'silent', alerts: { evaluateEvery: '1s', silent: false, log: false } });
    const tokenBrowser = await launchChromium();
    try {
      const { page } = tokenBrowser;
      const failing = outcomes('guarded-bank', 400, 'failure');
      const sent = await fetch(`${guarded.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ outcomes: failing }) });
      expect(sent.status).toBeLessThan(300);
      page.on('dialog', (dialog) => void dialog.accept(token));
      await openDashboard(page, guarded.url, WAIT_MS);
      const row = page.locator('#alerts-body tr').filter({ hasText: 'guarded-bank' });
      await row.waitFor({ timeout: WAIT_MS });
      expect(await page.getByText('No alert is firing.').isHidden()).toBe(true);
      expect(await row.innerText()).toMatch(/Critical/);
      expect(tokenBrowser.problems.filter((p) => !p.includes('401'))).toEqual([]);

      // A token that stops working: the page says it cannot read the service, never that no alert is firing.
      await page.evaluate(() => sessionStorage.setItem('paypulse.token', 'wrong-token-wrong-token'));
      page.removeAllListeners('dialog');
      page.on('dialog', (dialog) => void dialog.dismiss());
      await page.reload();
      await page.getByText(/Cannot reach PayPulse/).waitFor({ timeout: WAIT_MS });
      expect(await page.getByText('No alert is firing.').count()).toBe(0);
    } finally {
      await tokenBrowser.close();
      await guarded.close();
    }
  }, 120_000);
});
