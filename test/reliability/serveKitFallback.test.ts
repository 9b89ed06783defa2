// `paypulse serve` with DATABASE_URL gives the kit its PostgreSQL fallback: with the service's Redis killed and
// the degradation switch at level 1, 100 concurrent duplicate callbacks through the service's pulse run their
// handler once. Without a PostgreSQL server (embedded PGlite) the kit fails closed instead.
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock } from '../../src/clock.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { defaultConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { createTestDatabase } from '../history/databases.js';
import { startRedis } from '../support/redisServer.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function serve(databaseUrl: string | undefined): Promise<{ service: RunningService; clock: ManualClock; killRedis: () => Promise<void> }> {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 9, 0));
  const service = await startService(
    { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: `servekit${process.pid}`, ...(databaseUrl ? { databaseUrl } : {}) },
    { logger: pino({ level: 'silent' }), clock },
  );
  cleanups.push(() => service.close());
  return { service, clock, killRedis: () => redis.kill() };
}

/** Ten seconds of failing kit calls on virtual time: the switch's level-1 rule (≥ 5 % for 10 s). */
async function failForTenSeconds(service: RunningService, clock: ManualClock): Promise<void> {
  for (let s = 0; s < 10; s++) {
    await expect(service.pulse.idempotency.run(`warmup-${s}`, { processingMs: 1_000 }, () => 'never')).rejects.toBeInstanceOf(StoreUnavailableError);
    clock.advance(1_000);
  }
}

describe('paypulse serve and the kit fallback', () => {
  it('with DATABASE_URL runs 100 concurrent duplicate callbacks once while Redis is down', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { service, clock, killRedis } = await serve(database.url);
    expect(service.kitFallback).toBe(true);
    await killRedis();
    await failForTenSeconds(service, clock);
    expect(service.pulse.health().degradationLevel).toBeGreaterThanOrEqual(1);

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
  });

  it('without a PostgreSQL server the kit fails closed while Redis is down', async () => {
    const { service, clock, killRedis } = await serve(undefined);
    expect(service.kitFallback).toBe(false);
    await killRedis();
    await failForTenSeconds(service, clock);
    await expect(service.pulse.idempotency.run('callback:order-8', { processingMs: 10_000 }, () => 'ran')).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
