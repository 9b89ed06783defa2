// Cache-aside with two tiers (BentoCache's L1 + L2 + bus shape; docs/background.md): a bounded in-process
// L1 in front of the store (L2). Misses run the loader once per process (single flight) and, through a fill
// lock, once across processes; TTLs get random jitter against avalanches; "nothing found" is cached as an
// empty marker for `nullTtlMs` against penetration; invalidation reaches every instance over pub/sub. When
// the store fails, reads go to the loader behind a concurrency limit instead of failing.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors.js';
import type { KitKeys } from '../store/keys/kit.js';
import { invalidField } from './errors.js';
import { BoundedLru } from '../boundedLru.js';
import { ConcurrencyLimit } from './concurrencyLimit.js';
import type { InvalidationSubscription, KitStore } from '../store/ports/kit.js';
import { encodeJson, nameLimits, normaliseName, positiveMs } from './validate.js';
import { backoffMs, monotonicMs, sleep } from './wait.js';

export interface CacheOptions {
  ttlMs: number;
  /** Fraction of ttlMs to spread expiries by, ± (e.g. 2 h ± 10 min ≈ 0.08), so keys filled together do not expire together. Default 0.1. */
  jitter?: number;
  /** How long "the loader found nothing" is remembered, so lookups of absent ids do not all reach the database. Default 60 s. */
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
  /** Update the database first, then invalidate (the other order lets a reader refill the old value). Throws StoreUnavailableError if L2 could not be told. */
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
  /** Loader calls at once while the store is failing (e.g. 10 concurrent database queries). */
  degradedConcurrency: number;
  /** How long the fill lock is held at most, and how long other processes wait for its result. */
  fillLockTtlMs: number;
  fillWaitMs: number;
  retryMinMs: number;
  retryMaxMs: number;
}

/** The key shape `domain:type:id:field` (docs/background.md), e.g. cacheKey('pay', 'merchant', 10086, 'rate'). */
export function cacheKey(domain: string, type: string, id: string | number, field: string): string {
  const parts = { domain, type, id: String(id), field };
  for (const [name, part] of Object.entries(parts)) {
    if (typeof part !== 'string' || part.trim() === '' || part.includes(':')) throw invalidField(name, 'must be non-empty and contain no ":"');
  }
  return `${parts.domain}:${parts.type}:${parts.id}:${parts.field}`;
}

const decode = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function createCache(deps: CacheDeps): KitCache {
  const cache = new TwoTierCache(deps);
  // Plain functions, as callers may pass them around unbound.
  return {
    getOrLoad: (key, loader, options) => cache.getOrLoad(key, loader, options),
    invalidate: (key) => cache.invalidate(key),
    stats: () => cache.stats(),
    close: () => cache.close(),
  };
}

class TwoTierCache implements KitCache {
  private readonly l1: BoundedLru;
  private readonly limit: ConcurrencyLimit;
  private readonly inflight = new Map<string, Promise<string | null>>();
  // Bumped by every invalidation (per key) and bus reset (all keys): a load that started before one must
  // not put its older value into L1 or L2 afterwards.
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  private readonly counters = { l1Hits: 0, l2Hits: 0, loaderCalls: 0, degradedLoads: 0 };
  private subscription: Promise<InvalidationSubscription> | undefined;
  private subscribed: InvalidationSubscription | undefined;

  constructor(private readonly deps: CacheDeps) {
    this.l1 = new BoundedLru(deps.clock, deps.l1MaxEntries);
    this.limit = new ConcurrencyLimit(deps.degradedConcurrency);
  }

  async getOrLoad<T>(key: string, loader: Loader<T>, options: CacheOptions): Promise<T | null> {
    const name = normaliseName(key, 'key', nameLimits.cacheKey);
    if (typeof loader !== 'function') throw invalidField('loader', 'must be a function');
    const resolved = resolveOptions(options);
    if (await this.l1Usable()) {
      const text = this.l1.get(name);
      if (text !== undefined) {
        this.counters.l1Hits++;
        return decode<T>(text);
      }
    }
    let pending = this.inflight.get(name);
    if (!pending) {
      const started = this.fill(name, loader, resolved);
      pending = started;
      this.inflight.set(name, started);
      const settle = () => this.inflight.get(name) === started && this.inflight.delete(name);
      void started.then(settle, settle);
    }
    return decode<T>(await pending); // each caller parses its own copy
  }

  async invalidate(key: string): Promise<void> {
    const name = normaliseName(key, 'key', nameLimits.cacheKey);
    await this.subscribe();
    this.forget(name);
    await this.deps.store.invalidateCache(this.deps.keys.cache(name), this.deps.keys.cacheInvalidations, name);
  }

  stats(): CacheStats {
    return { ...this.counters, l1Entries: this.l1.size, l1Live: this.subscribed?.isLive() ?? false };
  }

  async close(): Promise<void> {
    if (this.subscription) await (await this.subscription).close();
    this.l1.clear();
  }

  private forget(name: string): void {
    this.generations.set(name, (this.generations.get(name) ?? 0) + 1);
    this.l1.delete(name);
    this.inflight.delete(name);
  }

  private subscribe(): Promise<InvalidationSubscription> {
    this.subscription ??= this.deps.store
      .subscribeInvalidations(this.deps.keys.cacheInvalidations, {
        message: (name) => this.forget(name),
        reset: () => {
          this.epoch++;
          this.l1.clear();
          this.inflight.clear();
        },
      })
      .then((sub) => (this.subscribed = sub));
    return this.subscription;
  }

  /** L1 is trusted only while invalidations can reach it. */
  private async l1Usable(): Promise<boolean> {
    return (this.subscribed ?? (await this.subscribe())).isLive();
  }

  private versionOf(name: string): string {
    return `${this.epoch}:${this.generations.get(name) ?? 0}`;
  }

  private async remember(name: string, version: string, text: string | null, ttlMs: number): Promise<void> {
    if (this.versionOf(name) === version && (await this.l1Usable())) this.l1.set(name, text, Math.min(ttlMs, this.deps.l1TtlMs));
  }

  private async load<T>(loader: Loader<T>): Promise<string | null> {
    this.counters.loaderCalls++;
    const value = await loader();
    return value === null || value === undefined ? null : encodeJson(value, 'value');
  }

  private ttlFor(text: string | null, options: Required<CacheOptions>): number {
    if (text === null) return options.nullTtlMs;
    const spread = options.ttlMs * options.jitter * (2 * this.deps.random() - 1);
    return Math.max(1, Math.round(options.ttlMs + spread));
  }

  /** L2, else the loader under the cross-process fill lock; with the store down, the loader behind the limit. */
  private async fill<T>(name: string, loader: Loader<T>, options: Required<CacheOptions>): Promise<string | null> {
    const { store, keys, clock } = this.deps;
    const version = this.versionOf(name);
    const storeKey = keys.cache(name);
    const deadline = monotonicMs() + this.deps.fillWaitMs;
    try {
      for (let tries = 0; ; tries++) {
        const cached = await store.readCache(storeKey);
        if (cached.hit) {
          this.counters.l2Hits++;
          await this.remember(name, version, cached.value, this.ttlFor(cached.value, options));
          return cached.value;
        }
        const token = randomUUID();
        const fillLock = await store.acquireLock(keys.cacheFill(name), token, this.deps.fillLockTtlMs, clock.now());
        // Past the wait budget, load without the lock: a stuck filler must not stall every reader.
        if (fillLock.acquired || monotonicMs() >= deadline) {
          return await this.loadAndStore(name, version, loader, options, fillLock.acquired ? token : undefined);
        }
        await sleep(Math.min(deadline - monotonicMs(), backoffMs(tries, this.deps.retryMinMs, this.deps.retryMaxMs), Math.max(1, fillLock.retryAfterMs)));
      }
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      // With the store down, reads go to the database, behind a limiter so the database survives.
      this.counters.degradedLoads++;
      return this.limit.run(() => this.load(loader));
    }
  }

  /** Loads and writes L2 and L1; `lockToken` when this caller holds the fill lock (released here). */
  private async loadAndStore<T>(name: string, version: string, loader: Loader<T>, options: Required<CacheOptions>, lockToken?: string): Promise<string | null> {
    const { store, keys } = this.deps;
    const storeKey = keys.cache(name);
    try {
      if (lockToken) {
        // Another process may have filled it between our read and our lock: then it loaded, not us.
        const again = await store.readCache(storeKey);
        if (again.hit) {
          await this.remember(name, version, again.value, this.ttlFor(again.value, options));
          return again.value;
        }
      }
      const text = await this.load(loader);
      const ttlMs = this.ttlFor(text, options);
      // Not after an invalidation that arrived while loading: that value may predate the change. A
      // failed write is only a lost cache entry; the loaded value is still the answer.
      if (this.versionOf(name) === version) await store.writeCache(storeKey, text, ttlMs).catch(() => undefined);
      await this.remember(name, version, text, ttlMs);
      return text;
    } finally {
      if (lockToken) await store.releaseLock(keys.cacheFill(name), lockToken).catch(() => false);
    }
  }
}

function resolveOptions(options: CacheOptions): Required<CacheOptions> {
  const jitter = options?.jitter ?? 0.1;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter < 1)) throw invalidField('jitter', `must be a fraction in [0, 1), got ${String(jitter)}`);
  return { ttlMs: positiveMs(options?.ttlMs, 'ttlMs'), jitter, nullTtlMs: positiveMs(options?.nullTtlMs, 'nullTtlMs', 60_000) };
}
