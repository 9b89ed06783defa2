// startService: the running `paypulse serve` — pulse, history store, snapshot job and HTTP app, listening,
// with a graceful close: stop taking requests, drain in-flight ones, copy the last minutes to history,
// flush buffered outcomes to the store (pulse.close()), then close the databases.
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { openHistory, startSnapshotJob, type HistoryStore, type SnapshotJob } from '../history/index.js';
import { createPulse, type Pulse } from '../pulse.js';
import { buildApp } from './app.js';
import type { ServiceConfig } from './config.js';

export interface StartServiceOptions {
  clock?: Clock;
  /** Defaults to pino JSON on stdout at config.logLevel. */
  logger?: Logger;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:8080 (the real port when config.port is 0). */
  url: string;
  app: FastifyInstance;
  /** The instrumented pulse: record through it (the demo does) so /metrics counts the outcomes. */
  pulse: Pulse;
  history: HistoryStore;
  snapshots: SnapshotJob;
  logger: Logger;
  /** Graceful shutdown; safe to call more than once. */
  close(): Promise<void>;
}

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

export async function startService(config: ServiceConfig, options: StartServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.logLevel, base: { service: 'paypulse' } });

  // The app (and its metrics) exists only after the pulse; the hook forwards once it does.
  let onBatch: ((size: number, ms: number) => void) | undefined;
  const rawPulse = await createPulse({
    redis: config.redisUrl,
    namespace: config.namespace,
    strategy: config.strategy,
    windows: config.windows,
    minSamples: config.minSamples,
    recordTimeoutMs: config.recordTimeoutMs,
    clock,
    logger,
  }, { onBatch: (size, ms) => onBatch?.(size, ms) });
  const cleanup: (() => Promise<unknown>)[] = [() => rawPulse.close()];
  const undo = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };

  let history: HistoryStore;
  let snapshots: SnapshotJob;
  let app: FastifyInstance;
  try {
    history = await openHistory({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    cleanup.push(() => history.close());
    snapshots = startSnapshotJob({
      pulse: rawPulse,
      history,
      clock,
      intervalMs: config.historyIntervalMs,
      lookbackMinutes: config.historyLookbackMinutes,
      retentionDays: config.historyRetentionDays,
      logger,
    });
    cleanup.push(() => snapshots.stop());
    app = await buildApp({ pulse: rawPulse, history, config, logger, clock, snapshots });
    onBatch = app.paypulse.metrics.observeStoreBatch;
    cleanup.push(() => app.close());
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await undo();
    throw err;
  }

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = urlOf(config.host, port);
  logger.info(
    { url, store: rawPulse.health().store, strategy: config.strategy, history: history.kind, auth: Boolean(config.token) },
    'paypulse serving',
  );

  /**
   * Outcomes buffered during a store outage (fail open) are lost if the process exits with them. Within the
   * shutdown budget, keep offering them to the store, which may be reconnecting; then say what was lost.
   */
  async function flushBuffered(deadline: number): Promise<void> {
    while (rawPulse.health().bufferedOutcomes > 0 && Date.now() < deadline) {
      if (await rawPulse.flushBuffer().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    const left = rawPulse.health().bufferedOutcomes;
    if (left > 0) logger.error({ outcomes: left }, 'store still unreachable at shutdown: buffered outcomes are lost');
  }

  let closing: Promise<void> | null = null;
  async function shutDown(): Promise<void> {
    const deadline = Date.now() + config.shutdownTimeoutMs;
    app.paypulse.shuttingDown = true;
    logger.info({}, 'paypulse shutting down: draining requests');
    // app.close() waits for in-flight requests; a client holding a request open past the timeout is cut.
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'requests still open after the shutdown timeout; closing their sockets');
      app.server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    try {
      await app.close();
    } finally {
      clearTimeout(timer);
    }
    await flushBuffered(deadline);
    // After the last request: the final copy sees every outcome that was accepted.
    await snapshots.stop().catch((err: unknown) => logger.error({ err }, 'final history snapshot failed'));
    await rawPulse.close();
    await history.close();
    logger.info({}, 'paypulse stopped');
  }

  return {
    url,
    app,
    pulse: app.paypulse.pulse as Pulse,
    history,
    snapshots,
    logger,
    close: () => (closing ??= shutDown()),
  };
}
