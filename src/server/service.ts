// startService: the running `paypulse serve` — pulse, history store, snapshot job and HTTP app, listening,
// with a graceful close: stop taking requests, drain in-flight ones, copy the last minutes to history,
// flush buffered outcomes to the store (pulse.close()), then close the databases.
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { openHistory, startSnapshotJob, type HistoryStore, type SnapshotJob } from '../history/index.js';
import { createPulse, type Pulse } from '../pulse.js';
import type { PulseOptions } from '../options.js';
import { buildApp, type BuildAppOptions } from './app.js';
import { defaultLevels } from './configLevels.js';
import type { LoadConfigOptions, ServiceConfig } from './config.js';
import { createConfigReloader, type ConfigReloader, type ReloadReport } from './reload.js';
import { registerReloadMetrics } from './metrics/reloadMetrics.js';
import { createServiceMetrics } from './metrics/serviceMetrics.js';
import { createPostgresOperatorState } from '../history/operatorState.js';
import type { RoutingOptions } from '../routing/types.js';
import { openStreamIngest, type StreamIngest } from '../ingest/stream/streamIngest.js';
import { registerIngestStreamMetrics } from './metrics/ingestStreamMetrics.js';

export interface StartServiceOptions {
  clock?: Clock;
  /** Defaults to pino JSON on stdout at config.logLevel. */
  logger?: Logger;
  /** How `config` was loaded, so SIGHUP and POST /v1/admin/reload can read it again (`paypulse serve` passes it). */
  reloadFrom?: LoadConfigOptions;
  /** Routes of the caller, served beside the service's own (the demo's webhook receiver). */
  routes?: BuildAppOptions['routes'];
  notifications?: BuildAppOptions['notifications'];
}

export interface RunningService {
  /** e.g. http://127.0.0.1:8080 (the real port when config.port is 0). */
  url: string;
  app: FastifyInstance;
  /** The pulse the service runs on; it reports to the service's metrics, so outcomes recorded here count. */
  pulse: Pulse;
  history: HistoryStore;
  snapshots: SnapshotJob;
  /** PostgreSQL is the kit's authority for callback marks and locks (DATABASE_URL set); otherwise Redis, failing closed. */
  kitDatabase: boolean;
  logger: Logger;
  /** The outcome stream consumer, when the config has a `stream` section. */
  streamIngest?: StreamIngest;
  /** Reads the configuration again and applies what can change while serving; throws ConfigError, changing nothing. */
  reload(): ReloadReport;
  /** Graceful shutdown; safe to call more than once. */
  close(): Promise<void>;
}

interface ServiceParts {
  pulse: Pulse;
  history: HistoryStore;
  snapshots: SnapshotJob;
  app: FastifyInstance;
  /** PostgreSQL is the kit's authority for callback marks and locks (DATABASE_URL set). */
  kitDatabase: boolean;
  /** The outcome stream consumer, when the config has a `stream` section. */
  streamIngest?: StreamIngest;
  reloader: ConfigReloader;
}

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * A PostgreSQL server shared by the fleet is the kit's one authority for callback marks and locks
 * (docs/decisions/010-kit-authority.md), so no Redis stall or restart can run a handler twice. Embedded PGlite is
 * one process's own and cannot be shared by instances; the kit then keeps them in Redis and fails closed.
 */
function kitDatabaseOf(config: ServiceConfig, history: HistoryStore): PulseOptions['kitDatabase'] {
  return config.databaseUrl && history.sql && history.kind === 'postgres' ? history.sql : undefined;
}

/** Opens the parts in order and listens; on a failure, closes what was opened, newest first. */
async function openParts(config: ServiceConfig, clock: Clock, logger: Logger, reloadFrom: LoadConfigOptions | undefined, extra: Pick<BuildAppOptions, 'routes' | 'notifications'> = {}): Promise<ServiceParts> {
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
    const kitDatabase = kitDatabaseOf(config, history);
    // Overrides, mutes and firing alerts outlive a Redis restarted empty in the history database (a fleet's
    // PostgreSQL server; embedded PGlite keeps this instance's own).
    const operatorState = history.sql ? { store: createPostgresOperatorState(history.sql) } : undefined;
    const pulse = await createPulse(
      { redis, namespace, strategy, windows, minSamples, recordTimeoutMs, maxChannels, maxDimensionValues, dimensions, dataDir, routing, clock, logger, thresholds, kitDatabase, operatorState, ...(alerts ? { alerts } : {}) },
      metrics.observer,
    );
    opened.push(() => pulse.close());
    // Attached before the first snapshot a second from now, so the first transition is kept in history too.
    if (pulse.alerts && history.alerts) pulse.alerts.attachHistory({ alerts: history.alerts, minutes: (channel, range) => history.minutes(channel, range) });
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
    const reloader = createConfigReloader({ config, source: reloadFrom, pulse, logger, onResult: registerReloadMetrics(metrics.registry) });
    const app = await buildApp({ pulse, metrics, history, config, logger, clock, snapshots, reloadConfig: () => reloader.reload(), ...extra });
    opened.push(() => app.close());
    await app.listen({ port: config.port, host: config.host });
    const streamIngest = config.stream && redis ? await openStreamIngest({ redisUrl: redis, namespace, settings: config.stream, recorder: pulse, dataDir, logger }) : undefined;
    if (streamIngest) {
      opened.push(() => streamIngest.close());
      registerIngestStreamMetrics(metrics.registry, () => streamIngest.consumer.stats());
    }
    return { pulse, history, snapshots, app, kitDatabase: Boolean(kitDatabase), streamIngest, reloader };
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

async function shutDown({ pulse, history, snapshots, app, streamIngest }: ServiceParts, config: ServiceConfig, logger: Logger): Promise<void> {
  const deadline = Date.now() + config.shutdownTimeoutMs;
  // The batch in hand is recorded and acknowledged; what is unread stays in the stream for the fleet.
  await streamIngest?.close();
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
  // A copy: reloads update it in place, and the caller's object stays what it passed.
  const live: ServiceConfig = { ...config };
  const parts = await openParts(live, clock, logger, options.reloadFrom, options);
  const address = parts.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = urlOf(config.host, port);
  // Links in notifications lead to this service's own dashboard unless the config names another (a proxy's).
  if (!(config.alerts as { dashboardUrl?: unknown } | undefined)?.dashboardUrl) parts.pulse.alerts?.linkDashboard(`${url}/`);
  logger.info(
    { url, store: parts.pulse.health().store, strategy: config.strategy, history: parts.history.kind, kitAuthority: parts.kitDatabase ? 'postgres' : 'redis', auth: Boolean(config.token) },
    'paypulse serving',
  );
  let closing: Promise<void> | null = null;
  return { url, ...parts, logger, reload: () => parts.reloader.reload(), close: () => (closing ??= shutDown(parts, live, logger)) };
}
