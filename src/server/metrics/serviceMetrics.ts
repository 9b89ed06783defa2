// The service's Prometheus metrics, on a registry of its own. Names follow Prometheus conventions: base units
// (seconds, ratio), counters end in _total; `promtool check metrics` runs on the output in the tests.
// Built before the pulse, whose observer they are; the parts read at scrape time are attached by watch().
import client from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { SnapshotJobStats } from '../../history/index.js';
import type { PulseObserver } from '../../observer.js';
import type { SuccessRates } from '../../types.js';
import type { EventHub } from '../stream/eventHub.js';
import { registerAlertStateMetrics } from './alertMetrics.js';
import type { Alerts } from '../../alerts/index.js';
import { createPulseMetrics } from './pulseMetrics.js';
import { registerRedisServerMetrics } from './redisServerMetrics.js';
import { registerOperatorStateMetrics } from './operatorStateMetrics.js';
import type { OperatorStateStats } from '../../operatorState/index.js';
import type { RedisServerHealth } from '../../store/redis/serverHealth.js';
import { boundedChannelLabels, createRegistry, mirroredCounter } from './registry.js';
import { ratesPerWindow, registerHealthMetrics, registerRateMetrics, type RatesSource } from './stateMetrics.js';

export interface ServiceMetricsSources {
  pulse: Pick<SuccessRates, 'rates' | 'windows' | 'health'>;
  /** The pulse's alerts, when configured: firing alerts and the paused flag. */
  alerts?: () => Pick<Alerts, 'active' | 'status'> | undefined;
  hub: EventHub;
  history?: () => SnapshotJobStats | undefined;
  /** Reads that joined an identical one in flight instead of calling the store. */
  coalescedReads?: () => number | undefined;
  /** Every channel's rates for the configured windows (the service: its health snapshot); default, read per window. */
  rates?: RatesSource;
  /** For the `_other` aggregate's sufficiency; default 100 (the library's). */
  minSamples?: number;
  /** The Redis server's last INFO sample (pulse.storeServer); absent on the embedded store. */
  storeServer?: () => RedisServerHealth | undefined;
  /** Restores and durable writes of the operator state, when the pulse keeps it (createPulse({ operatorState })). */
  operatorState?: () => OperatorStateStats | undefined;
}

export interface ServiceMetrics {
  registry: client.Registry;
  /** Give it to createPulse: ingest, store calls and store batches. */
  observer: PulseObserver;
  /** Adds the metrics read from the running parts at each scrape; once per registry. */
  watch(sources: ServiceMetricsSources): void;
  countStreamDrop(): void;
  /** A connection closed by a limit (the connection cap, or too many pipelined requests). */
  countRefusedConnection(reason: 'max_connections' | 'pipelining'): void;
  /** Adds the per-request HTTP histogram. */
  instrumentHttp(app: FastifyInstance): void;
}

function registerStreamMetrics(registry: client.Registry, hub: EventHub): void {
  new client.Gauge({
    name: 'paypulse_stream_clients',
    help: 'Open /v1/stream connections.',
    registers: [registry],
    collect() {
      this.set(hub.subscribers);
    },
  });
  new client.Gauge({
    name: 'paypulse_stream_replay_events',
    help: 'Events held for clients reconnecting with Last-Event-ID.',
    registers: [registry],
    collect() {
      this.set(hub.bufferedEvents);
    },
  });
}

function registerHistoryMetrics(registry: client.Registry, history: () => SnapshotJobStats | undefined): void {
  mirroredCounter(registry, 'paypulse_history_snapshot_runs_total', 'Snapshot copies into the history store.', () => history()?.runs);
  mirroredCounter(registry, 'paypulse_history_snapshot_rows_total', 'Minute rows written or corrected in the history store.', () => history()?.rowsWritten);
  mirroredCounter(registry, 'paypulse_history_pruned_rows_total', 'Minute rows deleted past the retention period.', () => history()?.rowsPruned);
  mirroredCounter(registry, 'paypulse_history_snapshot_errors_total', 'Snapshot copies that failed.', () => history()?.errors);
  new client.Gauge({
    name: 'paypulse_history_last_success_timestamp_seconds',
    help: 'Clock time of the last successful snapshot copy.',
    registers: [registry],
    collect() {
      const at = history()?.lastSuccessAt;
      if (at != null) this.set(at / 1000);
    },
  });
}

function httpMetrics(registry: client.Registry): (app: FastifyInstance) => void {
  const httpSeconds = new client.Histogram({
    name: 'paypulse_http_request_duration_seconds',
    help: 'HTTP request duration by route and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // Label children looked up once: every HTTP request observes one.
  const httpTimers = new Map<string, client.Histogram.Internal<'method' | 'route' | 'status_code'>>();
  return (app) => {
    app.addHook('onResponse', (request, reply, done) => {
      // The route pattern, never the raw URL: channel ids in paths must not multiply the series.
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${request.method} ${route} ${reply.statusCode}`;
      let timer = httpTimers.get(key);
      if (!timer) {
        timer = httpSeconds.labels({ method: request.method, route, status_code: String(reply.statusCode) });
        httpTimers.set(key, timer);
      }
      timer.observe(reply.elapsedTime / 1000);
      done();
    });
  };
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = createRegistry();
  const channelLabel = boundedChannelLabels();
  const observer = createPulseMetrics(registry, channelLabel);
  const streamDrops = new client.Counter({
    name: 'paypulse_stream_dropped_clients_total',
    help: 'Stream clients disconnected because they stopped reading.',
    registers: [registry],
  });
  const refusedConnections = new client.Counter({
    name: 'paypulse_http_refused_connections_total',
    help: 'Connections closed by a limit: max_connections (refused on arrival) or pipelining (too many unanswered requests).',
    labelNames: ['reason'],
    registers: [registry],
  });
  let watching = false;
  return {
    registry,
    observer,
    watch({ pulse, hub, history, coalescedReads, alerts, rates, minSamples, storeServer, operatorState }) {
      if (watching) throw new Error('these service metrics already watch a pulse');
      watching = true;
      registerHealthMetrics(registry, pulse);
      registerRateMetrics(registry, rates ?? ratesPerWindow(pulse), channelLabel, minSamples ?? 100);
      mirroredCounter(registry, 'paypulse_coalesced_reads_total', 'Reads answered by joining an identical read already in flight.', () => coalescedReads?.());
      registerStreamMetrics(registry, hub);
      registerHistoryMetrics(registry, () => history?.());
      registerAlertStateMetrics(registry, alerts ?? (() => undefined));
      if (storeServer) registerRedisServerMetrics(registry, storeServer);
      if (operatorState) registerOperatorStateMetrics(registry, operatorState);
    },
    countStreamDrop: () => streamDrops.inc(),
    countRefusedConnection: (reason) => refusedConnections.inc({ reason }),
    instrumentHttp: httpMetrics(registry),
  };
}
