// createPulse(): the library's one entry point. With `redis` it runs on Redis (or Redis Cluster);
// without, on the embedded in-memory engine, which is a real single-process engine.
import { systemClock } from './clock.js';
import { StatsEngine } from './stats/engine.js';
import { resolveSettings, type ResolvedSettings } from './stats/settings.js';
import { MemoryStatsStore } from './store/memory/statsStore.js';
import { RedisConnection } from './store/redis/connection.js';
import { RedisStatsStore } from './store/redis/statsStore.js';
import type { StatsStore } from './store/port.js';
import type { PulseOptions, PulseStats } from './types.js';

export type Pulse = PulseStats & {
  readonly settings: Readonly<ResolvedSettings>;
  /** Writes outcomes buffered during a store outage now; false while the store still fails. */
  flushBuffer(): Promise<boolean>;
  /** Every configured window of one channel (or dims series) in one store call. */
  ratesOf(channel: string, dims?: Record<string, string>): ReturnType<StatsEngine['ratesOf']>;
};

export interface CreatePulseHooks {
  /** Observes each written batch (size, duration in ms), for metrics. */
  onBatch?: (size: number, ms: number) => void;
}

export async function createPulse(options: PulseOptions = {}, hooks: CreatePulseHooks = {}): Promise<Pulse> {
  const settings = resolveSettings(options);
  const clock = options.clock ?? systemClock;
  let store: StatsStore;
  if (options.redis) {
    const redis = await RedisConnection.connect({
      url: options.redis,
      cluster: options.cluster,
      commandTimeoutMs: 1000,
      onError: (err) => options.logger?.warn({ err: err.message }, 'paypulse: redis connection error'),
    });
    store = new RedisStatsStore(redis, settings, settings.recordTimeoutMs);
  } else {
    store = new MemoryStatsStore(settings);
  }
  const engine = new StatsEngine(store, settings, clock, options.logger, hooks.onBatch);
  return Object.assign(engine, { settings }) as Pulse;
}
