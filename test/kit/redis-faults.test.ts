// Redis-only behaviour: a server restarted or killed mid-use , and the key
// hygiene every Redis key must have (a TTL on each, retired buckets unlinked).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { LockLostError } from '../../src/kit/errors.js';
import { createKit, type Kit } from '../../src/kit/index.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisKitStore } from '../../src/store/redis/kit/index.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { eventually, freshNamespace, type KitOverrides } from './engines.js';

let redis: LocalRedis;
let redisDown = false; // starting a server that is already up would orphan it (LocalRedis tracks one child)
const killRedis = async () => {
  await redis.kill();
  redisDown = true;
};
const startRedisAgain = async () => {
  await redis.start();
  redisDown = false;
};
const cleanups: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  if (redisDown) await startRedisAgain(); // a failed test may leave it killed
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(async () => {
  await redis?.stop();
});

const commandTimeoutMs = 500;

async function open(overrides: KitOverrides = {}): Promise<{ kit: Kit; connection: RedisConnection; namespace: string }> {
  const connection = await RedisConnection.connect({ url: redis.url, commandTimeoutMs });
  const store = new RedisKitStore(connection, { subscribeTimeoutMs: 300 });
  const namespace = freshNamespace();
  const kit = createKit({ ...overrides, store, namespace });
  cleanups.push(async () => {
    await kit.close();
    await store.close();
    await connection.close();
  });
  return { kit, connection, namespace };
}

/** Runs `op` and returns what it threw, failing if it took longer than the command timeout allows. */
async function failsFast(op: () => Promise<unknown>): Promise<unknown> {
  const started = Date.now();
  const error = await op().then(() => undefined, (e: unknown) => e);
  expect(Date.now() - started).toBeLessThan(commandTimeoutMs + 300);
  return error;
}

describe('kit on a Redis that restarts', () => {
  it('reports a lock held across a restart as lost, and fences keep increasing after it', async () => {
    const { kit, connection } = await open();
    let fenceBefore = 0;
    const outcome = await kit.lock
      .using('settlement:batch-1', { ttlMs: 600 }, async (signal, fence) => {
        fenceBefore = fence;
        await redis.restart(); // the lock key is gone with the server's memory
        await eventually(() => signal.aborted, 3000);
      })
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(LockLostError);
    await eventually(() => connection.isReady, 3000);
    const next = await kit.lock.acquire('settlement:batch-1', { ttlMs: 600 });
    // The fence counter died with the server; the time floor still puts the new fence above the old one,
    // so a database guarded by `fence < $1` accepts the new holder and rejects the old one.
    expect(next!.fence).toBeGreaterThan(fenceBefore);
  });

  it('lock and idempotency fail fast with StoreUnavailableError while Redis is down, and never run the handler', async () => {
    const { kit, connection } = await open();
    await killRedis();
    const lockError = await failsFast(() => kit.lock.acquire('r', { ttlMs: 1000 }));
    expect(lockError).toBeInstanceOf(StoreUnavailableError);
    const usingError = await failsFast(() => kit.lock.using('r', { ttlMs: 1000 }, async () => 1));
    expect((usingError as StoreUnavailableError).code).toBe('PP_ERR_STORE_UNAVAILABLE');
    let calls = 0;
    const idemError = await failsFast(() => kit.idempotency.run('cb:down', { processingMs: 1000 }, async () => ++calls));
    expect(idemError).toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBe(0);
    const touchError = await failsFast(() => kit.recency('r', { max: 10, within: '1d', tolerance: '1h' }).touch('x', Date.now()));
    expect(touchError).toBeInstanceOf(StoreUnavailableError);
    await startRedisAgain();
    await eventually(() => connection.isReady, 3000);
    expect(await kit.idempotency.run('cb:down', { processingMs: 1000 }, async () => ++calls)).toMatchObject({ status: 'executed', result: 1 });
  });

  it('returns an executed result unstored when Redis dies during the handler; a restart forgets done marks', async () => {
    const { kit, connection } = await open();
    const outcome = await kit.idempotency.run('cb:mid', { processingMs: 2000 }, async () => {
      await killRedis();
      return 'captured';
    });
    // The work is done; failing now would make the channel retry a finished payment.
    expect(outcome).toEqual({ status: 'executed', result: 'captured', stored: false });
    await startRedisAgain();
    await eventually(() => connection.isReady, 3000);
    await kit.idempotency.run('cb:kept', { processingMs: 2000 }, async () => 1);
    await redis.restart();
    await eventually(() => connection.isReady, 3000);
    // Documented: Redis is not the ledger (docs/background.md). After losing its memory the mark is gone and the
    // handler runs again; the handler's own database constraint is what stops a double effect.
    expect((await kit.idempotency.run('cb:kept', { processingMs: 2000 }, async () => 2)).status).toBe('executed');
  });

  it('cache reads go to the loader behind the concurrency limit while Redis is down, and L1 resets after', async () => {
    const { kit, connection } = await open({ cache: { degradedConcurrency: 3 } });
    let version = 1;
    let running = 0;
    let peak = 0;
    const loader = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 20));
      running--;
      return { version };
    };
    expect(await kit.cache.getOrLoad('pay:cfg:1:fee', loader, { ttlMs: 60_000 })).toEqual({ version: 1 });
    expect(kit.cache.stats().l1Live).toBe(true);
    await killRedis();
    await eventually(() => !kit.cache.stats().l1Live, 2000);
    version = 2; // changed while the bus is down: this invalidation can reach nobody
    const started = Date.now();
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => kit.cache.getOrLoad(`pay:cfg:${i}:fee`, loader, { ttlMs: 60_000 })));
    expect(values.every((v) => v?.version === 2)).toBe(true); // L1 is not trusted while the bus is down
    expect(peak).toBeLessThanOrEqual(3);
    expect(Date.now() - started).toBeLessThan(commandTimeoutMs * 2 + 1000);
    expect(kit.cache.stats().degradedLoads).toBeGreaterThanOrEqual(20);
    expect(await failsFast(() => kit.cache.invalidate('pay:cfg:1:fee'))).toBeInstanceOf(StoreUnavailableError);
    await startRedisAgain();
    await eventually(() => connection.isReady, 3000);
    await eventually(() => kit.cache.stats().l1Live, 3000);
    version = 3;
    await eventually(async () => (await kit.cache.getOrLoad('pay:cfg:1:fee', loader, { ttlMs: 60_000 }))?.version === 3, 3000);
  });
});

describe('kit keys on Redis', () => {
  it('every key has a TTL, and retired recency buckets are unlinked', async () => {
    const { kit, connection, namespace } = await open();
    await kit.lock.acquire('order:1', { ttlMs: 5000 });
    await kit.idempotency.run('cb:1', { processingMs: 1000 }, async () => 'ok');
    await kit.cache.getOrLoad('pay:m:1:x', async () => 1, { ttlMs: 60_000 });
    await kit.cache.getOrLoad('pay:m:2:x', async () => null, { ttlMs: 60_000 });
    const buckets = kit.recency('vehicles', { max: 10, within: '7d', tolerance: '1d', design: 'buckets' });
    const zset = kit.recency('vehicles', { max: 10, within: '7d', tolerance: '1d', design: 'zset' });
    for (let i = 0; i < 100; i++) {
      await buckets.touch(`v-${i}`, Date.now());
      await zset.touch(`v-${i}`, Date.now());
    }
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await connection.command('', ['SCAN', cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000])) as [string, string[]];
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    expect(keys.length).toBeGreaterThan(5);
    for (const key of keys) expect(Number(await connection.command(key, ['PTTL', key])), key).toBeGreaterThan(0);
    expect(keys.filter((k) => k.includes(':bucket:'))).toHaveLength(2); // Current and Before; the rest unlinked
  });
});
