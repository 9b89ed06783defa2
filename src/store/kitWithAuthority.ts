// The kit's store when a kit database is configured: callback marks and locks go to the PostgreSQL authority
// and nowhere else, at every degradation level (kitAuthority.ts says why one authority is correct); the cache and
// recency sets stay on the engine's store. Those two are not money invariants: a cache lost with Redis is
// reloaded from its source, and a recency set is a hint, so they may live where they are fastest.
import type { KitStore } from './ports/kit.js';
import type { KitAuthority } from './postgres/kitAuthority.js';

export function kitWithAuthority(engine: KitStore, authority: KitAuthority): KitStore {
  return {
    kind: engine.kind,
    acquireLock: (keys, token, ttlMs, nowMs) => authority.acquireLock(keys, token, ttlMs, nowMs),
    releaseLock: (keys, token) => authority.releaseLock(keys, token),
    extendLock: (keys, token, ttlMs) => authority.extendLock(keys, token, ttlMs),
    beginIdempotent: (key, token, fingerprint, processingMs, nowMs) => authority.beginIdempotent(key, token, fingerprint, processingMs, nowMs),
    completeIdempotent: (key, token, fingerprint, result, ttlMs) => authority.completeIdempotent(key, token, fingerprint, result, ttlMs),
    abandonIdempotent: (key, token) => authority.abandonIdempotent(key, token),
    readCache: (key) => engine.readCache(key),
    writeCache: (key, value, ttlMs) => engine.writeCache(key, value, ttlMs),
    invalidateCache: (key, channel, cacheKey) => engine.invalidateCache(key, channel, cacheKey),
    subscribeInvalidations: (channel, handlers) => engine.subscribeInvalidations(channel, handlers),
    touchRecencyBuckets: (keys, entry, capacity, expireMs) => engine.touchRecencyBuckets(keys, entry, capacity, expireMs),
    readRecencyBuckets: (keys) => engine.readRecencyBuckets(keys),
    touchRecencyZset: (keys, entry, max, expireMs) => engine.touchRecencyZset(keys, entry, max, expireMs),
    readRecencyZset: (keys, fromMs, toMs, limit) => engine.readRecencyZset(keys, fromMs, toMs, limit),
    close: () => engine.close(),
  };
}
