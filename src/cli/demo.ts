// `paypulse demo`: the service plus simulated traffic. The last hour is back-filled first (and copied to
// history at once), so the dashboard opens on a full chart instead of an empty one. Then the story runs
// (demoStory.ts): card payments routed between two acquirers, the first failing on a schedule, with alerts
// to the log and to the demo's own receiver, whose notifications the page lists.
import { systemClock, type Clock } from '../clock.js';
import { startFeed, feedRange, type Feed, type TrafficSource } from './feed.js';
import type { ServiceConfig } from '../server/config.js';
import { startService, type RunningService } from '../server/service.js';
import { createDemoReceiver, type DemoReceiver } from './demoReceiver.js';
import { createDemoStory, defaultSchedule, storySink, type DemoStory, type StorySchedule } from './demoStory.js';

export interface DemoOptions {
  /** e.g. createTraffic({ seed }) from src/sim/traffic.ts. */
  traffic: TrafficSource;
  /** Minutes of past traffic recorded before going live. Default 60 (the dashboard's back-fill). */
  backfillMinutes?: number;
  tickMs?: number;
  clock?: Clock;
  /** When the story's incidents come (tests run it fast on virtual time). */
  schedule?: Partial<StorySchedule>;
  seed?: number;
}

export interface RunningDemo extends RunningService {
  feed: Feed;
  story: DemoStory;
  receiver: DemoReceiver;
}

/**
 * Alerts a newcomer sees without writing a config: to the log, to the demo's receiver and on the page, fired
 * by the story's incidents. A config with its own section keeps it (and no receiver is added).
 */
export const demoAlerts = { evaluateEvery: '5s', log: true };

/** The acquirers the story routes between, the failing one first, with their usual success. */
export const demoRouted = ['stripe-card', 'adyen-card'] as const;
const demoSuccess = { 'stripe-card': 0.97, 'adyen-card': 0.965 };
/** adyen-card takes no GBP (the simulator draws none for it): those payments stay on stripe-card through its outage. */
export const demoCurrencies = { 'stripe-card': ['USD', 'EUR', 'GBP'], 'adyen-card': ['USD', 'EUR'] };

/**
 * The breaker judges a 10 s window from 20 calls: once the router has moved the payments away, the failing
 * acquirer's few remaining calls still open it, so the story shows the breaker as well as the share.
 */
export const demoRouting = { breaker: { window: '10s', minSamples: 20 } };

export async function startDemo(config: ServiceConfig, options: DemoOptions): Promise<RunningDemo> {
  const clock = options.clock ?? systemClock;
  const receiver = createDemoReceiver(() => clock.now());
  const ownAlerts = !config.alerts;
  const service = await startService(
    { ...config, ...(ownAlerts ? { alerts: demoAlerts } : {}), ...(config.routing ? {} : { routing: demoRouting }) },
    { clock, routes: (app) => receiver.routes(app), notifications: () => receiver.received },
  );
  const alerts = service.pulse.alerts;
  // The receiver's URL is known once the service listens: added as a reload adds a receiver.
  if (ownAlerts && alerts) {
    alerts.reconfigure({ ...alerts.rules, webhooks: [...alerts.rules.webhooks, { url: `${service.url}${receiver.path}`, secret: receiver.secret, format: 'json', timeoutMs: 2_000, retries: 2 }] });
  }
  try {
    const now = clock.now();
    const story = createDemoStory({
      routed: demoRouted, success: demoSuccess, currencies: demoCurrencies, schedule: { ...defaultSchedule, ...options.schedule }, startMs: now, seed: options.seed ?? 1,
      route: (request) => service.pulse.route(request),
    });
    const record = (outcomes: Parameters<typeof service.pulse.recordMany>[0]) => service.pulse.recordMany(outcomes);
    // The back-filled hour is recorded as the traffic made it: no router decided it.
    const backfilled = await feedRange(options.traffic, record, now - (options.backfillMinutes ?? 60) * 60_000, now);
    await service.snapshots.runOnce();
    service.logger.info({ outcomes: backfilled }, 'demo: last hour back-filled');
    const feed = startFeed({ traffic: options.traffic, sink: storySink(story, record), clock, tickMs: options.tickMs, fromMs: now, logger: service.logger });
    service.logger.info({ dashboard: `${service.url}/` }, 'demo running: open the dashboard');
    return {
      ...service,
      feed,
      story,
      receiver,
      close: async () => {
        await feed.stop();
        await service.close();
      },
    };
  } catch (err) {
    await service.close();
    throw err;
  }
}
