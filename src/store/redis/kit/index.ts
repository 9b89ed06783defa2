// The kit's port on Redis: each operation is one Lua script (src/store/redis/lua/kit/) or one command.
// Every failure to reach Redis becomes StoreUnavailableError, so the kit can tell "held by someone else"
// (a reply) from "store unavailable" (no reply) — the distinction node-redlock users ask for.
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
import type { RedisArg, RedisConnection, RedisReply } from '../connection.js';
import { loadScript, type LuaScript } from '../scripts.js';
import { InvalidationBus } from './invalidationBus.js';
import { parseBucketFlat } from './replies.js';
import { toStoreError } from '../storeErrors.js';

const scripts = {
  acquireLock: loadScript('kit/acquireLock-2.lua'),
  releaseLock: loadScript('kit/releaseLock-1.lua'),
  extendLock: loadScript('kit/extendLock-1.lua'),
  beginIdempotent: loadScript('kit/beginIdempotent-1.lua'),
  completeIdempotent: loadScript('kit/completeIdempotent-1.lua'),
  abandonIdempotent: loadScript('kit/abandonIdempotent-1.lua'),
  touchRecencyBuckets: loadScript('kit/touchRecencyBuckets-11.lua'),
  readRecencyBuckets: loadScript('kit/readRecencyBuckets-11.lua'),
  touchRecencyZset: loadScript('kit/touchRecencyZset-2.lua'),
  readRecencyZset: loadScript('kit/readRecencyZset-2.lua'),
};

/** The cache's marker for "the loader found nothing" (cached so a miss storm does not reach the
 * loader); values are prefixed so none can clash. */
const emptyMarker = '0';
const valuePrefix = '1';

export interface RedisKitStoreOptions {
  /** How long `subscribeInvalidations` waits for the subscriber before returning a not-yet-live bus. */
  subscribeTimeoutMs?: number;
}

export class RedisKitStore implements KitStore {
  readonly kind: 'redis' | 'redis-cluster';
  private readonly bus: InvalidationBus;

  /** Uses (does not own) `connection`: `close()` only closes the subscriber this store opened. */
  constructor(
    private readonly connection: RedisConnection,
    options: RedisKitStoreOptions = {},
  ) {
    this.kind = connection.isCluster ? 'redis-cluster' : 'redis';
    this.bus = new InvalidationBus(connection.raw, options.subscribeTimeoutMs ?? 2000);
  }

  private async run(script: LuaScript, keys: string[], args: RedisArg[]): Promise<RedisReply> {
    try {
      return await this.connection.runScript(script, keys, args);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  private async command(routingKey: string, args: RedisArg[]): Promise<RedisReply> {
    try {
      return await this.connection.command(routingKey, args);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async acquireLock(keys: LockKeys, token: string, ttlMs: number, nowMs: number): Promise<AcquireLockReply> {
    const fenceTtlMs = Math.max(ttlMs, 7 * 86_400_000); // outlives its locks; the time floor covers expiry
    const [code, value] = (await this.run(scripts.acquireLock, [keys.lock, keys.fence], [token, ttlMs, nowMs, fenceTtlMs])) as [number, string | number];
    return code === 1 ? { acquired: true, fence: Number(value) } : { acquired: false, retryAfterMs: Math.max(0, Number(value)) };
  }

  async releaseLock(keys: LockKeys, token: string): Promise<boolean> {
    return (await this.run(scripts.releaseLock, [keys.lock], [token])) === 1;
  }

  async extendLock(keys: LockKeys, token: string, ttlMs: number): Promise<boolean> {
    return (await this.run(scripts.extendLock, [keys.lock], [token, ttlMs])) === 1;
  }

  async beginIdempotent(key: string, token: string, fingerprint: string, processingMs: number, nowMs: number): Promise<BeginIdempotentReply> {
    const [code, value] = (await this.run(scripts.beginIdempotent, [key], [token, fingerprint, processingMs, nowMs])) as [number, RedisReply];
    if (code === 1) return { state: 'acquired' };
    if (code === 3) return { state: 'done', result: String(value) };
    if (code === -1) return { state: 'mismatch' };
    return { state: 'processing', retryAfterMs: Math.max(0, Number(value)) };
  }

  async completeIdempotent(key: string, token: string, fingerprint: string, result: string, ttlMs: number): Promise<boolean> {
    return (await this.run(scripts.completeIdempotent, [key], [token, fingerprint, result, ttlMs])) === 1;
  }

  async abandonIdempotent(key: string, token: string): Promise<boolean> {
    return (await this.run(scripts.abandonIdempotent, [key], [token])) === 1;
  }

  async readCache(key: string): Promise<CacheReply> {
    const raw = await this.command(key, ['GET', key]);
    if (typeof raw !== 'string') return { hit: false };
    return { hit: true, value: raw === emptyMarker ? null : raw.slice(valuePrefix.length) };
  }

  async writeCache(key: string, value: string | null, ttlMs: number): Promise<void> {
    await this.command(key, ['SET', key, value === null ? emptyMarker : valuePrefix + value, 'PX', ttlMs]);
  }

  async invalidateCache(key: string, channel: string, cacheKey: string): Promise<void> {
    // UNLINK, never DEL (a big value is freed off Redis's main thread).
    await this.command(key, ['UNLINK', key]);
    await this.command(channel, ['PUBLISH', channel, cacheKey]);
  }

  subscribeInvalidations(channel: string, handlers: InvalidationHandlers): Promise<InvalidationSubscription> {
    return this.bus.subscribe(channel, handlers);
  }

  async touchRecencyBuckets(keys: RecencyKeys, entry: RecencyEntry, capacity: number, expireMs: number): Promise<void> {
    await this.run(scripts.touchRecencyBuckets, [keys.index, ...keys.buckets], [entry.id, entry.at, entry.meta, capacity, expireMs]);
  }

  async readRecencyBuckets(keys: RecencyKeys): Promise<{ current: RecencyEntry[]; before: RecencyEntry[] }> {
    const [current, before] = (await this.run(scripts.readRecencyBuckets, [keys.index, ...keys.buckets], [])) as [string[], string[]];
    return { current: parseBucketFlat(current), before: parseBucketFlat(before) };
  }

  async touchRecencyZset(keys: RecencyKeys, entry: RecencyEntry, max: number, expireMs: number): Promise<void> {
    await this.run(scripts.touchRecencyZset, [keys.zset, keys.zsetMeta], [entry.id, entry.at, entry.meta, max, expireMs]);
  }

  async readRecencyZset(keys: RecencyKeys, fromMs: number, toMs: number, limit: number): Promise<RecencyEntry[]> {
    const flat = (await this.run(scripts.readRecencyZset, [keys.zset, keys.zsetMeta], [fromMs, toMs, limit])) as string[];
    const entries: RecencyEntry[] = [];
    for (let i = 0; i < flat.length; i += 3) entries.push({ id: flat[i], at: Number(flat[i + 1]), meta: flat[i + 2] });
    return entries;
  }

  async close(): Promise<void> {
    await this.bus.close();
  }
}
