// One truth on the page, in real Chromium: a row's state and the alerts panel come from one verdict. A channel
// alerted Warn on its 5-minute window while its last minute looks clean shows Warn in its row (the table used to
// grade the last minute alone and said OK); a healthy row has no alert. Each row names its top failure codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import { launchChromium, openDashboard, type Browser } from './chromium.js';

let service: RunningService;
let browser: Browser;

async function post(outcomes: unknown[]): Promise<void> {
  const response = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Failure codes by their order among a channel's failures: of 100, 62 do_not_honor, 21 insufficient_funds, 10 …, 7 …. */
const codeOf = (k: number) => (k % 100 < 62 ? 'do_not_honor' : k % 100 < 83 ? 'insufficient_funds' : k % 100 < 93 ? 'issuer_unavailable' : 'fraud_suspected');

const outcomes = (channel: string, n: number, successOf: (i: number) => boolean, at: number) => {
  let failures = 0;
  return Array.from({ length: n }, (_, i) => ({ channel, requestId: `${channel}-${at}-${i}`, at, ...(successOf(i) ? { status: 'success' } : { status: 'failure', code: codeOf(failures++) }) }));
};

beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', minSamples: 50, alerts: { evaluateEvery: '1s', silent: false, log: false } });
  const now = Date.now();
  // acq-slow: 80 % three minutes ago, all good in the last minute: 83 % over 5 m, Warn with z = 4 after three
  // evaluations; its last minute alone (100 of 100) grades OK.
  await post([...outcomes('acq-slow', 500, (i) => i % 5 !== 0, now - 180_000), ...outcomes('acq-slow', 100, () => true, now - 1_000)]);
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

  it("shows each row's top failure codes with their share, without a click", async () => {
    const { page } = browser;
    const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'acq-slow', exact: true }) });
    await row.locator('td.codes').getByText('do_not_honor 62 %, insufficient_funds 21 %, issuer_unavailable 10 %').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('row').filter({ has: page.getByRole('button', { name: 'acq-good', exact: true }) }).locator('td.codes').innerText()).toBe('');
    expect(await page.getByRole('columnheader', { name: 'Top failure codes (5m)' }).count()).toBe(1);
    const bad = await fetch(`${service.url}/v1/codes?channels=acq-slow&window=7m`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('querystring.window');
  }, 30_000);
});
