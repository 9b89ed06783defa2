// `paypulse serve` keeps operator state in its history database: two services on one Redis and one PostgreSQL,
// Redis killed and started again empty — a forced breaker and a mute set through the API come back on both
// within seconds, on their own timers, and /metrics says what was restored (and passes promtool).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
let redis: LocalRedis;
let database: TestDatabase;
const services: RunningService[] = [];

beforeAll(async () => {
  redis = await startRedis();
  database = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  for (const s of services) await s.close();
  await redis?.stop();
  await database?.drop();
});

async function json(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(5_000) });
  return (await res.json()) as Record<string, unknown>;
}

describe('operator state in the service', () => {
  it('restores a forced breaker and a mute on both services after Redis restarts empty, and reports it in /metrics', async () => {
    const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, redisUrl: redis.url, databaseUrl: database.url, namespace: 'svcstate', alerts: { log: false } };
    for (let i = 0; i < 2; i++) services.push(await startService(config));
    const [a, b] = services as [RunningService, RunningService];
    const until = new Date(Date.now() + 3600_000).toISOString();
    expect((await json(`${a.url}/v1/channels/acq-z/breaker`, { method: 'PUT', body: JSON.stringify({ mode: 'force-open' }) })).mode).toBe('force-open');
    await json(`${b.url}/v1/channels/acq-z/mute`, { method: 'PUT', body: JSON.stringify({ until }) });

    await redis.restart();
    const restoredOn = async (s: RunningService) => {
      const none: Record<string, unknown> = {};
      const breaker = await json(`${s.url}/v1/channels/acq-z/breaker`).catch(() => none);
      const mute = await json(`${s.url}/v1/channels/acq-z/mute`).catch(() => none);
      return breaker.mode === 'force-open' && mute.mutedUntil === Date.parse(until);
    };
    await expect.poll(async () => (await restoredOn(a)) && (await restoredOn(b)), { timeout: 20_000, interval: 200 }).toBe(true);

    const metrics = await Promise.all(services.map(async (s) => (await fetch(`${s.url}/metrics`)).text()));
    const restored = (kind: string) => metrics.reduce((t, text) => t + Number(text.match(new RegExp(`^paypulse_operator_state_restored_total\\{kind="${kind}"\\} (\\d+)`, 'm'))?.[1] ?? 0), 0);
    expect([restored('breaker'), restored('mute')]).toEqual([1, 1]);
    expect(metrics[0]).toMatch(/^paypulse_operator_state_write_failures_total 0$/m);
    if (hasPromtool) {
      const check = spawnSync('promtool', ['check', 'metrics'], { input: metrics[0], encoding: 'utf8' });
      expect(check.stdout + check.stderr).toBe('');
    }
  }, 60_000);
});
