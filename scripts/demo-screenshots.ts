// Screenshots of the demo during an incident, for the docs: `npx tsx scripts/demo-screenshots.ts`. Starts the
// demo on a free port with its incident a few seconds in, opens the dashboard in headless Chromium, and saves
// docs/images/demo-incident.png once the alert has escalated and the router has moved the payments away, then
// docs/images/demo-resolved.png once no alert fires any more. Not a test: it rewrites tracked files on purpose.
import { fileURLToPath } from 'node:url';
import { startDemo } from '../src/cli/demo.js';
import { defaultSchedule } from '../src/cli/demoStory.js';
import { defaultConfig } from '../src/server/config.js';
import { createTraffic } from '../src/sim/traffic.js';
import { launchChromium, openDashboard } from '../test/browser/chromium.js';

const image = (name: string) => fileURLToPath(new URL(`../docs/images/${name}`, import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`demo-screenshots: gave up waiting for ${what}`);
    await sleep(1_000);
  }
}

const demo = await startDemo({ ...defaultConfig, port: 0, logLevel: 'warn' }, {
  // A seed the story test runs (test/cli/demo.test.ts), the incident as long as `npm start` tells it, sooner.
  traffic: createTraffic({ seed: 1, incidentEveryMs: 0 }),
  seed: 1,
  schedule: { ...defaultSchedule, firstAfterMs: 10_000, everyMs: 3_600_000 },
});
const browser = await launchChromium({ timeoutMs: 60_000 });
try {
  const { page } = browser;
  await page.setViewportSize({ width: 1440, height: 1200 });
  await openDashboard(page, demo.url, 60_000);
  const received = (transition: string) => demo.receiver.received.some((n) => n.transition === transition);
  await until('the alert to escalate with the payments routed away', () => received('escalated') && (demo.pulse.alerts?.active() ?? []).some((a) => a.routing?.drained), 180_000);
  // The routing panel re-reads every 10 s and the Notifications panel every 5 s: both show the incident then.
  await sleep(11_000);
  await page.screenshot({ path: image('demo-incident.png'), fullPage: true });
  console.log(`saved ${image('demo-incident.png')}`);
  await until('every alert to resolve', () => received('resolved') && (demo.pulse.alerts?.active() ?? []).length === 0, 300_000);
  await sleep(11_000);
  await page.screenshot({ path: image('demo-resolved.png'), fullPage: true });
  console.log(`saved ${image('demo-resolved.png')}`);
} finally {
  await browser.close();
  await demo.close();
}
