// What the `paypulse` CLI calls for serve, demo and simulate: configuration loading, the URL line, and
// signal handling (SIGINT/SIGTERM → graceful close; a second signal exits at once).
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
  const service = await startService(config, { reloadFrom: options });
  closeOnSignals('paypulse serve', service.close);
  // The reloader logs what it applied or refused; a refused file leaves the service as it was.
  process.on('SIGHUP', () => {
    try {
      service.reload();
    } catch {
      // already logged field by field
    }
  });
  return service;
}

/** `paypulse demo`: like serve, plus simulated traffic; prints the dashboard URL on stdout. */
export async function demoCommand(options: LoadConfigOptions & DemoOptions): Promise<RunningDemo> {
  const { traffic, backfillMinutes, tickMs, clock, schedule, seed, ...configOptions } = options;
  const config = loadConfig(configOptions);
  const demo = await startDemo(config, { traffic, backfillMinutes, tickMs, clock, schedule, seed });
  process.stdout.write(`\nPayPulse demo: open ${demo.url}/ (API docs at ${demo.url}/docs). Ctrl-C stops it.\n\n`);
  closeOnSignals('paypulse demo', demo.close);
  return demo;
}

export interface SimulateOptions {
  target: string;
  token?: string;
  traffic: TrafficSource;
  tickMs?: number;
  /** How often a progress line is printed; default 10 s. */
  progressEveryMs?: number;
  /** Where the lines go; stdout by default. */
  write?: (line: string) => void;
}

const counted = new Intl.NumberFormat('en-US');

/**
 * `paypulse simulate --target URL [--token T]`: sends the simulator's traffic to a running service until
 * stopped, with one line to start, a progress line every 10 s, and one line when the target goes away and
 * when it comes back (the feed backs off meanwhile).
 */
export function simulateCommand(options: SimulateOptions): Feed {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const client = createIngestClient({ target: options.target, token: options.token });
  const everyMs = options.progressEveryMs ?? 10_000;
  write(`paypulse simulate: sending simulated outcomes to ${options.target} every ${options.tickMs ?? 250} ms; Ctrl-C stops it`);
  const feed = startFeed({
    traffic: options.traffic,
    sink: client.send,
    clock: systemClock,
    tickMs: options.tickMs,
    onSinkState: (state) =>
      write(state.up
        ? `paypulse simulate: ${options.target} takes outcomes again after ${Math.round(state.downForMs / 1000)} s`
        : `paypulse simulate: ${state.error instanceof Error ? state.error.message : String(state.error)}; backing off (first retry in ${state.retryInMs / 1000} s, then up to 30 s)`),
  });
  let previous = 0;
  const report = setInterval(() => {
    const rate = Math.round(((feed.sent - previous) * 1000) / everyMs);
    previous = feed.sent;
    const skipped = feed.skipped > 0 ? `, ${counted.format(feed.skipped)} skipped while the target was down` : '';
    write(`paypulse simulate: ${counted.format(feed.sent)} outcomes sent (${counted.format(rate)}/s)${skipped}`);
  }, everyMs);
  report.unref();
  closeOnSignals('paypulse simulate', async () => {
    clearInterval(report);
    await feed.stop();
    write(`paypulse simulate: stopped after ${counted.format(feed.sent)} outcomes`);
  });
  return feed;
}
