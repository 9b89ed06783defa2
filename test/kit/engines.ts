// The two engines every kit behaviour runs on (one shared suite, both engines). Each test gets
// a fresh namespace; Redis tests use a redis-server this file started, never one on 6379.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { createKit, type Kit, type KitOptions } from '../../src/kit/index.js';
import type { KitStore } from '../../src/store/ports/kit.js';
import { MemoryKitStore } from '../../src/store/memory/kit/index.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisKitStore } from '../../src/store/redis/kit/index.js';
import { kitKeys } from '../../src/store/keys/kit.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

export type KitOverrides = Omit<Partial<KitOptions>, 'store' | 'clock' | 'namespace'>;

export interface EngineContext {
  engine: 'memory' | 'redis';
  namespace: string;
  clock: Clock;
  store: KitStore;
  /** A kit in this context's namespace, as one process sees it (own L1, single flight). */
  kit(overrides?: KitOverrides): Kit;
  /** Another process: on Redis its own connection and store; in memory a second kit on the shared store. */
  otherProcess(overrides?: KitOverrides): Promise<Kit>;
  /** Lets time pass for the store's expiry: moves the manual clock (memory) or waits (Redis). */
  elapse(ms: number): Promise<void>;
  /** Makes the lock on `resource` expire now, as a failover or a stalled holder would see it. */
  breakLock(resource: string, ttlMs: number): Promise<void>;
}

export interface Engine {
  name: 'memory' | 'redis';
  open(): Promise<EngineContext>;
}

export const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const freshNamespace = () => `t${randomBytes(5).toString('hex')}`;

/** Polls `check` until true or `timeoutMs` passes (for pub/sub deliveries, which have no completion event). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await realSleep(5);
  }
}

/** Registers the lifecycle hooks and returns both engines, for describe.each. */
export function kitEngines(): { engines: Engine[]; redis: () => LocalRedis } {
  let redis: LocalRedis | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const memory: Engine = {
    name: 'memory',
    open: async () => {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const store = new MemoryKitStore({ clock });
      const namespace = freshNamespace();
      const kit = (overrides: KitOverrides = {}) => {
        const k = createKit({ ...overrides, store, clock, namespace });
        cleanups.push(() => k.close());
        return k;
      };
      return {
        engine: 'memory',
        namespace,
        clock,
        store,
        kit,
        otherProcess: async (o) => kit(o),
        elapse: async (ms) => void clock.advance(ms),
        breakLock: async (_resource, ttlMs) => void clock.advance(ttlMs + 1),
      };
    },
  };

  const openRedisStore = async () => {
    const connection = await RedisConnection.connect({ url: redis!.url, commandTimeoutMs: 1000 });
    const store = new RedisKitStore(connection, { subscribeTimeoutMs: 500 });
    cleanups.push(async () => {
      await store.close();
      await connection.close();
    });
    return { store, connection };
  };
  const redisEngine: Engine = {
    name: 'redis',
    open: async () => {
      const { store, connection } = await openRedisStore();
      const namespace = freshNamespace();
      const kitOn = (s: KitStore, overrides: KitOverrides = {}) => {
        const k = createKit({ ...overrides, store: s, clock: systemClock, namespace });
        cleanups.push(() => k.close());
        return k;
      };
      return {
        engine: 'redis',
        namespace,
        clock: systemClock,
        store,
        kit: (o) => kitOn(store, o),
        otherProcess: async (o) => kitOn((await openRedisStore()).store, o),
        elapse: realSleep,
        breakLock: async (resource) => {
          const key = kitKeys(namespace).lock(resource).lock;
          await connection.command(key, ['DEL', key]);
        },
      };
    },
  };

  return { engines: [memory, redisEngine], redis: () => redis! };
}
