// The service's Prometheus metrics, on a registry of its own (several apps in one test process must not
// share counters). Names follow Prometheus conventions: base units (seconds, ratio), counters end in _total;
// `promtool check metrics` runs on the output in the tests.
import client from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { SnapshotJobStats } from '../../history/index.js';
import type { PulseHealth, PulseStats, Rate } from '../../types.js';
import type { EventHub } from '../stream/eventHub.js';
import { readAllRates } from '../stream/ratesTicker.js';
import type { PulseObserver } from './instrumentPulse.js';

/** Channel ids come from callers; past this many distinct labels the rest share `_other` (bounded series). */
const maxChannelLabels = 1_000;

export interface ServiceMetricsSources {
  /** The uninstrumented pulse: a scrape's own reads should not count as traffic. */
  pulse: Pick<PulseStats, 'rates' | 'windows' | 'health'>;
  hub: EventHub;
  history?: () => SnapshotJobStats | undefined;
  /** Reads that joined an identical one in flight instead of calling the store. */
  coalescedReads?: () => number | undefined;
}

export interface ServiceMetrics {
  registry: client.Registry;
  observer: PulseObserver;
  /** createPulse's onBatch hook: one write batch as the store executed it (size, milliseconds). */
  observeStoreBatch(size: number, ms: number): void;
  countStreamDrop(): void;
  /** Adds the per-request HTTP histogram. */
  instrumentHttp(app: FastifyInstance): void;
}

/** A counter mirroring a monotonic number kept elsewhere (pulse.health(), the snapshot job). */
function mirroredCounter(registry: client.Registry, name: string, help: string, read: () => number | undefined) {
  let seen = 0;
  return new client.Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now === undefined) return;
      // A smaller value means the source restarted (a new pulse); counting from it again keeps the counter monotonic.
      const delta = now >= seen ? now - seen : now;
      seen = now;
      if (delta > 0) this.inc(delta);
    },
  });
}

export function createServiceMetrics({ pulse, hub, history, coalescedReads }: ServiceMetricsSources): ServiceMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  // prom-client names these gauges *_total, which `promtool check metrics` rejects (a _total suffix promises a
  // counter); process_* and nodejs_* still cover handles and resources through the remaining defaults.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  const channelLabels = new Set<string>();
  const channelLabel = (channel: string) => {
    if (channelLabels.has(channel)) return channel;
    if (channelLabels.size >= maxChannelLabels) return '_other';
    channelLabels.add(channel);
    return channel;
  };

  // Ingest.
  const received = new client.Counter({
    name: 'paypulse_outcomes_received_total',
    help: 'Outcomes handed to the store, by channel and status (before de-duplication).',
    labelNames: ['channel', 'status'],
    registers: [registry],
  });
  const recorded = new client.Counter({
    name: 'paypulse_outcomes_recorded_total',
    help: 'What the store did with received outcomes: accepted, duplicate, corrected, stale, buffered.',
    labelNames: ['result'],
    registers: [registry],
  });
  const batchSize = new client.Histogram({
    name: 'paypulse_ingest_batch_outcomes',
    help: 'Outcomes per ingest call.',
    buckets: [1, 10, 50, 100, 500, 1_000, 2_500, 5_000, 10_000],
    registers: [registry],
  });
  const ingestSeconds = new client.Histogram({
    name: 'paypulse_ingest_duration_seconds',
    help: 'Time to record one ingest call in the store.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const ingestErrors = new client.Counter({
    name: 'paypulse_ingest_errors_total',
    help: 'Ingest calls that failed (nothing of them recorded).',
    registers: [registry],
  });

  // Store calls as the service sees them (Redis round trip plus script time on Redis).
  const storeSeconds = new client.Histogram({
    name: 'paypulse_store_operation_duration_seconds',
    help: 'Duration of store-backed library calls, by operation.',
    labelNames: ['operation'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
    registers: [registry],
  });
  const storeCallErrors = new client.Counter({
    name: 'paypulse_store_operation_errors_total',
    help: 'Store-backed library calls that threw, by operation.',
    labelNames: ['operation'],
    registers: [registry],
  });

  // From pulse.health(): fail-open must be visible.
  // health() is a synchronous read of in-process counters: each metric reads it itself.
  const readHealth = (): PulseHealth => pulse.health();
  new client.Gauge({
    name: 'paypulse_store_up',
    help: '1 while the store answers, 0 while outcomes are being buffered (fail open).',
    labelNames: ['store', 'strategy'],
    registers: [registry],
    collect() {
      const h = readHealth();
      this.reset();
      this.set({ store: h.store, strategy: h.strategy }, h.storeReachable ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'paypulse_store_buffered_outcomes',
    help: 'Outcomes waiting in the bounded retry buffer for the store to come back.',
    registers: [registry],
    collect() {
      this.set(readHealth().bufferedOutcomes);
    },
  });
  mirroredCounter(registry, 'paypulse_store_dropped_outcomes_total', 'Outcomes dropped because the retry buffer was full.', () => readHealth().droppedOutcomes);
  mirroredCounter(registry, 'paypulse_store_errors_total', 'Store errors seen by the library (timeouts, connection errors, script errors).', () => readHealth().storeErrors);
  mirroredCounter(registry, 'paypulse_store_batches_total', 'Record batches sent to the store.', () => readHealth().batches);
  mirroredCounter(registry, 'paypulse_stale_outcomes_total', 'Outcomes rejected as too old for every window or too far in the future.', () => readHealth().staleOutcomes);
  // The library's own view of each write: one store call (a Lua script on Redis) per batch, after coalescing.
  const storeBatchSeconds = new client.Histogram({
    name: 'paypulse_store_write_duration_seconds',
    help: 'Duration of one record batch at the store (one Redis script call on Redis).',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  const storeBatchSize = new client.Histogram({
    name: 'paypulse_store_write_batch_outcomes',
    help: 'Outcomes per record batch at the store (concurrent ingest calls are merged).',
    buckets: [1, 10, 50, 100, 500, 1_000, 2_500, 5_000],
    registers: [registry],
  });

  // Current rates, read once per scrape and shared by the gauges below.
  // A store outage is exactly when /metrics must still answer: the rate series are then left out and
  // paypulse_rates_readable says why, while the store and buffer metrics carry on.
  let scrape: Promise<Rate[]> | null = null;
  let readable = true;
  const ratesOnce = () => {
    scrape ??= readAllRates(pulse)
      .then(
        (rates) => {
          readable = true;
          return rates;
        },
        () => {
          readable = false;
          return [];
        },
      )
      .finally(() => setImmediate(() => (scrape = null)));
    return scrape;
  };
  new client.Gauge({
    name: 'paypulse_rates_readable',
    help: '1 when this scrape could read the current rates from the store, 0 when the rate series are missing for that reason.',
    registers: [registry],
    async collect() {
      await ratesOnce();
      this.set(readable ? 1 : 0);
    },
  });
  const rateGauge = (name: string, help: string, value: (r: Rate) => number | null, extraLabel?: string) =>
    new client.Gauge({
      name,
      help,
      labelNames: extraLabel ? ['channel', 'window', extraLabel] : ['channel', 'window'],
      registers: [registry],
      async collect() {
        const rates = await ratesOnce();
        this.reset();
        for (const r of rates) {
          const v = value(r);
          // No outcomes means no rate: an absent series, not a misleading 0.
          if (v !== null) this.set({ channel: channelLabel(r.channel), window: r.window }, v);
        }
      },
    });
  rateGauge('paypulse_success_ratio', 'Successes / terminal outcomes in the window (seed 000 §1.1).', (r) => r.rate);
  rateGauge('paypulse_success_ratio_lower_bound', 'Lower end of the 95 % Wilson interval of the success ratio.', (r) => r.low);
  rateGauge('paypulse_success_ratio_upper_bound', 'Upper end of the 95 % Wilson interval of the success ratio.', (r) => r.high);
  rateGauge('paypulse_window_pending_requests', 'Requests sent in the window still waiting for a terminal outcome.', (r) => r.pending);
  rateGauge('paypulse_window_sufficient', '1 when the window holds at least minSamples outcomes.', (r) => (r.sufficient ? 1 : 0));
  new client.Gauge({
    name: 'paypulse_window_outcomes',
    help: 'Terminal outcomes in the window (the sample count), by status.',
    labelNames: ['channel', 'window', 'status'],
    registers: [registry],
    async collect() {
      const rates = await ratesOnce();
      this.reset();
      for (const r of rates) {
        const labels = { channel: channelLabel(r.channel), window: r.window };
        this.set({ ...labels, status: 'success' }, r.success);
        this.set({ ...labels, status: 'failure' }, r.failure);
      }
    },
  });

  mirroredCounter(registry, 'paypulse_coalesced_reads_total', 'Reads answered by joining an identical read already in flight.', () => coalescedReads?.());

  // Stream.
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
  const streamDrops = new client.Counter({
    name: 'paypulse_stream_dropped_clients_total',
    help: 'Stream clients disconnected because they stopped reading.',
    registers: [registry],
  });

  // History.
  mirroredCounter(registry, 'paypulse_history_snapshot_runs_total', 'Snapshot copies into the history store.', () => history?.()?.runs);
  mirroredCounter(registry, 'paypulse_history_snapshot_rows_total', 'Minute rows written or corrected in the history store.', () => history?.()?.rowsWritten);
  mirroredCounter(registry, 'paypulse_history_pruned_rows_total', 'Minute rows deleted past the retention period.', () => history?.()?.rowsPruned);
  mirroredCounter(registry, 'paypulse_history_snapshot_errors_total', 'Snapshot copies that failed.', () => history?.()?.errors);
  new client.Gauge({
    name: 'paypulse_history_last_success_timestamp_seconds',
    help: 'Clock time of the last successful snapshot copy.',
    registers: [registry],
    collect() {
      const at = history?.()?.lastSuccessAt;
      if (at != null) this.set(at / 1000);
    },
  });

  // Label children looked up once: every read and every HTTP request observes one, so hashing the label
  // set each time would be paid thousands of times a second.
  const storeTimers = new Map<string, client.Histogram.Internal<'operation'>>();
  const storeTimer = (operation: string) => {
    let timer = storeTimers.get(operation);
    if (!timer) storeTimers.set(operation, (timer = storeSeconds.labels({ operation })));
    return timer;
  };

  const observer: PulseObserver = {
    onRecord(outcomes, seconds, result) {
      batchSize.observe(outcomes.length);
      ingestSeconds.observe(seconds);
      if (!result) {
        ingestErrors.inc();
        return;
      }
      // Count per (channel, status) locally first: one prom-client call per label pair, not per outcome.
      const counts = new Map<string, number>();
      for (const o of outcomes) {
        const key = `${o.channel}\u0000${o.status}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      for (const [key, n] of counts) {
        const [channel, status] = key.split('\u0000') as [string, string];
        received.inc({ channel: channelLabel(channel), status }, n);
      }
      recorded.inc({ result: 'accepted' }, result.accepted);
      recorded.inc({ result: 'duplicate' }, result.duplicates);
      recorded.inc({ result: 'corrected' }, result.corrected);
      recorded.inc({ result: 'stale' }, result.stale);
      recorded.inc({ result: 'buffered' }, result.buffered);
    },
    onStoreCall(operation, seconds, failed) {
      storeTimer(operation).observe(seconds);
      if (failed) storeCallErrors.inc({ operation });
    },
  };

  const httpSeconds = new client.Histogram({
    name: 'paypulse_http_request_duration_seconds',
    help: 'HTTP request duration by route and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  const httpTimers = new Map<string, client.Histogram.Internal<'method' | 'route' | 'status_code'>>();

  return {
    registry,
    observer,
    observeStoreBatch(size, ms) {
      storeBatchSize.observe(size);
      storeBatchSeconds.observe(ms / 1000);
    },
    countStreamDrop: () => streamDrops.inc(),
    instrumentHttp(app) {
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
    },
  };
}
