// `paypulse serve` with DATABASE_URL makes PostgreSQL the kit's authority for callback marks and locks: with the
// service's Redis killed, 100 concurrent duplicate callbacks run their handler once, at once (no degradation level
// to wait for), and a Redis restarted empty forgets nothing of them. Without a PostgreSQL server (embedded PGlite)
// the kit keeps them in Redis and fails closed while Redis is down.
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { StoreUnavailableError } from '../../src/errors.js';
import { defaultConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { createTestDatabase } from '../history/databases.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function serve(databaseUrl: string | undefined): Promise<{ service: RunningService; redis: LocalRedis }> {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const service = await startService(
    { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: `servekit${process.pid}`, ...(databaseUrl ? { databaseUrl } : {}) },
    { logger: pino({ level: 'silent' }) },
  );
  cleanups.push(() => service.close());
  return { service, redis };
}

describe('paypulse serve and the kit authority', () => {
  it('with DATABASE_URL runs 100 concurrent duplicate callbacks once while Redis is down, and keeps them across an empty restart', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { service, redis } = await serve(database.url);
    expect(service.kitDatabase).toBe(true);
    await redis.kill();

    let runs = 0;
    const handler = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 20));
      return { paid: 'order-7' };
    };
    const results = await Promise.all(
      Array.from({ length: 100 }, () => service.pulse.idempotency.run('callback:order-7', { processingMs: 10_000 }, handler)),
    );
    expect(runs).toBe(1);
    expect(results.filter((r) => r.status === 'executed')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'duplicate' || r.status === 'in-progress')).toHaveLength(99);
    const held = await service.pulse.lock.acquire('order:9', { ttlMs: 120_000 });
    expect(held).not.toBeNull();

    await redis.start(); // empty: nothing of the kit's marks and locks lived there
    expect(await service.pulse.idempotency.run('callback:order-7', { processingMs: 10_000 }, handler)).toEqual({ status: 'duplicate', result: { paid: 'order-7' } });
    expect(await service.pulse.lock.acquire('order:9', { ttlMs: 120_000 })).toBeNull();
    expect(runs).toBe(1);
  });

  it('without a PostgreSQL server the kit fails closed while Redis is down', async () => {
    const { service, redis } = await serve(undefined);
    expect(service.kitDatabase).toBe(false);
    await redis.kill();
    await expect(service.pulse.idempotency.run('callback:order-8', { processingMs: 10_000 }, () => 'ran')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(service.pulse.lock.acquire('order:8', { ttlMs: 1_000 })).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
