// The Fastify application of `paypulse serve`: API routes, stream, metrics, probes, OpenAPI at /docs and the
// dashboard. It owns no process-level resources (sockets, signal handlers, the snapshot timer): startService
// does, so tests build as many apps as they like and drive them with inject().
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { noAlerts, registerAlertRoutes } from './routes/alerts.js';
import { systemClock, type Clock } from '../clock.js';
import type { HistoryStore, SnapshotJob } from '../history/index.js';
import type { Pulse } from '../pulse.js';
import { requireTokens } from './auth.js';
import type { ServiceConfig } from './config.js';
import { connectionOptions, limitConnections, type ConnectionLimits } from './connectionLimits.js';
import { registerDashboard } from './dashboard.js';
import { acceptGzipBodies } from './gzipBodies.js';
import { installErrorHandlers } from './httpErrors.js';
import { parseJsonBodies } from './jsonBodies.js';
import type { ServiceMetrics } from './metrics/serviceMetrics.js';
import { ReadCoalescer } from './readCoalescer.js';
import { failedRequestLine, requestLogSerializers } from './requestLog.js';
import { configuredRates, createChannelPages } from './routes/channelPages.js';
import { verdictSource } from './rowVerdicts.js';
import { currentSnapshot } from './routes/channels.js';
import { registerChannelRoutes } from './routes/channels.js';
import { registerChannelsHistoryRoute } from './routes/channelsHistory.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerOutcomeRoutes } from './routes/outcomes.js';
import { registerRoutingRoutes } from './routes/routing.js';
import { registerTrafficShareRoutes } from './routes/trafficShares.js';
import { registerTopCodeRoutes } from './routes/topCodes.js';
import { createTopCodes } from './topCodes.js';
import { registerStreamRoute } from './routes/stream.js';
import { registerAdminRoutes } from './routes/admin.js';
import type { ReloadReport } from './reload.js';
import { registerRoutingMetrics } from './metrics/routingMetrics.js';
import { channelParamsSchema, errorResponses, sharedSchemas } from './schemas.js';
import { EventHub } from './stream/eventHub.js';
import { startRatesTicker, type RatesTicker } from './stream/ratesTicker.js';

/** Bodies over 5 MB are refused with 413: the largest batch a client needs is far smaller. */
export const bodyLimitBytes = 5 * 1024 * 1024;

export type AppConfig = Pick<ServiceConfig, 'thresholds' | 'streamIntervalMs' | 'streamReplayEvents' | 'streamReplayMaxBytes' | 'streamOpensPerMinute' | 'maxStreamsPerIp' | 'streamMaxBufferedBytes' | 'streamStallGraceMs' | 'pageChannels' | 'streamPageChannels'> &
  Partial<Pick<ServiceConfig, 'dataDir'>> & ConnectionLimits & { token?: string; metricsToken?: string };

export interface BuildAppOptions {
  pulse: Pulse;
  /** The metrics whose observer the pulse was created with (createPulse(options, metrics.observer)). */
  metrics: ServiceMetrics;
  history: HistoryStore;
  config: AppConfig;
  /** A pino logger; none: silent (tests). */
  logger?: FastifyBaseLogger;
  /** The clock the pulse runs on; times that the service computes (history defaults, stream asOf) use it too. */
  clock?: Clock;
  /** For the history metrics. */
  snapshots?: Pick<SnapshotJob, 'stats'>;
  /** Reads the configuration again (POST /v1/admin/reload); absent: the route is not served. */
  reloadConfig?: () => ReloadReport;
  /** Routes of the caller (the demo's webhook receiver), added before the app is ready. */
  routes?: (app: FastifyInstance) => void;
  /** What the demo's receiver received, for the page's Notifications panel; absent: not the demo. */
  notifications?: () => readonly unknown[];
}

/** What the app adds to Fastify, for startService, the demo and the parts built on the app (alerts publish on `hub`). */
export interface PaypulseContext {
  /** The library object the app serves. */
  pulse: Pulse;
  /** The pulse's recording and reads with identical concurrent reads collapsed: what the routes use. */
  reads: ReadCoalescer;
  hub: EventHub;
  ticker: RatesTicker;
  metrics: ServiceMetrics;
  /** Set by startService when a shutdown begins: /readyz then answers 503. */
  shuttingDown: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    paypulse: PaypulseContext;
  }
}

function createFastify(config: AppConfig, logger: FastifyBaseLogger | undefined): FastifyInstance {
  return Fastify({
    ...connectionOptions(config),
    ...(logger ? { loggerInstance: logger.child({}, { serializers: requestLogSerializers }) } : { logger: false }),
    bodyLimit: bodyLimitBytes,
    // Per-request access logs at hundreds of ingest calls a second would dwarf everything else; errors are
    // still logged, and /metrics carries per-route latency and status counts.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true } },
  });
}

/** What every request passes before its route: errors, body parsing, connection limits, tokens, schemas. */
function installRequestHandling(app: FastifyInstance, config: AppConfig, metrics: ServiceMetrics): void {
  installErrorHandlers(app);
  // The API speaks JSON only; a text/plain body is a client bug better named by 415 than by a parse error.
  app.removeContentTypeParser('text/plain');
  parseJsonBodies(app);
  acceptGzipBodies(app, bodyLimitBytes);
  metrics.instrumentHttp(app);
  limitConnections(app, config, metrics.countRefusedConnection);
  if (config.token || config.metricsToken) requireTokens(app, { token: config.token, metricsToken: config.metricsToken });
  for (const schema of sharedSchemas) app.addSchema(schema);
}

async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'PayPulse',
        version: '0.1.0',
        description: 'Real-time success rates of payment channels. Errors are { error: { code, message, details? } } with PP_ERR_* codes.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    // Shared schemas appear under their $id (Rate, Outcome …) instead of def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // swagger-ui ships its assets in the package: /docs works with no network beyond this machine.
  await app.register(swaggerUi, { routePrefix: '/docs' });
}

/** Breaker changes and alert transitions go to the stream (and the breaker metrics) as they happen. */
function publishLiveEvents(app: FastifyInstance, pulse: Pulse, hub: EventHub, metrics: ServiceMetrics): void {
  const routingMetrics = registerRoutingMetrics(metrics.registry, pulse.routing);
  const stopBreakerEvents = pulse.routing.onBreakerChange((view) => {
    hub.publish('breaker', view);
    routingMetrics.countBreakerChange(view);
  });
  app.addHook('onClose', async () => void stopBreakerEvents());
  if (pulse.alerts) {
    const unsubscribe = pulse.alerts.onTransition((n) => hub.publish('alert', n));
    app.addHook('onClose', async () => unsubscribe());
  }
}

// Client errors at info (a caller's bug, worth seeing, not paging on); server errors at error.
function logFailedRequests(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode >= 400 && !request.routeOptions.config.logsOwnFailures) {
      const line = failedRequestLine(request, reply);
      if (reply.statusCode >= 500) request.log.error(line, 'request failed');
      else request.log.info(line, 'request rejected');
    }
    done();
  });
}

function registerApiRoutes(app: FastifyInstance, options: BuildAppOptions, context: PaypulseContext, pages: ReturnType<typeof createChannelPages>, clock: Clock): void {
  const { pulse, history, config, metrics } = options;
  registerOutcomeRoutes(app, context.reads);
  registerChannelRoutes(app, {
    pulse: context.reads,
    snapshots: pulse.snapshots,
    snapshotIntervalMs: pulse.snapshotIntervalMs,
    history,
    clock,
    thresholds: () => config.thresholds,
    knowsChannel: (channel) => pulse.knowsChannel(channel),
    minSamples: pulse.settings.minSamples,
    pages,
  });
  registerChannelsHistoryRoute(app, { history, clock });
  registerRoutingRoutes(app, pulse.routing);
  registerTopCodeRoutes(app, createTopCodes((channel, query) => context.reads.failures(channel, query), () => pulse.snapshots.latest(), clock), pulse.windows, errorResponses);
  registerTrafficShareRoutes(app, pulse.trafficShares, () => pulse.routing.breakerStates(), clock, errorResponses);
  registerStreamRoute(app, {
    hub: context.hub,
    onDrop: metrics.countStreamDrop,
    maxStreamsPerIp: config.maxStreamsPerIp,
    maxBufferedBytes: config.streamMaxBufferedBytes,
    stallGraceMs: config.streamStallGraceMs,
    replayMaxBytes: config.streamReplayMaxBytes,
    opensPerMinute: config.streamOpensPerMinute,
    now: () => clock.now(),
  });
  registerMetricsRoute(app, metrics.registry);
  if (options.reloadConfig) registerAdminRoutes(app, options.reloadConfig);
  const durable = config.dataDir ? join(config.dataDir, 'spill') : undefined;
  registerHealthRoutes(app, { pulse, snapshots: pulse.snapshots, history, isShuttingDown: () => context.shuttingDown, durable, alerts: () => pulse.alerts?.status() });
  // Without an alerts section the routes still answer (nothing fires), so the dashboard's request is not a 404.
  registerAlertRoutes(app, { alerts: pulse.alerts ?? noAlerts, history: history.alerts, clock, schemas: { channelParams: channelParamsSchema, errorResponses } });
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { pulse, metrics, config, snapshots } = options;
  const clock = options.clock ?? systemClock;
  const app = createFastify(config, options.logger);
  const hub = new EventHub({ maxEvents: config.streamReplayEvents });
  // The pulse reports every store call it really makes; coalescing sits on top, so joined reads cost nothing.
  const reads = new ReadCoalescer(pulse);
  const snapshotRates = async () => {
    const snapshot = await currentSnapshot(pulse.snapshots, clock, pulse.snapshotIntervalMs);
    return [...snapshot.channels.values()].flatMap((health) => Object.values(configuredRates(health, pulse.windows)));
  };
  metrics.watch({
    pulse,
    hub,
    history: () => snapshots?.stats,
    coalescedReads: () => reads.joined,
    rates: snapshotRates,
    minSamples: pulse.settings.minSamples,
    alerts: () => pulse.alerts,
    ...(pulse.storeServer ? { storeServer: pulse.storeServer.latest } : {}),
    ...(pulse.operatorState ? { operatorState: () => pulse.operatorState?.stats } : {}),
  });
  const pages = createChannelPages({
    pageChannels: config.pageChannels, streamPageChannels: config.streamPageChannels, windows: pulse.windows,
    verdicts: () => verdictSource(config.thresholds, pulse.settings.minSamples, pulse.alerts),
  });
  // The one health snapshot feeds the stream and /v1/channels; the service keeps it live (pulse.close stops it).
  const ticker = startRatesTicker({ snapshots: pulse.snapshots, hub, pages });
  pulse.snapshots.start();
  const context: PaypulseContext = { pulse, reads, hub, ticker, metrics, shuttingDown: false };
  app.decorate('paypulse', context);
  app.addHook('onClose', async () => ticker.stop());
  publishLiveEvents(app, pulse, hub, metrics);
  installRequestHandling(app, config, metrics);
  await registerOpenApi(app);
  registerApiRoutes(app, options, context, pages, clock);
  options.routes?.(app);
  // Answered by every service, so the page asks without a 404: `demo: false` keeps its panel hidden.
  app.get('/v1/demo/notifications', { schema: { summary: "Notifications the demo's own webhook receiver received, newest first", response: { 200: { type: 'object', additionalProperties: true } } } },
    async () => ({ demo: Boolean(options.notifications), notifications: options.notifications?.() ?? [] }));
  await registerDashboard(app);
  logFailedRequests(app);
  await app.ready();
  return app;
}
