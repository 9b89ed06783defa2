// createPulse(): the library's one entry point. With `redis` it runs on Redis (or Redis Cluster);
// without, on the embedded in-memory engines, which are real single-process engines. The success-rate
// engine and the payment safety kit share one connection and one clock.
import { systemClock } from './clock.js';
import { createKit, type Kit } from './kit/index.js';
import type { KitStore } from './store/ports/kit.js';
import { StatsEngine } from './stats/engine.js';
import { createHealthSnapshots, type HealthSnapshots } from './stats/healthSnapshot.js';
import { resolveSettings, type ResolvedSettings } from './stats/settings.js';
import { MemoryKitStore } from './store/memory/kit/index.js';
import { MemoryStatsStore } from './store/memory/statsStore.js';
import { RedisConnection } from './store/redis/connection.js';
import { RedisKitStore } from './store/redis/kit/index.js';
import { RedisStatsStore } from './store/redis/statsStore.js';
import type { StatsStore } from './store/ports/stats.js';
import type { PulseOptions, PulseStats } from './types.js';

export type Pulse = PulseStats &
  Omit<Kit, 'close'> & {
    readonly settings: Readonly<ResolvedSettings>;
    /** Writes outcomes buffered during a store outage now; false while the store still fails. */
    flushBuffer(): Promise<boolean>;
    /** Every configured window of one channel (or dims series) in one store call. */
    ratesOf(channel: string, dims?: Record<string, string>): ReturnType<StatsEngine['ratesOf']>;
    /** The process's one health snapshot; started by whoever needs it live (service, alerts, routing). */
    readonly snapshots: HealthSnapshots;
  };

export interface CreatePulseHooks {
  /** Observes each written batch (size, duration in ms), for metrics. */
  onBatch?: (size: number, ms: number) => void;
}

export async function createPulse(options: PulseOptions = {}, hooks: CreatePulseHooks = {}): Promise<Pulse> {
  const settings = resolveSettings(options);
  const clock = options.clock ?? systemClock;
  let statsStore: StatsStore;
  let kitStore: KitStore;
  let redis: RedisConnection | undefined;
  if (options.redis) {
    redis = await RedisConnection.connect({
      url: options.redis,
      cluster: options.cluster,
      commandTimeoutMs: 1000,
      onError: (err) => options.logger?.warn({ err: err.message }, 'paypulse: redis connection error'),
    });
    statsStore = new RedisStatsStore(redis, settings);
    kitStore = new RedisKitStore(redis);
  } else {
    statsStore = new MemoryStatsStore(settings);
    kitStore = new MemoryKitStore({ clock });
  }
  const engine = new StatsEngine(statsStore, settings, clock, options.logger, hooks.onBatch);
  const kit = createKit({ store: kitStore, clock, namespace: settings.namespace });
  const snapshots = createHealthSnapshots({
    store: statsStore,
    clock,
    windows: settings.windows,
    minSamples: settings.minSamples,
    horizonMs: settings.horizonMs,
    intervalMs: 1000,
    logger: options.logger,
  });
  const closeEngine = engine.close.bind(engine);
  return Object.assign(engine, {
    settings,
    lock: kit.lock,
    idempotency: kit.idempotency,
    cache: kit.cache,
    recency: kit.recency,
    snapshots,
    close: async () => {
      await snapshots.stop();
      await closeEngine();
      await kit.close();
      await kitStore.close();
      await redis?.close();
    },
  }) as Pulse;
}
