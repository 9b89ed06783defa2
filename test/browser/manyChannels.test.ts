// The dashboard at 300 channels, in real headless Chromium against the real service: past the page size it
// shows the worst channels first (the stream's page, smaller than the REST one), finds a healthy one the stream leaves out through its search box, and
// asks for the history of every channel it shows in one request, not one per channel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import type { Outcome } from '../../src/types.js';
import { launchChromium, openDashboard, type Browser } from './chromium.js';

const WAIT_MS = 15_000;
const name = (i: number) => `ch-${String(i).padStart(3, '0')}`;
// Channel i fails i % 50 of its 100 outcomes (rates 100 % … 51 %); one more channel fails 90 of 100.
const failuresOf = (i: number) => i % 50;

let service: RunningService;
let browser: Browser;
const historyRequests: string[] = [];

function outcomesOf(channel: string, failures: number): Outcome[] {
  const now = Date.now();
  return Array.from({ length: 100 }, (_, k) => ({
    channel,
    requestId: `${channel}-${k}`,
    status: k < failures ? ('failure' as const) : ('success' as const),
    at: now - 1_000 - k * 10,
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

const rows = () => browser.page.locator('#rates-body tr');
const row = (channel: string) => browser.page.locator(`#rates-body tr[data-channel="${channel}"]`);

beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', historyIntervalMs: 1_000 });
  const all = Array.from({ length: 300 }, (_, i) => outcomesOf(name(i), failuresOf(i))).flat();
  all.push(...outcomesOf('acq-broken', 90));
  for (let i = 0; i < all.length; i += 10_000) await post(all.slice(i, i + 10_000));
  browser = await launchChromium();
  browser.page.on('request', (request) => {
    if (/\/v1\/(history|channels\/[^/]+\/history)/.test(request.url())) historyRequests.push(request.url());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('dashboard with 300 channels', () => {
  it('shows the worst page first and says the rest are a search away', async () => {
    const { page } = browser;
    await openDashboard(page, service.url, WAIT_MS);
    await row('acq-broken').waitFor({ timeout: WAIT_MS });
    // The first page comes from GET /v1/channels; each stream event replaces it with the stream's page.
    await page.getByLabel('Channels shown').getByText(`the worst ${defaultConfig.streamPageChannels} of 301 channels`).waitFor({ timeout: WAIT_MS });
    expect(await rows().count()).toBe(defaultConfig.streamPageChannels);
    // Worst first: 10 %, then the channels failing 49 of 100, by name.
    const firstNames = await rows().evaluateAll((trs) => trs.slice(0, 3).map((tr) => (tr as HTMLElement).dataset.channel));
    expect(firstNames).toEqual(['acq-broken', name(49), name(99)]);
    expect(await rows().first().innerText()).toContain('Critical');
    // The healthiest (no failure: ch-000, ch-050 …) are past the page.
    expect(await row(name(50)).count()).toBe(0);
    // The header counts all 301 channels, not the rows shown: 21–49 failures of 100 are major, 6–20 warn, 0–5 ok.
    expect((await page.locator('#summary').innerText()).split(/\s+/).join(' ')).toBe('1 Critical 174 Major 90 Warn 36 OK');
  });

  it('fetched the history of every channel shown in one request', async () => {
    // Two more stream events, each of which could have asked for more.
    const points = () => browser.page.evaluate(() => Number(document.querySelector('#chart')?.getAttribute('data-points')));
    const before = await points();
    await expect.poll(points, { timeout: WAIT_MS }).toBeGreaterThan(before + 1);
    expect(historyRequests.filter((url) => url.includes('/v1/channels/'))).toEqual([]);
    expect(historyRequests).toHaveLength(1);
    const channels = new URL(historyRequests[0]!).searchParams.get('channels')!.split(',');
    // The first page (GET /v1/channels, the REST page) holds the stream's: its history was already asked for.
    expect(channels).toHaveLength(defaultConfig.pageChannels);
    expect(channels).toContain('acq-broken');
  });

  it('finds a healthy channel through the search box, and gives the stream page back when cleared', async () => {
    const { page } = browser;
    const search = page.getByRole('searchbox', { name: 'Search channels' });
    await search.fill('CH-050');
    await row(name(50)).waitFor({ timeout: WAIT_MS });
    expect(await row(name(50)).innerText()).toContain('OK');
    expect(await row(name(50)).innerText()).toContain('100 %');
    expect(await rows().count()).toBe(1);
    await page.getByRole('status', { name: 'Search result' }).getByText('1 matching channel').waitFor({ timeout: WAIT_MS });
    // Its history came in one more request, for it alone.
    await expect.poll(() => historyRequests.length, { timeout: WAIT_MS }).toBe(2);
    expect(new URL(historyRequests[1]!).searchParams.get('channels')).toBe(name(50));

    await search.fill('');
    await row('acq-broken').waitFor({ timeout: WAIT_MS });
    await page.waitForFunction((n) => document.querySelectorAll('#rates-body tr').length === n, defaultConfig.streamPageChannels, { timeout: WAIT_MS });
    expect(browser.problems).toEqual([]);
  });

  it('forgets a channel once the hour no longer holds a point of it, so the chart does not grow for hours', async () => {
    // A string, not a function: vitest would rewrite a function's `import()` into its own loader.
    const kept = (await browser.page.evaluate(`(async () => {
      const { RateChart } = await import('/assets/chart.js');
      const container = document.createElement('div');
      document.body.append(container);
      const chart = new RateChart(container, { thresholds: { warn: 0.95, major: 0.8, critical: 0.5 } });
      const t0 = Date.parse('2026-12-01T00:00:00Z');
      chart.live(t0, [{ channel: 'left-the-page', rate: 0.9 }, { channel: 'stays', rate: 0.99 }]);
      const before = [...chart.channels];
      // An hour and more of events that no longer name the first channel.
      for (let s = 1; s <= 7300; s += 1) chart.live(t0 + s * 1000, [{ channel: 'stays', rate: 0.99 }]);
      container.remove();
      return { before, after: chart.channels };
    })()`)) as { before: string[]; after: string[] };
    expect(kept.before).toEqual(['left-the-page', 'stays']);
    expect(kept.after).toEqual(['stays']);
  });
});
