// Headless Debian Chromium for the browser tests, driven by playwright-core (no downloaded browser build:
// nothing outside the machine is reachable). Each launch gets a fresh profile, removed on close.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.PAYPULSE_CHROMIUM ?? '/usr/bin/chromium';

// Flags that keep Chromium from phoning home (updates, sync, QUIC probes) and from needing a GPU or sandbox
// privileges that a CI container lacks.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  page: Page;
  /** Uncaught exceptions, console errors and failed requests of the page, for the test to assert on. */
  problems: string[];
  close(): Promise<void>;
}

export async function launchChromium(
  options: { colorScheme?: 'dark' | 'light'; timeoutMs?: number } = {},
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'paypulse-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      viewport: { width: 1440, height: 900 },
      colorScheme: options.colorScheme ?? 'dark',
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  // Below the test timeout, so a missing element fails with Playwright's message naming it.
  page.setDefaultTimeout(options.timeoutMs ?? 15_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('requestfailed', (request) => {
    // The event stream is cut on purpose when a test stops the service.
    if (!request.url().includes('/v1/stream')) problems.push(`request failed: ${request.url()}`);
  });
  return {
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the dashboard and waits until its stream is live, so a test starts from the page a user sees. */
export async function openDashboard(page: Page, url: string, timeoutMs = 15_000): Promise<void> {
  await page.goto(url);
  await page.getByRole('status', { name: 'Connection' }).getByText('Live').waitFor({ timeout: timeoutMs });
}
