// The kit's port in one process: the embedded default (docs/architecture.md), not a test double. Each operation runs
// synchronously inside one call, so it is as atomic as the Lua script it mirrors; expiry follows the
// injected Clock, so tests and the simulator move time instead of sleeping.
import { systemClock, type Clock } from '../../../clock.js';
import type {
  AcquireLockReply,
  BeginIdempotentReply,
  CacheReply,
  InvalidationHandlers,
  InvalidationSubscription,
  KitStore,
  LockKeys,
  RecencyEntry,
  RecencyKeys,
} from '../../ports/kit.js';
import { ExpiringMap } from './expiringMap.js';
import { MemoryRecencyBuckets, MemoryRecencyZset } from './recency.js';

interface Mark {
  state: 'processing' | 'done';
  owner: string;
  fingerprint: string;
  result: string;
}

export interface MemoryKitStoreOptions {
  clock?: Clock;
}

export class MemoryKitStore implements KitStore {
  readonly kind = 'memory' as const;
  private readonly clock: Clock;
  private readonly locks: ExpiringMap<string>;
  private readonly fences: ExpiringMap<number>;
  private readonly marks: ExpiringMap<Mark>;
  private readonly cache: ExpiringMap<string | null>;
  private readonly buckets: MemoryRecencyBuckets;
  private readonly zsets: MemoryRecencyZset;
  /** The in-process stand-in for Redis pub/sub: every kit sharing this store is an "instance". */
  private readonly channels = new Map<string, Set<InvalidationHandlers>>();

  constructor(options: MemoryKitStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.locks = new ExpiringMap(this.clock);
    this.fences = new ExpiringMap(this.clock);
    this.marks = new ExpiringMap(this.clock);
    this.cache = new ExpiringMap(this.clock);
    this.buckets = new MemoryRecencyBuckets(this.clock);
    this.zsets = new MemoryRecencyZset(this.clock);
  }

  async acquireLock(keys: LockKeys, token: string, ttlMs: number, nowMs: number): Promise<AcquireLockReply> {
    if (this.locks.get(keys.lock) !== undefined) return { acquired: false, retryAfterMs: this.locks.ttl(keys.lock) };
    this.locks.set(keys.lock, token, ttlMs);
    const fence = Math.max((this.fences.get(keys.fence) ?? 0) + 1, nowMs * 1000);
    this.fences.set(keys.fence, fence, Math.max(ttlMs, 7 * 86_400_000));
    return { acquired: true, fence };
  }

  async releaseLock(keys: LockKeys, token: string): Promise<boolean> {
    return this.locks.get(keys.lock) === token && this.locks.delete(keys.lock);
  }

  async extendLock(keys: LockKeys, token: string, ttlMs: number): Promise<boolean> {
    return this.locks.get(keys.lock) === token && this.locks.expire(keys.lock, ttlMs);
  }

  async beginIdempotent(key: string, token: string, fingerprint: string, processingMs: number): Promise<BeginIdempotentReply> {
    const mark = this.marks.get(key);
    if (!mark) {
      this.marks.set(key, { state: 'processing', owner: token, fingerprint, result: '' }, processingMs);
      return { state: 'acquired' };
    }
    if (fingerprint !== '' && mark.fingerprint !== '' && mark.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (mark.state === 'done') return { state: 'done', result: mark.result };
    return { state: 'processing', retryAfterMs: this.marks.ttl(key) };
  }

  async completeIdempotent(key: string, token: string, fingerprint: string, result: string, ttlMs: number): Promise<boolean> {
    const mark = this.marks.get(key);
    if (mark && (mark.state === 'done' || mark.owner !== token)) return false;
    this.marks.set(key, { state: 'done', owner: token, fingerprint, result }, ttlMs);
    return true;
  }

  async abandonIdempotent(key: string, token: string): Promise<boolean> {
    const mark = this.marks.get(key);
    return mark?.state === 'processing' && mark.owner === token && this.marks.delete(key);
  }

  async readCache(key: string): Promise<CacheReply> {
    const value = this.cache.get(key);
    return value === undefined ? { hit: false } : { hit: true, value };
  }

  async writeCache(key: string, value: string | null, ttlMs: number): Promise<void> {
    this.cache.set(key, value, ttlMs);
  }

  async invalidateCache(key: string, channel: string, cacheKey: string): Promise<void> {
    this.cache.delete(key);
    // Delivered on a later tick, like a pub/sub message, never inside the invalidating call.
    const listeners = [...(this.channels.get(channel) ?? [])];
    queueMicrotask(() => listeners.forEach((h) => h.message(cacheKey)));
  }

  async subscribeInvalidations(channel: string, handlers: InvalidationHandlers): Promise<InvalidationSubscription> {
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(handlers);
    return { isLive: () => true, close: async () => void set.delete(handlers) };
  }

  async touchRecencyBuckets(keys: RecencyKeys, entry: RecencyEntry, capacity: number, expireMs: number): Promise<void> {
    this.buckets.touch(keys, entry, capacity, expireMs);
  }

  async readRecencyBuckets(keys: RecencyKeys): Promise<{ current: RecencyEntry[]; before: RecencyEntry[] }> {
    return this.buckets.read(keys);
  }

  async touchRecencyZset(keys: RecencyKeys, entry: RecencyEntry, max: number, expireMs: number): Promise<void> {
    this.zsets.touch(keys, entry, max, expireMs);
  }

  async readRecencyZset(keys: RecencyKeys, fromMs: number, toMs: number, limit: number): Promise<RecencyEntry[]> {
    return this.zsets.read(keys, fromMs, toMs, limit);
  }

  async close(): Promise<void> {
    this.channels.clear();
  }
}
