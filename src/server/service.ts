// startService: the running `paypulse serve` — pulse, history store, snapshot job and HTTP app, listening,
// with a graceful close: stop taking requests, drain in-flight ones, copy the last minutes to history,
// flush buffered outcomes to the store (pulse.close()), then close the databases.
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { openHistory, startSnapshotJob, type HistoryStore, type SnapshotJob } from '../history/index.js';
import { createPulse, type Pulse } from '../pulse.js';
import type { PulseOptions } from '../types.js';
import { buildApp } from './app.js';
import { defaultLevels } from './configLevels.js';
import type { ServiceConfig } from './config.js';
import { createServiceMetrics } from './metrics/serviceMetrics.js';
import { createPostgresKitFallback } from '../store/postgres/kitFallback.js';
import { createPostgresOperatorState } from '../history/operatorState.js';
import type { RoutingOptions } from '../routing/types.js';

export interface StartServiceOptions {
  clock?: Clock;
  /** Defaults to pino JSON on stdout at config.logLevel. */
  logger?: Logger;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:8080 (the real port when config.port is 0). */
  url: string;
  app: FastifyInstance;
  /** The pulse the service runs on; it reports to the service's metrics, so outcomes recorded here count. */
  pulse: Pulse;
  history: HistoryStore;
  snapshots: SnapshotJob;
  /** The kit falls back to PostgreSQL while Redis is down (DATABASE_URL set); otherwise it fails closed. */
  kitFallback: boolean;
  logger: Logger;
  /** Graceful shutdown; safe to call more than once. */
  close(): Promise<void>;
}

interface ServiceParts {
  pulse: Pulse;
  history: HistoryStore;
  snapshots: SnapshotJob;
  app: FastifyInstance;
  /** The kit falls back to PostgreSQL while Redis is down (DATABASE_URL set). */
  kitFallback: boolean;
}

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * A PostgreSQL server shared by the fleet carries the kit through a Redis outage (docs/architecture.md,
 * degradation levels): its unique index keeps a duplicate callback to one run across instances. Embedded
 * PGlite is one process's own, so it cannot; the kit then fails closed.
 */
function kitFallbackOf(config: ServiceConfig, history: HistoryStore): PulseOptions['kitFallback'] {
  return config.databaseUrl && history.sql && history.kind === 'postgres' ? createPostgresKitFallback(history.sql) : undefined;
}

/** Opens the parts in order and listens; on a failure, closes what was opened, newest first. */
async function openParts(config: ServiceConfig, clock: Clock, logger: Logger): Promise<ServiceParts> {
  const metrics = createServiceMetrics();
  const { redisUrl: redis, namespace, strategy, windows, minSamples, recordTimeoutMs, maxChannels, maxDimensionValues, dimensions } = config;
  // Per-channel levels reach the alerts through config.alerts (src/server/configLevels.ts).
  const thresholds = defaultLevels(config.thresholds);
  const routing = config.routing as RoutingOptions | undefined;
  const alerts = config.alerts as PulseOptions['alerts'];
  const { dataDir } = config;
  const opened: (() => Promise<unknown>)[] = [];
  try {
    const history = await openHistory({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    opened.push(() => history.close());
    const kitFallback = kitFallbackOf(config, history);
    // Overrides, mutes and firing alerts outlive a Redis restarted empty in the history database (a fleet's
    // PostgreSQL server; embedded PGlite keeps this instance's own).
    const operatorState = history.sql ? { store: createPostgresOperatorState(history.sql) } : undefined;
    const pulse = await createPulse(
      { redis, namespace, strategy, windows, minSamples, recordTimeoutMs, maxChannels, maxDimensionValues, dimensions, dataDir, routing, clock, logger, thresholds, kitFallback, operatorState, ...(alerts ? { alerts } : {}) },
      metrics.observer,
    );
    opened.push(() => pulse.close());
    // The instance that wrote a breaker transition records it: once for the fleet.
    pulse.routing.onTransition((t) => {
      history.breakers.record(t).catch((err: Error) => logger.warn({ err: err.message, channel: t.channel }, 'breaker transition not recorded in history'));
    });
    pulse.startRouting();
    const snapshots = startSnapshotJob({
      pulse,
      history,
      clock,
      intervalMs: config.historyIntervalMs,
      lookbackMinutes: config.historyLookbackMinutes,
      retentionDays: config.historyRetentionDays,
      logger,
    });
    opened.push(() => snapshots.stop());
    const app = await buildApp({ pulse, metrics, history, config, logger, clock, snapshots });
    opened.push(() => app.close());
    if (pulse.alerts) {
      if (history.alerts) pulse.alerts.attachHistory({ alerts: history.alerts, minutes: (channel, range) => history.minutes(channel, range) });
      pulse.alerts.start();
      // The alerts evaluate the process's health snapshot, so it runs live from here on.
      pulse.snapshots.start();
    }
    await app.listen({ port: config.port, host: config.host });
    return { pulse, history, snapshots, app, kitFallback: Boolean(kitFallback) };
  } catch (err) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw err;
  }
}

/**
 * Outcomes buffered during a store outage (fail open) are lost if the process exits with them. Within the
 * shutdown budget, keep offering them to the store, which may be reconnecting; then say what was lost.
 */
async function flushBuffered(pulse: Pulse, deadline: number, logger: Logger): Promise<void> {
  while (pulse.health().bufferedOutcomes > 0 && Date.now() < deadline) {
    if (await pulse.flushBuffer().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  const left = pulse.health().bufferedOutcomes;
  if (left > 0) logger.error({ outcomes: left }, 'store still unreachable at shutdown: buffered outcomes are lost');
}

async function shutDown({ pulse, history, snapshots, app }: ServiceParts, config: ServiceConfig, logger: Logger): Promise<void> {
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
  await flushBuffered(pulse, deadline, logger);
  // After the last request: the final copy sees every outcome that was accepted.
  await snapshots.stop().catch((err: unknown) => logger.error({ err }, 'final history snapshot failed'));
  await pulse.close();
  await history.close();
  logger.info({}, 'paypulse stopped');
}

export async function startService(config: ServiceConfig, options: StartServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.logLevel, base: { service: 'paypulse' } });
  const parts = await openParts(config, clock, logger);
  const address = parts.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = urlOf(config.host, port);
  logger.info(
    { url, store: parts.pulse.health().store, strategy: config.strategy, history: parts.history.kind, kitFallback: parts.kitFallback ? 'postgres' : 'none', auth: Boolean(config.token) },
    'paypulse serving',
  );
  let closing: Promise<void> | null = null;
  return { url, ...parts, logger, close: () => (closing ??= shutDown(parts, config, logger)) };
}
