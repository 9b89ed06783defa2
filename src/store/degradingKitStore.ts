// The kit's store while Redis may be degraded: every call goes to the primary store (Redis) and feeds the
// process's degradation switch; from level 1 new locks and callback marks are taken in PostgreSQL instead
// (when one is configured), so a duplicate callback during a Redis outage still runs its handler once. Without
// PostgreSQL they keep failing closed with StoreUnavailableError, never open (docs/architecture.md).
// A lock or mark stays with the store that granted it: its release, extension or result goes there too.
import { StoreUnavailableError } from '../errors.js';
import type { KitStore, LockKeys } from './ports/kit.js';
import type { DegradationSwitch } from '../stats/degradation.js';
import type { KitFallback } from './postgres/kitFallback.js';

/** Tokens granted by the fallback whose release or result is still to come; bounded (oldest forgotten first). */
const maxFallbackTokens = 100_000;

export class DegradingKitStore implements KitStore {
  readonly kind: KitStore['kind'];
  private readonly fallbackTokens = new Set<string>();

  constructor(
    private readonly primary: KitStore,
    private readonly fallback: KitFallback | undefined,
    private readonly degradation: DegradationSwitch,
  ) {
    this.kind = primary.kind;
  }

  private async observed<T>(call: () => Promise<T>): Promise<T> {
    try {
      const reply = await call();
      this.degradation.observe(false);
      return reply;
    } catch (err) {
      this.degradation.observe(err instanceof StoreUnavailableError);
      throw err;
    }
  }

  private useFallback(): boolean {
    return this.fallback !== undefined && this.degradation.level >= 1;
  }

  private async onFallback<T>(call: (fallback: KitFallback) => Promise<T>): Promise<T> {
    try {
      return await call(this.fallback!);
    } catch (err) {
      throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(err);
    }
  }

  private grantedByFallback(token: string): void {
    if (this.fallbackTokens.size >= maxFallbackTokens) this.fallbackTokens.delete(this.fallbackTokens.values().next().value!);
    this.fallbackTokens.add(token);
  }

  /** The follow-up of a grant goes where the grant came from. */
  private followUp<T>(token: string, done: boolean, call: (store: KitFallback) => Promise<T>): Promise<T> {
    if (this.fallback && this.fallbackTokens.has(token)) {
      if (done) this.fallbackTokens.delete(token);
      return this.onFallback(call);
    }
    return this.observed(() => call(this.primary));
  }

  async acquireLock(keys: LockKeys, token: string, ttlMs: number, nowMs: number) {
    if (!this.useFallback()) return this.observed(() => this.primary.acquireLock(keys, token, ttlMs, nowMs));
    const reply = await this.onFallback((f) => f.acquireLock(keys, token, ttlMs, nowMs));
    if (reply.acquired) this.grantedByFallback(token);
    return reply;
  }

  releaseLock(keys: LockKeys, token: string) {
    return this.followUp(token, true, (s) => s.releaseLock(keys, token));
  }

  extendLock(keys: LockKeys, token: string, ttlMs: number) {
    return this.followUp(token, false, (s) => s.extendLock(keys, token, ttlMs));
  }

  async beginIdempotent(key: string, token: string, fingerprint: string, processingMs: number, nowMs: number) {
    if (!this.useFallback()) return this.observed(() => this.primary.beginIdempotent(key, token, fingerprint, processingMs, nowMs));
    const reply = await this.onFallback((f) => f.beginIdempotent(key, token, fingerprint, processingMs, nowMs));
    if (reply.state === 'acquired') this.grantedByFallback(token);
    return reply;
  }

  completeIdempotent(key: string, token: string, fingerprint: string, result: string, ttlMs: number) {
    return this.followUp(token, true, (s) => s.completeIdempotent(key, token, fingerprint, result, ttlMs));
  }

  abandonIdempotent(key: string, token: string) {
    return this.followUp(token, true, (s) => s.abandonIdempotent(key, token));
  }

  readCache: KitStore['readCache'] = (key) => this.observed(() => this.primary.readCache(key));
  writeCache: KitStore['writeCache'] = (key, value, ttlMs) => this.observed(() => this.primary.writeCache(key, value, ttlMs));
  invalidateCache: KitStore['invalidateCache'] = (key, channel, cacheKey) => this.observed(() => this.primary.invalidateCache(key, channel, cacheKey));
  subscribeInvalidations: KitStore['subscribeInvalidations'] = (channel, handlers) => this.primary.subscribeInvalidations(channel, handlers);
  touchRecencyBuckets: KitStore['touchRecencyBuckets'] = (...args) => this.observed(() => this.primary.touchRecencyBuckets(...args));
  readRecencyBuckets: KitStore['readRecencyBuckets'] = (keys) => this.observed(() => this.primary.readRecencyBuckets(keys));
  touchRecencyZset: KitStore['touchRecencyZset'] = (...args) => this.observed(() => this.primary.touchRecencyZset(...args));
  readRecencyZset: KitStore['readRecencyZset'] = (...args) => this.observed(() => this.primary.readRecencyZset(...args));

  close(): Promise<void> {
    return this.primary.close();
  }
}
