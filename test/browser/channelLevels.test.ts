// Settings of the config file reach the running service: a channel's own thresholds grade its row on the
// dashboard (real Chromium), and configured dimension sets answer `dims=` reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import { launchChromium, type Browser } from './chromium.js';

let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  service = await startService({
    ...defaultConfig,
    port: 0,
    logLevel: 'silent',
    minSamples: 10,
    dimensions: [['method']],
    // A wallet whose normal is lower: 75 % is fine for it, major for every other channel.
    thresholds: { ...defaultConfig.thresholds, channels: { 'wallet-low': { warn: 0.7, major: 0.5, critical: 0.3 } } },
  });
  const at = Date.now() - 1_000;
  const outcomes = ['wallet-low', 'card-std'].flatMap((channel) =>
    Array.from({ length: 40 }, (_, i) => ({ channel, requestId: `${channel}-${i}`, status: i < 30 ? 'success' : 'failure', at, dims: { method: i % 2 ? 'card' : 'upi' } })),
  );
  const response = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
  expect(response.status).toBe(200);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('configured levels and dimensions', () => {
  it("grades a channel by its own thresholds, others by the defaults", async () => {
    const { page } = browser;
    await page.goto(service.url);
    const row = (channel: string) => page.getByRole('row').filter({ has: page.getByRole('button', { name: channel, exact: true }) });
    await row('card-std').getByText('Major').waitFor();
    await row('wallet-low').getByText('OK').waitFor();
    expect(await row('wallet-low').innerText()).toContain('75.0 %');
    const list = await (await fetch(`${service.url}/v1/channels`)).json();
    expect(list.thresholds.channels).toEqual({ 'wallet-low': { warn: 0.7, major: 0.5, critical: 0.3 } });
  });

  it('answers dims= reads for a configured dimension set', async () => {
    const rate = await (await fetch(`${service.url}/v1/channels/card-std/rate?window=1m&dims=method:card`)).json();
    // Odd indices are card: 15 of the 30 successes (1, 3 … 29) and all 10 failures at 31, 33 … 39 → 5.
    expect(rate).toMatchObject({ dims: { method: 'card' }, total: 20, success: 15, failure: 5 });
  });
});
