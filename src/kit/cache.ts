// Cache-aside with two tiers (seed 004 §3.1/§4.2; BentoCache's L1 + L2 + bus shape): a bounded in-process
// L1 in front of the store (L2). Misses run the loader once per process (single flight) and, through a fill
// lock, once across processes; TTLs get random jitter against avalanches; "nothing found" is cached as an
// empty marker for `nullTtlMs` against penetration; invalidation reaches every instance over pub/sub. When
// the store fails, reads go to the loader behind a concurrency limit instead of failing.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors.js';
import type { KitKeys } from '../store/keys/kit.js';
import { invalidField } from './errors.js';
import { BoundedLru, ConcurrencyLimit } from './boundedLru.js';
import type { InvalidationSubscription, KitStore } from '../store/ports/kit.js';
import { encodeJson, nameLimits, normaliseName, positiveMs } from './validate.js';
import { backoffMs, monotonicMs, sleep } from './wait.js';

export interface CacheOptions {
  ttlMs: number;
  /** Fraction of ttlMs to spread expiries by, ± (seed 004: 2 h ± 10 min ≈ 0.08). Default 0.1. */
  jitter?: number;
  /** How long "the loader found nothing" is remembered. Default 60 s (seed 004 §4.2). */
  nullTtlMs?: number;
}

/** null/undefined from the loader means "nothing there"; it is cached as the empty marker. */
export type Loader<T> = () => Promise<T | null | undefined> | T | null | undefined;

export interface CacheStats {
  l1Hits: number;
  l2Hits: number;
  loaderCalls: number;
  /** Loader calls made because the store failed (behind the concurrency limit). */
  degradedLoads: number;
  l1Entries: number;
  /** false while the invalidation bus is down: L1 is bypassed then (a lost message must not serve stale data). */
  l1Live: boolean;
}

export interface KitCache {
  getOrLoad<T>(key: string, loader: Loader<T>, options: CacheOptions): Promise<T | null>;
  /** Update the database first, then invalidate (seed 004 §3.1). Throws StoreUnavailableError if L2 could not be told. */
  invalidate(key: string): Promise<void>;
  stats(): CacheStats;
  close(): Promise<void>;
}

export interface CacheDeps {
  store: KitStore;
  keys: KitKeys;
  clock: Clock;
  random: () => number;
  l1MaxEntries: number;
  /** Upper bound of an L1 entry's life, whatever the L2 ttl: lost bus messages cannot outlive it. */
  l1TtlMs: number;
  /** Loader calls at once while the store is failing (seed 004: e.g. 10 concurrent DB queries). */
  degradedConcurrency: number;
  /** How long the fill lock is held at most, and how long other processes wait for its result. */
  fillLockTtlMs: number;
  fillWaitMs: number;
  retryMinMs: number;
  retryMaxMs: number;
}

/** Seed 004 §3.1's key shape `domain:type:id:field`, e.g. cacheKey('pay', 'merchant', 10086, 'rate'). */
export function cacheKey(domain: string, type: string, id: string | number, field: string): string {
  const parts = { domain, type, id: String(id), field };
  for (const [name, part] of Object.entries(parts)) {
    if (typeof part !== 'string' || part.trim() === '' || part.includes(':')) throw invalidField(name, 'must be non-empty and contain no ":"');
  }
  return `${parts.domain}:${parts.type}:${parts.id}:${parts.field}`;
}

const decode = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function createCache(deps: CacheDeps): KitCache {
  const { store, clock } = deps;
  const l1 = new BoundedLru(clock, deps.l1MaxEntries);
  const limit = new ConcurrencyLimit(deps.degradedConcurrency);
  const inflight = new Map<string, Promise<string | null>>();
  // Bumped by every invalidation (per key) and bus reset (all keys): a load that started before one must
  // not put its older value into L1 or L2 afterwards.
  const generations = new Map<string, number>();
  let epoch = 0;
  const counters = { l1Hits: 0, l2Hits: 0, loaderCalls: 0, degradedLoads: 0 };

  const forget = (name: string) => {
    generations.set(name, (generations.get(name) ?? 0) + 1);
    l1.delete(name);
    inflight.delete(name);
  };
  let subscription: Promise<InvalidationSubscription> | undefined;
  let subscribed: InvalidationSubscription | undefined;
  const subscribe = () =>
    (subscription ??= store
      .subscribeInvalidations(deps.keys.cacheInvalidations, {
        message: forget,
        reset: () => {
          epoch++;
          l1.clear();
          inflight.clear();
        },
      })
      .then((sub) => (subscribed = sub)));
  // L1 is trusted only while invalidations can reach it.
  const l1Usable = async () => (subscribed ?? (await subscribe())).isLive();

  const versionOf = (name: string) => `${epoch}:${generations.get(name) ?? 0}`;

  async function remember(name: string, version: string, text: string | null, ttlMs: number): Promise<void> {
    if (versionOf(name) === version && (await l1Usable())) l1.set(name, text, Math.min(ttlMs, deps.l1TtlMs));
  }

  async function load<T>(loader: Loader<T>): Promise<string | null> {
    counters.loaderCalls++;
    const value = await loader();
    return value === null || value === undefined ? null : encodeJson(value, 'value');
  }

  function ttlFor(text: string | null, options: Required<CacheOptions>): number {
    if (text === null) return options.nullTtlMs;
    const spread = options.ttlMs * options.jitter * (2 * deps.random() - 1);
    return Math.max(1, Math.round(options.ttlMs + spread));
  }

  async function fill<T>(name: string, loader: Loader<T>, options: Required<CacheOptions>): Promise<string | null> {
    const version = versionOf(name);
    const storeKey = deps.keys.cache(name);
    const fillKeys = deps.keys.cacheFill(name);
    const deadline = monotonicMs() + deps.fillWaitMs;
    try {
      for (let tries = 0; ; tries++) {
        const cached = await store.readCache(storeKey);
        if (cached.hit) {
          counters.l2Hits++;
          await remember(name, version, cached.value, ttlFor(cached.value, options));
          return cached.value;
        }
        const token = randomUUID();
        const fillLock = await store.acquireLock(fillKeys, token, deps.fillLockTtlMs, clock.now());
        // Past the wait budget, load without the lock: a stuck filler must not stall every reader.
        if (fillLock.acquired || monotonicMs() >= deadline) {
          try {
            if (fillLock.acquired) {
              // Another process may have filled it between our read and our lock: then it loaded, not us.
              const again = await store.readCache(storeKey);
              if (again.hit) {
                await remember(name, version, again.value, ttlFor(again.value, options));
                return again.value;
              }
            }
            const text = await load(loader);
            const ttlMs = ttlFor(text, options);
            // Not after an invalidation that arrived while loading: that value may predate the change. A
            // failed write is only a lost cache entry; the loaded value is still the answer.
            if (versionOf(name) === version) await store.writeCache(storeKey, text, ttlMs).catch(() => undefined);
            await remember(name, version, text, ttlMs);
            return text;
          } finally {
            if (fillLock.acquired) await store.releaseLock(fillKeys, token).catch(() => false);
          }
        }
        await sleep(Math.min(deadline - monotonicMs(), backoffMs(tries, deps.retryMinMs, deps.retryMaxMs), Math.max(1, fillLock.retryAfterMs)));
      }
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      // Seed 004 §4.2: Redis down → reads go to the database, behind a limiter so the DB survives.
      counters.degradedLoads++;
      return limit.run(() => load(loader));
    }
  }

  async function getOrLoad<T>(key: string, loader: Loader<T>, options: CacheOptions): Promise<T | null> {
    const name = normaliseName(key, 'key', nameLimits.cacheKey);
    if (typeof loader !== 'function') throw invalidField('loader', 'must be a function');
    const jitter = options?.jitter ?? 0.1;
    if (typeof jitter !== 'number' || !(jitter >= 0 && jitter < 1)) throw invalidField('jitter', `must be a fraction in [0, 1), got ${String(jitter)}`);
    const resolved = { ttlMs: positiveMs(options?.ttlMs, 'ttlMs'), jitter, nullTtlMs: positiveMs(options?.nullTtlMs, 'nullTtlMs', 60_000) };
    if (await l1Usable()) {
      const text = l1.get(name);
      if (text !== undefined) {
        counters.l1Hits++;
        return decode<T>(text);
      }
    }
    let pending = inflight.get(name);
    if (!pending) {
      const started = fill(name, loader, resolved);
      pending = started;
      inflight.set(name, started);
      void started.then(
        () => inflight.get(name) === started && inflight.delete(name),
        () => inflight.get(name) === started && inflight.delete(name),
      );
    }
    return decode<T>(await pending); // each caller parses its own copy
  }

  async function invalidate(key: string): Promise<void> {
    const name = normaliseName(key, 'key', nameLimits.cacheKey);
    await subscribe();
    forget(name);
    await store.invalidateCache(deps.keys.cache(name), deps.keys.cacheInvalidations, name);
  }

  return {
    getOrLoad,
    invalidate,
    stats: () => ({ ...counters, l1Entries: l1.size, l1Live: subscribed?.isLive() ?? false }),
    close: async () => {
      if (subscription) await (await subscription).close();
      l1.clear();
    },
  };
}
