// What the `paypulse` CLI calls for serve, demo and simulate: configuration loading, the URL line, and
// signal handling (SIGINT/SIGTERM → graceful close; a second signal exits at once).
import { pino } from 'pino';
import { loadConfig, type LoadConfigOptions } from '../server/config.js';
import { startDemo, type DemoOptions, type RunningDemo } from './demo.js';
import { startFeed, type Feed, type TrafficSource } from './feed.js';
import { createIngestClient } from './ingestClient.js';
import { startService, type RunningService } from '../server/service.js';
import { systemClock } from '../clock.js';

function closeOnSignals(name: string, close: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${name}: second ${signal}, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${name}: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * `paypulse serve [--config file] [--port n] [--host h]`. Throws ConfigError (its message has one line per
 * bad field) before anything starts; the CLI prints it and exits 1.
 */
export async function serveCommand(options: LoadConfigOptions = {}): Promise<RunningService> {
  const config = loadConfig(options);
  const service = await startService(config);
  closeOnSignals('paypulse serve', service.close);
  return service;
}

/** `paypulse demo`: like serve, plus simulated traffic; prints the dashboard URL on stdout. */
export async function demoCommand(options: LoadConfigOptions & DemoOptions): Promise<RunningDemo> {
  const { traffic, backfillMinutes, tickMs, clock, ...configOptions } = options;
  const config = loadConfig(configOptions);
  const demo = await startDemo(config, { traffic, backfillMinutes, tickMs, clock });
  process.stdout.write(`\nPayPulse demo: open ${demo.url}/ (API docs at ${demo.url}/docs). Ctrl-C stops it.\n\n`);
  closeOnSignals('paypulse demo', demo.close);
  return demo;
}

/** `paypulse simulate --target URL [--token T]`: sends the simulator's traffic to a running service until stopped. */
export function simulateCommand(options: { target: string; token?: string; traffic: TrafficSource; tickMs?: number }): Feed {
  const client = createIngestClient({ target: options.target, token: options.token });
  const logger = pino({ level: 'info', base: { service: 'paypulse-simulate' } });
  const feed = startFeed({ traffic: options.traffic, sink: client.send, clock: systemClock, tickMs: options.tickMs, logger });
  const report = setInterval(() => logger.info({ sent: feed.sent, failedBatches: feed.failedBatches }, 'simulate: progress'), 10_000);
  report.unref();
  closeOnSignals('paypulse simulate', async () => {
    clearInterval(report);
    await feed.stop();
    logger.info({ sent: feed.sent, failedBatches: feed.failedBatches }, 'simulate: stopped');
  });
  return feed;
}
