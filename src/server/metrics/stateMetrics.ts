// What a scrape reads from the running pulse: the store's health (fail open must be visible) and the
// current success rates of every channel.
import client from 'prom-client';
import type { PulseHealth, Rate, SuccessRates } from '../../types.js';
import { toRate } from '../../stats/rate.js';
import { mirroredCounter, type ChannelLabel } from './registry.js';

/** A store down in part (a Redis Cluster master): which share of it, and how many channels wait for it. */
function registerPartialOutageMetrics(registry: client.Registry, readHealth: () => PulseHealth): void {
  new client.Gauge({
    name: 'paypulse_redis_unreachable_slot_share',
    help: 'Share (0-1) of the Redis keyspace this instance cannot reach: on a cluster the slots whose master is down; 0 or 1 on one server.',
    registers: [registry],
    collect() {
      const share = readHealth().unreachableSlotShare;
      if (share !== undefined) this.set(share);
    },
  });
  new client.Gauge({
    name: 'paypulse_store_unreachable_channels',
    help: 'Channels whose outcomes wait for their part of the store while the rest of it answers (a cluster master down).',
    registers: [registry],
    collect() {
      this.set(readHealth().unreachableChannels ?? 0);
    },
  });
}

export function registerHealthMetrics(registry: client.Registry, pulse: Pick<SuccessRates, 'health'>): void {
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
  new client.Gauge({
    name: 'paypulse_store_spilled_outcomes',
    help: 'Outcomes waiting in the durable spill journal (data folder) for the store to come back.',
    registers: [registry],
    collect() {
      this.set(readHealth().spilledOutcomes);
    },
  });
  registerPartialOutageMetrics(registry, readHealth);
  new client.Gauge({
    name: 'paypulse_degradation_level',
    help: '0 normal, 1 store failing (record path to the spill, kit on PostgreSQL), 2 failing badly (non-essential work paused).',
    registers: [registry],
    collect() {
      this.set(readHealth().degradationLevel);
    },
  });
  mirroredCounter(registry, 'paypulse_store_dropped_outcomes_total', 'Outcomes dropped because the retry buffer was full.', () => readHealth().droppedOutcomes);
  mirroredCounter(registry, 'paypulse_store_errors_total', 'Store errors seen by the library (timeouts, connection errors, script errors).', () => readHealth().storeErrors);
  mirroredCounter(registry, 'paypulse_store_batches_total', 'Record batches sent to the store.', () => readHealth().batches);
  new client.Gauge({
    name: 'paypulse_known_channels',
    help: 'Distinct channels seen within the dedup horizon, counted towards maxChannels.',
    registers: [registry],
    collect() {
      this.set(readHealth().knownChannels);
    },
  });
  const rejectedSeen = { channels: 0, dimensionValues: 0 };
  new client.Counter({
    name: 'paypulse_limit_rejected_outcomes_total',
    help: 'Outcomes refused (PP_ERR_LIMIT) for naming a new channel past maxChannels or a new dimension value past maxDimensionValues.',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      const h = readHealth();
      const now = { channels: h.rejectedChannelOutcomes, dimensionValues: h.rejectedDimensionOutcomes };
      for (const limit of ['channels', 'dimensionValues'] as const) {
        // A smaller value means a new pulse: count from it again, as mirroredCounter does.
        const delta = now[limit] >= rejectedSeen[limit] ? now[limit] - rejectedSeen[limit] : now[limit];
        rejectedSeen[limit] = now[limit];
        this.inc({ limit }, delta);
      }
    },
  });
  mirroredCounter(registry, 'paypulse_stale_outcomes_total', 'Outcomes rejected as too old for every window or too far in the future.', () => readHealth().staleOutcomes);
}

/**
 * Current rates, read once per scrape and shared by the gauges. A store outage is exactly when /metrics must
 * still answer: the rate series are then left out and paypulse_rates_readable says why, while the store and
 * buffer metrics carry on.
 */
export type RatesSource = () => Promise<Rate[]>;

/** Rates read per window from the pulse: for a pulse without a health snapshot (the service passes its snapshot). */
export function ratesPerWindow(pulse: Pick<SuccessRates, 'rates' | 'windows'>): RatesSource {
  return async () => (await Promise.all(pulse.windows.map((window) => pulse.rates({ window })))).flat();
}

/**
 * Channels past the label limit share the `_other` label: their counts are summed into one rate per window,
 * so `_other` is the aggregate of the overflow, not whichever channel came last.
 */
export function labelledRates(rates: Rate[], channelLabel: ChannelLabel, minSamples: number): Rate[] {
  const byLabel = new Map<string, Rate[]>();
  for (const r of rates) {
    const key = `${channelLabel(r.channel)}\u0000${r.window}`;
    const group = byLabel.get(key);
    if (group) group.push(r);
    else byLabel.set(key, [r]);
  }
  return [...byLabel].map(([key, group]) => {
    const [label, window] = key.split('\u0000') as [string, string];
    if (group.length === 1 && label === group[0]!.channel) return group[0]!;
    const sum = (field: 'success' | 'failure' | 'started' | 'pending') => group.reduce((n, r) => n + r[field], 0);
    const counts = { success: sum('success'), failure: sum('failure'), started: sum('started'), pending: sum('pending') };
    return toRate(label, undefined, window, counts, minSamples, group[0]!.asOf);
  });
}

function ratesOncePerScrape(readAllRates: RatesSource) {
  let scrape: Promise<Rate[]> | null = null;
  const state = { readable: true };
  const ratesOnce = () => {
    scrape ??= readAllRates()
      .then(
        (rates) => {
          state.readable = true;
          return rates;
        },
        () => {
          state.readable = false;
          return [];
        },
      )
      .finally(() => setImmediate(() => (scrape = null)));
    return scrape;
  };
  return { ratesOnce, isReadable: () => state.readable };
}

export function registerRateMetrics(registry: client.Registry, readRates: RatesSource, channelLabel: ChannelLabel, minSamples: number): void {
  const { ratesOnce, isReadable } = ratesOncePerScrape(async () => labelledRates(await readRates(), channelLabel, minSamples));
  new client.Gauge({
    name: 'paypulse_rates_readable',
    help: '1 when this scrape could read the current rates from the store, 0 when the rate series are missing for that reason.',
    registers: [registry],
    async collect() {
      await ratesOnce();
      this.set(isReadable() ? 1 : 0);
    },
  });
  const rateGauge = (name: string, help: string, value: (r: Rate) => number | null) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['channel', 'window'],
      registers: [registry],
      async collect() {
        const rates = await ratesOnce();
        this.reset();
        for (const r of rates) {
          const v = value(r);
          // No outcomes means no rate: an absent series, not a misleading 0.
          if (v !== null) this.set({ channel: r.channel, window: r.window }, v);
        }
      },
    });
  rateGauge('paypulse_success_ratio', 'Successes / terminal outcomes completed in the window.', (r) => r.rate);
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
        const labels = { channel: r.channel, window: r.window };
        this.set({ ...labels, status: 'success' }, r.success);
        this.set({ ...labels, status: 'failure' }, r.failure);
      }
    },
  });
}
