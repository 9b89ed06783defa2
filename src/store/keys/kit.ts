// Every Redis key and pub/sub channel of the kit is built here (key building in one place;
// docs/storage.md). Each kit object gets its own hash tag (`{lock:<resource>}` …), so the few keys one script
// touches (a lock and its fence counter, a recency set's index and buckets) share a Redis Cluster slot.
import { checkNamespace, namespacePrefix, slotPrefix } from './index.js';

export interface LockKeys {
  /** Holds the holder's token; `SET NX PX`. */
  lock: string;
  /** The fencing counter; outlives the lock so fences keep increasing. */
  fence: string;
}

export interface RecencyKeys {
  /** Buckets design: the current bucket index. */
  index: string;
  /** Buckets design: the round-robin bucket hashes, `bucketSlots` of them. */
  buckets: string[];
  /** ZSet design: score = report time, member = id. */
  zset: string;
  /** ZSet design: id → meta. */
  zsetMeta: string;
}

/** Ten bucket slots round-robin, so a retired bucket is never reused while a reader may hold it. */
export const bucketSlots = 10;

export interface KitKeys {
  namespace: string;
  lock(resource: string): LockKeys;
  idempotency(key: string): string;
  cache(key: string): string;
  /** The lock that lets one process fill a missing cache key while the others wait (stampede protection). */
  cacheFill(key: string): LockKeys;
  /** The channel carrying cache invalidations to every instance of this namespace. */
  cacheInvalidations: string;
  recency(name: string): RecencyKeys;
}

/** Names reaching here are already normalised by src/kit/validate.ts; slotPrefix escapes them into their tag. */
export function kitKeys(namespace: string): KitKeys {
  checkNamespace(namespace);
  const prefix = (kind: string, name: string) => slotPrefix(namespace, `${kind}:${name}`);
  return {
    namespace,
    lock: (resource) => {
      const p = prefix('lock', resource);
      return { lock: `${p}lock`, fence: `${p}fence` };
    },
    idempotency: (key) => `${prefix('idem', key)}mark`,
    cache: (key) => `${prefix('cache', key)}value`,
    cacheFill: (key) => {
      const p = prefix('cache', key);
      return { lock: `${p}fill`, fence: `${p}fill:fence` };
    },
    cacheInvalidations: `${namespacePrefix(namespace)}kit:cache:invalidations`,
    recency: (name) => {
      const p = prefix('recency', name);
      return {
        index: `${p}index`,
        buckets: Array.from({ length: bucketSlots }, (_, slot) => `${p}bucket:${slot}`),
        zset: `${p}zset`,
        zsetMeta: `${p}zset:meta`,
      };
    },
  };
}
