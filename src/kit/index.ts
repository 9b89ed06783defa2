// The payment safety kit (docs/background.md): fenced locks, callback idempotency, a two-tier
// cache and recency sets, all on one narrow store port, so the same code runs on Redis and embedded.
import { systemClock, type Clock } from '../clock.js';
import { kitKeys } from '../store/keys/kit.js';
import { createCache, type KitCache } from './cache.js';
import { createIdempotency, type KitIdempotency } from './idempotency.js';
import { createLock, type KitLock } from './lock.js';
import { createRecency, type RecencyOptions, type RecencySet } from './recency.js';
import type { KitStore } from '../store/ports/kit.js';
import { positiveCount, positiveMs } from './validate.js';

export interface KitCacheSettings {
  /** L1 entries per process. Default 10,000. */
  l1MaxEntries?: number;
  /** Longest life of an L1 entry. Default 60 s. */
  l1TtlMs?: number;
  /** Loader calls at once while the store is down, so the database survives the rebuild. Default 10. */
  degradedConcurrency?: number;
  /** Longest hold of the cross-process fill lock. Default 10 s. */
  fillLockTtlMs?: number;
  /** How long a process waits for another's fill before loading itself. Default 5 s. */
  fillWaitMs?: number;
}

export interface KitOptions {
  /** A MemoryKitStore (embedded) or RedisKitStore; the kit does not own it: close it yourself. */
  store: KitStore;
  /** Default: the system clock. For a MemoryKitStore, pass the clock the store was built with. */
  clock?: Clock;
  /** Key prefix, 1–32 chars of [A-Za-z0-9._-]. Default 'paypulse'. */
  namespace?: string;
  /** For TTL jitter; inject for reproducible tests. Default Math.random. */
  random?: () => number;
  /** Poll spacing of waiting lock, idempotency and cache callers (full-jitter backoff). Default 2–50 ms. */
  retryMinMs?: number;
  retryMaxMs?: number;
  cache?: KitCacheSettings;
}

export interface Kit {
  lock: KitLock;
  idempotency: KitIdempotency;
  cache: KitCache;
  recency(name: string, options: RecencyOptions): RecencySet;
  /** Stops the cache's invalidation subscription; the store stays open. */
  close(): Promise<void>;
}

export function createKit(options: KitOptions): Kit {
  const store = options.store;
  const clock = options.clock ?? systemClock;
  const keys = kitKeys(options.namespace ?? 'paypulse');
  const retryMinMs = positiveMs(options.retryMinMs, 'retryMinMs', 2);
  const retryMaxMs = Math.max(retryMinMs, positiveMs(options.retryMaxMs, 'retryMaxMs', 50));
  const c = options.cache ?? {};
  const cache = createCache({
    store,
    keys,
    clock,
    random: options.random ?? Math.random,
    l1MaxEntries: positiveCount(c.l1MaxEntries, 'cache.l1MaxEntries', 10_000),
    l1TtlMs: positiveMs(c.l1TtlMs, 'cache.l1TtlMs', 60_000),
    degradedConcurrency: positiveCount(c.degradedConcurrency, 'cache.degradedConcurrency', 10),
    fillLockTtlMs: positiveMs(c.fillLockTtlMs, 'cache.fillLockTtlMs', 10_000),
    fillWaitMs: positiveMs(c.fillWaitMs, 'cache.fillWaitMs', 5_000),
    retryMinMs,
    retryMaxMs,
  });
  return {
    lock: createLock({ store, keys, clock, retryMinMs, retryMaxMs }),
    idempotency: createIdempotency({ store, keys, clock, retryMinMs, retryMaxMs }),
    cache,
    recency: createRecency({ store, keys, clock }),
    close: () => cache.close(),
  };
}

export type { KitStore } from '../store/ports/kit.js';
export type { KitLock, LockHandle, LockOptions, LockedWork } from './lock.js';
export type { KitIdempotency, IdempotencyOptions, IdempotencyOutcome } from './idempotency.js';
export type { KitCache, CacheOptions, CacheStats, Loader } from './cache.js';
export type { RecencyDesign, RecencyItem, RecencyOptions, RecencySet, TouchResult } from './recency.js';
export { LockHeldError, LockLostError, IdempotencyMismatchError } from './errors.js';
export { fencedUpdate, fencedUpdateExample, type FencedUpdate } from './fence.js';
export { cacheKey } from './cache.js';
// The engines are not re-exported here: kit logic never imports the Redis client (it goes through
// the storage port, docs/architecture.md). Build a store with `new MemoryKitStore({ clock })` from src/store/memory/kit/index.js or
// `new RedisKitStore(connection)` from src/store/redis/kit/index.js and pass it in.
