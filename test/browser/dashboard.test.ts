// The dashboard in real headless Chromium against the real service over a socket: it shows what was
// recorded, follows the stream as new outcomes arrive, and drills down into a channel's failed requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import type { Outcome } from '../../src/types.js';
import { launchChromium, openDashboard, type Browser } from './chromium.js';

const WAIT_MS = 15_000;

let service: RunningService;
let browser: Browser;
let serial = 0;
let bankFailures: Outcome[];

function outcomes(channel: string, count: number, status: 'success' | 'failure', code?: string, endAt = Date.now()): Outcome[] {
  return Array.from({ length: count }, (_, i) => ({
    channel,
    requestId: `${channel}-${status}-${++serial}`,
    status,
    // 10 ms apart, oldest first, so the newest failure is the one posted last.
    at: endAt - (count - i) * 10,
    ...(code ? { code } : {}),
  }));
}

async function post(batch: Outcome[]): Promise<void> {
  const response = await fetch(`${service.url}/v1/outcomes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcomes: batch }),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

const row = (channel: string) => browser.page.getByRole('row').filter({ has: browser.page.getByRole('button', { name: channel, exact: true }) });

async function chartPoints(): Promise<number> {
  return Number(await browser.page.getByRole('img', { name: /success rate/i }).getAttribute('data-points'));
}

/** Waits until the history store holds outcomes of the channel: the snapshot job copies on its own timer. */
async function waitForHistory(channel: string): Promise<boolean> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const response = await fetch(`${service.url}/v1/channels/${channel}/history`);
    const { minutes } = (await response.json()) as { minutes: { success: number; failure: number }[] };
    if (minutes.some((m) => m.success + m.failure > 0)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Moves the pointer across the chart, newest (right) first, until the legend shows `text` for the channel. */
async function legendShowsUnderSweep(channel: string, text: string): Promise<boolean> {
  const { page } = browser;
  const box = await page.locator('#chart .u-over').boundingBox();
  if (!box) throw new Error('the chart has no plot area');
  const value = page.locator('#chart .u-legend .u-series').filter({ hasText: channel }).locator('.u-value');
  try {
    for (let x = box.x + box.width - 1; x > box.x; x -= 6) {
      await page.mouse.move(x, box.y + box.height / 2);
      if ((await value.innerText()) === text) return true;
    }
    return false;
  } finally {
    await page.mouse.move(0, 0);
  }
}

beforeAll(async () => {
  // The real service over a socket: embedded store, embedded PostgreSQL, history copied every second.
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', historyIntervalMs: 1_000 });
  // card-visa: healthy, minutes ago (so it is history, and absent from the 1m window);
  // bank-x: 70 % now (major); wallet-y: too few samples to judge.
  bankFailures = outcomes('bank-x', 30, 'failure', 'do_not_honor');
  // All of card-visa in the middle of one minute 2.5–3.5 minutes ago: one history point, whatever the clock.
  const cardAt = Math.floor((Date.now() - 180_000) / 60_000) * 60_000 + 30_000;
  await post([
    ...outcomes('card-visa', 148, 'success', undefined, cardAt - 20),
    ...outcomes('card-visa', 2, 'failure', 'expired_card', cardAt),
    ...outcomes('bank-x', 70, 'success'),
    ...bankFailures,
    ...outcomes('wallet-y', 5, 'success'),
    ...outcomes('wallet-y', 5, 'failure', 'timeout'),
  ]);
  expect(await waitForHistory('card-visa')).toBe(true);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('dashboard', () => {
  it('shows every channel with its rate, interval, sample count and graded state', async () => {
    const { page } = browser;
    await openDashboard(page, service.url, WAIT_MS);

    await row('bank-x').getByText('Major').waitFor({ timeout: WAIT_MS });
    const bank = await row('bank-x').innerText();
    expect(bank).toContain('70.0 %');
    expect(bank).toContain('n = 100');
    // The 95 % Wilson interval of 70/100 is 60.4–78.1 %.
    expect(bank).toContain('60.4–78.1 %');

    // No card-visa outcome in the last minute: its state comes from the 5m window.
    const card = await row('card-visa').innerText();
    expect(card).toContain('OK');
    expect(card).toContain('98.6 %'); // 148/150, truncated
    const wallet = await row('wallet-y').innerText();
    expect(wallet).toContain('Few samples');
    expect(wallet).toContain('n = 10 · few');

    // The chart reaches back into history: card-visa had no outcome since, so its only value is the minute
    // of 2.5–3.5 minutes ago. Sweep the pointer over the plot as a person would and read the legend.
    await page.waitForFunction(() => document.querySelector('#chart')?.getAttribute('data-channels') === '3');
    expect(await legendShowsUnderSweep('card-visa', '98.6 %')).toBe(true);
    await page.getByLabel('Data age').getByText(/updated .* ago/).waitFor({ timeout: WAIT_MS });
    // The canvas is described for screen readers by its newest values.
    await page.getByRole('img', { name: /bank-x 70\.0 %/ }).waitFor({ timeout: WAIT_MS });
  });

  it('moves with the stream as outcomes are recorded', async () => {
    const { page } = browser;
    const pointsBefore = await chartPoints();

    // 100 more successes lift bank-x from 70 % to 85 %: from major to warn.
    await post(outcomes('bank-x', 100, 'success'));
    await row('bank-x').getByText('n = 200').first().waitFor({ timeout: WAIT_MS });
    await row('bank-x').getByText('Warn').waitFor({ timeout: WAIT_MS });
    expect(await row('bank-x').innerText()).toContain('85.0 %');

    await page.waitForFunction(
      (before) => Number(document.querySelector('#chart')?.getAttribute('data-points')) > before,
      pointsBefore,
      { timeout: WAIT_MS },
    );
    await page.getByRole('img', { name: /bank-x 85\.0 %/ }).waitFor({ timeout: WAIT_MS });
    expect(await page.locator('#summary').innerText()).toMatch(/1 Warn/);
  });

  it('drills down into a channel’s latest failed requests and keeps them current', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'bank-x', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Failures of bank-x' });
    await panel.waitFor({ timeout: WAIT_MS });

    const newest = bankFailures[bankFailures.length - 1].requestId;
    await panel.getByRole('cell', { name: newest, exact: true }).waitFor({ timeout: WAIT_MS });
    // Newest first, at most 20 of the 30.
    expect(await panel.getByRole('row').nth(1).innerText()).toContain(newest);
    expect(await panel.getByRole('cell', { name: 'do_not_honor' }).count()).toBe(20);
    expect(await page.getByRole('button', { name: 'bank-x', exact: true }).getAttribute('aria-expanded')).toBe('true');

    // A failure recorded while the panel is open shows up without a click.
    const [late] = outcomes('bank-x', 1, 'failure', 'issuer_unavailable');
    await post([late]);
    await panel.getByRole('cell', { name: late.requestId, exact: true }).waitFor({ timeout: WAIT_MS });
    expect(await panel.getByRole('row').nth(1).innerText()).toContain('issuer_unavailable');

    await page.screenshot({ path: process.env.PAYPULSE_SCREENSHOT ?? '/tmp/dashboard.png', fullPage: true });

    // Closed from the keyboard, focus returns to the channel it was opened from.
    await panel.getByRole('button', { name: 'Close failures' }).focus();
    await page.keyboard.press('Enter');
    await panel.waitFor({ state: 'hidden', timeout: WAIT_MS });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('bank-x');
    expect(await page.getByRole('button', { name: 'bank-x', exact: true }).getAttribute('aria-expanded')).toBe('false');

    await page.keyboard.press('Enter');
    await panel.waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden', timeout: WAIT_MS });
    expect(browser.problems).toEqual([]);
  });

  it('shows a channel\'s breaker opening beside it, from the stream', async () => {
    const { page } = browser;
    const breaker = () => row('acq-z').locator('[data-breaker]');
    await post(outcomes('acq-z', 40, 'success'));
    await breaker().waitFor({ timeout: WAIT_MS });
    expect(await breaker().getAttribute('data-breaker')).toBe('closed');
    // 40 of 160 calls in 30 s succeed: past the 50 % threshold with more than 100 calls, so the breaker opens.
    await post(outcomes('acq-z', 120, 'failure', 'issuer_unavailable'));
    await page.locator('tr[data-channel="acq-z"] [data-breaker="open"]').waitFor({ timeout: WAIT_MS });
    expect(await breaker().innerText()).toBe('open');
    expect(browser.problems).toEqual([]);
  });

  it('shows reconnecting and ageing numbers while the service is away, and live data once it is back', async () => {
    const { page } = browser;
    await service.close();
    await page.getByRole('status', { name: 'Connection' }).getByText('Reconnecting…').waitFor({ timeout: WAIT_MS });
    // Past 5 s without an update the age is flagged.
    await page.locator('#age.old').waitFor({ timeout: WAIT_MS });
    expect(await page.getByLabel('Data age').innerText()).toMatch(/updated \d+(\.\d)? s ago/);

    // A service back on the same address: the page reconnects by itself and shows what the new one records.
    const port = Number(new URL(service.url).port);
    service = await startService({ ...defaultConfig, port, logLevel: 'silent' });
    await post(outcomes('wallet-z', 3, 'failure', 'timeout'));
    await page.getByRole('status', { name: 'Connection' }).getByText('Live').waitFor({ timeout: WAIT_MS });
    await row('wallet-z').getByText('n = 3').first().waitFor({ timeout: WAIT_MS });
    await page.locator('#age:not(.old)').waitFor({ timeout: WAIT_MS });
  }, 90_000); // stopping one service and starting another (embedded PostgreSQL too) takes seconds on a busy box
});
