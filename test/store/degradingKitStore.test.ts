// The kit while Redis is down: calls fail closed until the degradation switch reaches level 1, then callback
// marks and locks are taken in PostgreSQL, so 100 concurrent duplicate callbacks run their handler once.
// Real redis-server (killed), real PGlite and PostgreSQL server; virtual time drives the switch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { migrate } from '../../src/history/migrate.js';
import { createKit, type Kit } from '../../src/kit/index.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { DegradationSwitch } from '../../src/stats/degradation.js';
import { DegradingKitStore } from '../../src/store/degradingKitStore.js';
import { createPostgresKitFallback } from '../../src/store/postgres/kitFallback.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisKitStore } from '../../src/store/redis/kit/index.js';
import { backends } from '../history/databases.js';
import { freshNamespace } from '../kit/engines.js';

let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

async function openKit(fallback: ReturnType<typeof createPostgresKitFallback> | undefined) {
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 9, 0));
  const connection = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 300, connectTimeoutMs: 5_000 });
  const redisKit = new RedisKitStore(connection, { subscribeTimeoutMs: 300 });
  const degradation = new DegradationSwitch(clock);
  const kit = createKit({ store: new DegradingKitStore(redisKit, fallback, degradation), clock, namespace: freshNamespace() });
  const close = async () => {
    await kit.close();
    await redisKit.close();
    await connection.close();
  };
  return { clock, kit, degradation, close };
}

/** Ten seconds of failing calls on virtual time: the switch's level-1 rule (≥ 5 % for 10 s) is met. */
async function failForTenSeconds(kit: Kit, clock: ManualClock): Promise<void> {
  for (let s = 0; s < 10; s++) {
    await expect(kit.idempotency.run(`warmup-${s}`, { processingMs: 1_000 }, () => 'never')).rejects.toBeInstanceOf(StoreUnavailableError);
    clock.advance(1_000);
  }
}

describe.each(backends)('kit falling back to $name', (backend) => {
  let dispose: () => Promise<void>;
  let fallback: ReturnType<typeof createPostgresKitFallback>;
  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    await migrate(opened.db);
    fallback = createPostgresKitFallback(opened.db);
  });
  afterAll(async () => {
    await dispose();
  });

  it('runs 100 concurrent duplicate callbacks once while Redis is down, and hands out locks with rising fences', async () => {
    const { clock, kit, degradation, close } = await openKit(fallback);
    try {
      await redis.kill();
      await failForTenSeconds(kit, clock);
      expect(degradation.level).toBe(1);

      let runs = 0;
      const handler = async () => {
        runs++;
        await new Promise((r) => setTimeout(r, 20)); // the handler's own work, while duplicates arrive
        return { paid: 'order-1' };
      };
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, () => kit.idempotency.run('callback:order-1', { processingMs: 10_000, fingerprint: { amount: 5 } }, handler)),
      );
      expect(runs).toBe(1);
      expect(outcomes.filter((o) => o.status === 'executed')).toEqual([{ status: 'executed', result: { paid: 'order-1' }, stored: true }]);
      // The others arrived while it ran (in-progress) or after it finished (duplicate, with its result).
      const others = outcomes.filter((o) => o.status !== 'executed');
      expect(others).toHaveLength(99);
      for (const o of others) expect(o).toEqual(o.status === 'duplicate' ? { status: 'duplicate', result: { paid: 'order-1' } } : { status: 'in-progress', result: undefined });
      expect(await kit.idempotency.run('callback:order-1', { processingMs: 10_000, fingerprint: { amount: 5 } }, handler)).toEqual({
        status: 'duplicate',
        result: { paid: 'order-1' },
      });
      await expect(kit.idempotency.run('callback:order-1', { processingMs: 10_000, fingerprint: { amount: 6 } }, handler)).rejects.toThrow();
      expect(runs).toBe(1);

      const first = await kit.lock.acquire('settlement', { ttlMs: 5_000 });
      expect(first).not.toBeNull();
      expect(await kit.lock.acquire('settlement', { ttlMs: 5_000 })).toBeNull(); // held: waitMs 0 answers at once
      await first!.release();
      const second = await kit.lock.acquire('settlement', { ttlMs: 5_000 });
      expect(second!.fence).toBeGreaterThan(first!.fence);
      await second!.release();
    } finally {
      await close();
      await redis.start();
    }
  });
});

describe('kit without a fallback database', () => {
  it('fails closed at every level while Redis is down', async () => {
    const { clock, kit, degradation, close } = await openKit(undefined);
    try {
      await redis.kill();
      await failForTenSeconds(kit, clock);
      expect(degradation.level).toBe(1);
      let runs = 0;
      await expect(kit.idempotency.run('callback:x', { processingMs: 1_000 }, () => runs++)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(kit.lock.acquire('r', { ttlMs: 1_000 })).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(runs).toBe(0);
    } finally {
      await close();
      await redis.start();
    }
  });
});
