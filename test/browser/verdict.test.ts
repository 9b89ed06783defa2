// One truth on the page, in real Chromium: a row's state and the alerts panel come from one verdict. A channel
// alerted Warn on its 5-minute window while its last minute looks clean shows Warn in its row (the table used to
// grade the last minute alone and said OK); a healthy row has no alert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import { launchChromium, openDashboard, type Browser } from './chromium.js';

let service: RunningService;
let browser: Browser;

async function post(outcomes: unknown[]): Promise<void> {
  const response = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
  expect(response.status, await response.clone().text()).toBe(200);
}

const outcomes = (channel: string, n: number, successOf: (i: number) => boolean, at: number) =>
  Array.from({ length: n }, (_, i) => ({ channel, requestId: `${channel}-${at}-${i}`, at, ...(successOf(i) ? { status: 'success' } : { status: 'failure', code: 'do_not_honor' }) }));

beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', minSamples: 50, alerts: { evaluateEvery: '1s', silent: false, log: false } });
  const now = Date.now();
  // acq-slow: 80 % three minutes ago, all good in the last minute: 84 % over 5 m, Warn with z = 4 after three
  // evaluations; its last minute alone (100 of 100) grades OK.
  await post([...outcomes('acq-slow', 400, (i) => i % 5 !== 0, now - 180_000), ...outcomes('acq-slow', 100, () => true, now - 1_000)]);
  await post(outcomes('acq-good', 300, () => true, now - 1_000));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('one verdict for the table and the alerts panel', () => {
  it('shows an alerted channel at its alert level and no alert on an OK row', async () => {
    const { page } = browser;
    await openDashboard(page, service.url, 30_000);
    const alertRow = page.locator('#alerts-body tr').filter({ hasText: 'acq-slow' });
    await alertRow.waitFor({ timeout: 30_000 });
    expect(await alertRow.locator('.badge').innerText()).toBe('Warn');

    const row = (channel: string) => page.getByRole('row').filter({ has: page.getByRole('button', { name: channel, exact: true }) });
    await row('acq-slow').locator('.badge').getByText('Warn · alert').waitFor({ timeout: 10_000 });
    expect(await row('acq-slow').innerText()).toContain('100 %');
    expect(await row('acq-good').locator('.badge').innerText()).toBe('OK');
    expect(await page.locator('#alerts-body tr').filter({ hasText: 'acq-good' }).count()).toBe(0);
    expect(await page.locator('#summary').innerText()).toMatch(/1 Warn/);
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
