// Fenced locks (Kleppmann, "How to do distributed locking"; docs/background.md): SET NX PX with a unique token,
// compare-and-act release and extend, a fencing number that strictly increases per resource, and a
// watchdog that renews every ttl/3 while work runs and aborts the work as soon as the lock may be lost.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { KitKeys } from '../store/keys/kit.js';
import { LockHeldError, LockLostError } from './errors.js';
import type { KitStore, LockKeys } from '../store/ports/kit.js';
import { nameLimits, normaliseName, positiveMs, waitMs } from './validate.js';
import { backoffMs, monotonicMs, sleep } from './wait.js';

export interface LockOptions {
  ttlMs: number;
  /** How long to keep trying while someone else holds it; 0 (default) tries once. */
  waitMs?: number;
}

export interface LockHandle {
  readonly resource: string;
  readonly token: string;
  /** Pass it to every write the lock protects; see fencedUpdate() in fence.ts. */
  readonly fence: number;
  /** false when the lock was no longer ours (expired and maybe taken). */
  release(): Promise<boolean>;
  /** Sets the remaining time to `ttlMs` (default: the acquire ttl); false when the lock was no longer ours. */
  extend(ttlMs?: number): Promise<boolean>;
}

export type LockedWork<T> = (signal: AbortSignal, fence: number) => Promise<T>;

export interface KitLock {
  /** null when someone else holds it for all of `waitMs`; throws StoreUnavailableError when the store is down. */
  acquire(resource: string, options: LockOptions): Promise<LockHandle | null>;
  /**
   * Runs `work` under the lock, renewing it every ttl/3. Throws LockHeldError when it cannot be had,
   * StoreUnavailableError when the store is down, LockLostError (after `work` settles) when it was lost.
   */
  using<T>(resource: string, options: LockOptions, work: LockedWork<T>): Promise<T>;
}

export interface LockDeps {
  store: KitStore;
  keys: KitKeys;
  clock: Clock;
  /** Poll spacing while waiting (full-jitter backoff between these). */
  retryMinMs: number;
  retryMaxMs: number;
}

type Attempt = { handle: LockHandle; leaseStartedAt: number } | { handle: null; retryAfterMs: number };

export function createLock(deps: LockDeps): KitLock {
  const { store, clock } = deps;

  const makeHandle = (resource: string, keys: LockKeys, token: string, fence: number, ttlMs: number): LockHandle => ({
    resource,
    token,
    fence,
    release: () => store.releaseLock(keys, token),
    extend: (ms?: number) => store.extendLock(keys, token, positiveMs(ms, 'ttlMs', ttlMs)),
  });

  async function attempt(resource: string, options: LockOptions): Promise<Attempt & { resource: string; ttlMs: number }> {
    const name = normaliseName(resource, 'resource', nameLimits.resource);
    const ttlMs = positiveMs(options?.ttlMs, 'ttlMs');
    const budgetMs = waitMs(options?.waitMs, 'waitMs');
    const keys = deps.keys.lock(name);
    const token = randomUUID();
    const deadline = monotonicMs() + budgetMs;
    for (let tries = 0; ; tries++) {
      const leaseStartedAt = monotonicMs();
      const reply = await store.acquireLock(keys, token, ttlMs, clock.now());
      if (reply.acquired) return { handle: makeHandle(name, keys, token, reply.fence, ttlMs), leaseStartedAt, resource: name, ttlMs };
      const remaining = deadline - monotonicMs();
      if (remaining <= 0) return { handle: null, retryAfterMs: reply.retryAfterMs, resource: name, ttlMs };
      // Never sleep past the holder's expiry: the lock is free then.
      await sleep(Math.min(remaining, backoffMs(tries, deps.retryMinMs, deps.retryMaxMs), Math.max(1, reply.retryAfterMs)));
    }
  }

  async function using<T>(resource: string, options: LockOptions, work: LockedWork<T>): Promise<T> {
    const got = await attempt(resource, options);
    if (!got.handle) throw new LockHeldError(got.resource, got.retryAfterMs);
    const { handle } = got;
    const lease = keepLease(handle, got.ttlMs, got.leaseStartedAt);
    try {
      const result = await work(lease.signal, handle.fence);
      const lost = lease.lost();
      if (lost) throw lost;
      return result;
    } catch (err) {
      const lost = lease.lost();
      if (lost && err !== lost && (lost as { cause?: unknown }).cause === undefined) (lost as { cause?: unknown }).cause = err;
      throw lost ?? err;
    } finally {
      lease.stop();
      // Compare-and-delete is harmless if it is no longer ours; if the store is down, the TTL frees it.
      await handle.release().catch(() => false);
    }
  }

  return {
    acquire: async (resource, options) => (await attempt(resource, options)).handle,
    using,
  };
}

interface Lease {
  /** Aborted when the lease can no longer be trusted. */
  signal: AbortSignal;
  lost(): LockLostError | undefined;
  stop(): void;
}

/** Renews a held lock every ttl/3 while work runs; aborts the signal once no renewal is confirmed in time. */
function keepLease(handle: LockHandle, ttlMs: number, leaseStartedAt: number): Lease {
  const controller = new AbortController();
  let lost: LockLostError | undefined;
  let stopped = false;
  let renewTimer: NodeJS.Timeout | undefined;
  let leaseTimer: NodeJS.Timeout | undefined;
  // Redlock's drift allowance: trust a lease a little less than its ttl.
  const driftMs = Math.floor(ttlMs * 0.01) + 2;
  const renewEveryMs = Math.max(1, Math.floor(ttlMs / 3));

  const lose = (error: LockLostError) => {
    if (lost || stopped) return;
    lost = error;
    clearTimeout(renewTimer);
    clearTimeout(leaseTimer);
    controller.abort(error);
  };
  // If no renewal is confirmed before the last confirmed lease ends, someone else may hold the lock now.
  const armLease = (startedAt: number) => {
    clearTimeout(leaseTimer);
    const leftMs = startedAt + ttlMs - driftMs - monotonicMs();
    leaseTimer = setTimeout(() => lose(new LockLostError(handle.resource, 'store-unavailable')), Math.max(0, leftMs));
  };
  const renew = async () => {
    if (stopped || lost) return; // a lock already lost is never renewed: another holder may have it now
    const startedAt = monotonicMs();
    try {
      if (!(await handle.extend(ttlMs))) return lose(new LockLostError(handle.resource, 'expired'));
      if (stopped || lost) return;
      armLease(startedAt);
      renewTimer = setTimeout(renew, renewEveryMs);
    } catch {
      // Unknown whether we still hold it: retry soon; the lease timer decides when to give up.
      if (stopped || lost) return;
      renewTimer = setTimeout(renew, Math.max(1, Math.floor(ttlMs / 10)));
    }
  };

  armLease(leaseStartedAt);
  renewTimer = setTimeout(renew, renewEveryMs);
  return {
    signal: controller.signal,
    lost: () => lost,
    stop: () => {
      stopped = true;
      clearTimeout(renewTimer);
      clearTimeout(leaseTimer);
    },
  };
}
