// The kit's storage port: a handful of atomic operations named after what they do (docs/architecture.md,
// "the storage ports"). The Redis engine runs each as one Lua script or one command; the memory engine as one
// synchronous function, which is atomic in a single process. Keys come from src/store/keys/kit.ts, so both
// engines agree on names and the kit logic never builds a key itself.
import type { LockKeys, RecencyKeys } from '../keys/kit.js';

export type { LockKeys, RecencyKeys } from '../keys/kit.js';

export type AcquireLockReply = { acquired: true; fence: number } | { acquired: false; retryAfterMs: number };

/** What `beginIdempotent` found. `mismatch` carries nothing: the stored request is not the caller's business. */
export type BeginIdempotentReply =
  | { state: 'acquired' }
  | { state: 'processing'; retryAfterMs: number }
  | { state: 'done'; result: string }
  | { state: 'mismatch' };

/** A cache value as stored: JSON text, or `null` for the empty marker (a database miss is cached ~60 s). */
export type CacheReply = { hit: true; value: string | null } | { hit: false };

/** One recency entry as stored: `meta` is JSON text or ''. */
export interface RecencyEntry {
  id: string;
  at: number;
  meta: string;
}

export interface InvalidationHandlers {
  /** A key was invalidated by some instance (this one included). */
  message(key: string): void;
  /** Messages may have been missed (the subscriber reconnected): drop everything held locally. */
  reset(): void;
}

export interface InvalidationSubscription {
  /** false while the subscriber is disconnected: a local tier must not be trusted then. */
  isLive(): boolean;
  close(): Promise<void>;
}

export interface KitStore {
  readonly kind: 'redis' | 'redis-cluster' | 'memory';

  // Locks. The fence is max(previous + 1, nowMs × 1000): strictly increasing while the
  // counter lives, and still above every earlier fence if the counter is lost (Redis restart, expiry).
  // The PostgreSQL authority (postgres/kitAuthority.ts) ignores nowMs and draws from a sequence started above those.
  acquireLock(keys: LockKeys, token: string, ttlMs: number, nowMs: number): Promise<AcquireLockReply>;
  /** Compare-and-delete: false when the lock is no longer `token`'s. */
  releaseLock(keys: LockKeys, token: string): Promise<boolean>;
  /** Compare-and-expire: false when the lock is no longer `token`'s (never revives a lost lock). */
  extendLock(keys: LockKeys, token: string, ttlMs: number): Promise<boolean>;

  // Callback idempotency. `fingerprint` '' means "none given".
  beginIdempotent(key: string, token: string, fingerprint: string, processingMs: number, nowMs: number): Promise<BeginIdempotentReply>;
  /** Stores `done` unless another owner holds the mark or a result is already stored; false then. */
  completeIdempotent(key: string, token: string, fingerprint: string, result: string, ttlMs: number): Promise<boolean>;
  /** Deletes the mark if it is still `token`'s processing mark, so a retry can run. */
  abandonIdempotent(key: string, token: string): Promise<boolean>;

  // Cache.
  readCache(key: string): Promise<CacheReply>;
  writeCache(key: string, value: string | null, ttlMs: number): Promise<void>;
  /** Deletes the value and tells every subscribed instance, this one included. */
  invalidateCache(key: string, channel: string, cacheKey: string): Promise<void>;
  subscribeInvalidations(channel: string, handlers: InvalidationHandlers): Promise<InvalidationSubscription>;

  // Recency sets. Both designs keep, per id, the newest `at`; an older report never overwrites.
  /** Buckets design: write into Current, rotating (Current→Before, UNLINK the retired) when it holds `capacity`. */
  touchRecencyBuckets(keys: RecencyKeys, entry: RecencyEntry, capacity: number, expireMs: number): Promise<void>;
  /** Buckets design: the entries of Current and Before, unsorted; the caller merges and sorts, sparing Redis the sort. */
  readRecencyBuckets(keys: RecencyKeys): Promise<{ current: RecencyEntry[]; before: RecencyEntry[] }>;
  /** ZSet design: ZADD, then trim to the newest `max`. */
  touchRecencyZset(keys: RecencyKeys, entry: RecencyEntry, max: number, expireMs: number): Promise<void>;
  /** ZSet design: entries with from ≤ at ≤ to, newest first (ties: larger id first), at most `limit`. */
  readRecencyZset(keys: RecencyKeys, fromMs: number, toMs: number, limit: number): Promise<RecencyEntry[]>;

  close(): Promise<void>;
}
