// `paypulse demo`: the service plus simulated traffic. The last hour is back-filled first (and copied to
// history at once), so the dashboard opens on a full chart instead of an empty one.
import { systemClock, type Clock } from '../clock.js';
import { startFeed, feedRange, type Feed, type TrafficSource } from './feed.js';
import type { ServiceConfig } from '../server/config.js';
import { startService, type RunningService } from '../server/service.js';

export interface DemoOptions {
  /** e.g. createTraffic({ seed }) from src/sim/traffic.ts. */
  traffic: TrafficSource;
  /** Minutes of past traffic recorded before going live. Default 60 (the dashboard's back-fill). */
  backfillMinutes?: number;
  tickMs?: number;
  clock?: Clock;
}

export interface RunningDemo extends RunningService {
  feed: Feed;
}

/**
 * Alerts a newcomer sees without writing a config: to the log and on the page, fired by the traffic's scripted
 * incidents (one a channel every 5 minutes, the first a minute in). A config with its own section keeps it.
 */
export const demoAlerts = { evaluateEvery: '5s', log: true };

export async function startDemo(config: ServiceConfig, options: DemoOptions): Promise<RunningDemo> {
  const clock = options.clock ?? systemClock;
  const service = await startService(config.alerts ? config : { ...config, alerts: demoAlerts }, { clock });
  const sink = (outcomes: Parameters<typeof service.pulse.recordMany>[0]) => service.pulse.recordMany(outcomes);
  try {
    const now = clock.now();
    const backfilled = await feedRange(options.traffic, sink, now - (options.backfillMinutes ?? 60) * 60_000, now);
    await service.snapshots.runOnce();
    service.logger.info({ outcomes: backfilled }, 'demo: last hour back-filled');
    const feed = startFeed({ traffic: options.traffic, sink, clock, tickMs: options.tickMs, fromMs: now, logger: service.logger });
    service.logger.info({ dashboard: `${service.url}/` }, 'demo running: open the dashboard');
    return {
      ...service,
      feed,
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
