// The dashboard in real headless Chromium while the service's Redis goes away: the page keeps the last rows
// and shows "Store unreachable since …", then the banner clears once Redis is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { defaultConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { launchChromium, type Browser } from '../browser/chromium.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

const WAIT_MS = 20_000;

let redis: LocalRedis;
let database: TestDatabase;
let service: RunningService;
let browser: Browser;

async function post(outcomes: object[]): Promise<void> {
  const response = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  redis = await startRedis();
  database = await createTestDatabase();
  service = await startService(
    { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: `dashoutage${process.pid}`, databaseUrl: database.url },
    { logger: pino({ level: 'silent' }) },
  );
  browser = await launchChromium({ timeoutMs: WAIT_MS });
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await redis?.stop();
  await database?.drop();
});

describe('dashboard during a store outage', () => {
  it('keeps the last rows under a "store unreachable since" banner, and clears it when Redis returns', async () => {
    const at = Date.now() - 1_000;
    await post(Array.from({ length: 40 }, (_, i) => ({ channel: 'upi-outage', requestId: `r${i}`, status: i < 30 ? 'success' : 'failure', at })));
    const { page } = browser;
    await page.goto(service.url);
    const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'upi-outage', exact: true }) });
    await row.getByText('75.0 %').first().waitFor();
    const banner = page.getByRole('alert', { name: 'Store status' });
    expect(await banner.isHidden()).toBe(true);

    await redis.kill();
    await banner.getByText(/Store unreachable since .*showing the last known values/).waitFor();
    // The rows stay: the last known values, not a blank page.
    expect(await row.innerText()).toContain('75.0 %');

    // A page opened during the outage sees the same, from GET /v1/channels alone.
    const second = await browser.page.context().newPage();
    try {
      await second.goto(service.url);
      await second.getByRole('alert', { name: 'Store status' }).getByText(/Store unreachable since/).waitFor();
      await second.getByRole('button', { name: 'upi-outage', exact: true }).waitFor();
    } finally {
      await second.close();
    }

    await redis.start();
    await banner.waitFor({ state: 'hidden' });
    await post([{ channel: 'upi-outage', requestId: 'after', status: 'success', at: Date.now() - 500 }]);
    await row.getByText('100 %').first().waitFor();
    expect(browser.problems.filter((p) => !p.includes('503'))).toEqual([]);
  });
});
