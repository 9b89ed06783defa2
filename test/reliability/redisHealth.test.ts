// Redis health from a real redis-server: the INFO sample sees memory fill towards maxmemory, clients against
// maxclients, slow-log entries per minute and the hit rate; the service exports them on /metrics; and the
// rules `paypulse rules` prints for them fire in `promtool test rules` at the documented levels.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { stringify } from 'yaml';
import { pino } from 'pino';
import { promRulesYaml } from '../../src/alerts/promRules.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { defaultConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisServerHealthReader } from '../../src/store/redis/serverHealth.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
const maxMemory = 8 * 1024 * 1024;

let redis: LocalRedis;
let connection: RedisConnection;

beforeAll(async () => {
  // Every command is slow (threshold 0 µs), so the slow log grows with each call.
  redis = await startRedis(['--maxmemory', String(maxMemory), '--maxmemory-policy', 'noeviction', '--maxclients', '50', '--slowlog-log-slower-than', '0']);
  connection = await RedisConnection.connect({ url: redis.url });
});

afterAll(async () => {
  await connection?.close();
  await redis?.stop();
});

describe('Redis server health', () => {
  it('sees memory used against maxmemory rise as Redis fills, clients against maxclients, slow commands and hits', async () => {
    const reader = new RedisServerHealthReader(connection);
    const start = Date.now();
    const first = await reader.sample(start);
    expect(first).toMatchObject({ maxMemoryBytes: maxMemory, maxClients: 50, slowCommandsPerMinute: null, keyspaceHitRatio: null, replicationLagSeconds: 0 });
    expect(first.connectedClients).toBeGreaterThanOrEqual(1);
    expect(first.clientsRatio).toBeCloseTo(first.connectedClients / 50, 5);

    // ≈ 5 MB of values in 50 SETs, then 30 hits and 10 misses.
    const value = 'x'.repeat(100_000);
    for (let i = 0; i < 50; i++) await connection.command(`fill:${i}`, ['SET', `fill:${i}`, value]);
    for (let i = 0; i < 40; i++) await connection.command(`fill:${i}`, ['GET', i < 30 ? `fill:${i}` : `absent:${i}`]);
    const second = await reader.sample(start + 60_000);
    expect(second.memoryRatio!).toBeGreaterThan(0.6);
    expect(second.memoryRatio!).toBeLessThan(1);
    expect(second.memoryRatio!).toBeGreaterThan(first.memoryRatio! + 0.5);
    expect(second.usedMemoryBytes).toBeGreaterThan(first.usedMemoryBytes + 4_000_000);
    // 90 of our own commands and a sample in between, over one (injected) minute; the log holds 128 entries.
    expect(second.ownSlowCallsPerMinute!).toBeGreaterThanOrEqual(90);
    expect(second.slowCommandsPerMinute!).toBe(0);
    expect(second.keyspaceHitRatio!).toBeCloseTo(30 / 40, 5);

    // Another client's commands are the ones the slow-command alert is for.
    const other = createClient({ url: redis.url });
    await other.connect();
    try {
      for (let i = 0; i < 20; i++) await other.get(`other:${i}`);
    } finally {
      await other.close();
    }
    const third = await reader.sample(start + 120_000);
    expect(third.slowCommandsPerMinute!).toBeGreaterThanOrEqual(20);
    expect(third.ownSlowCallsPerMinute!).toBeLessThan(5);
  });

  describe('through the service', () => {
    let database: TestDatabase;
    let service: RunningService;
    beforeAll(async () => {
      database = await createTestDatabase();
      service = await startService(
        { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: `redishealth${process.pid}`, databaseUrl: database.url },
        { logger: pino({ level: 'silent' }) },
      );
    });
    afterAll(async () => {
      await service?.close();
      await database?.drop();
    });

    it('exports the sample on /metrics', async () => {
      await service.pulse.storeServer!.sampleNow();
      const text = await (await fetch(`${service.url}/metrics`)).text();
      expect(text).toContain(`paypulse_redis_memory_max_bytes ${maxMemory}`);
      expect(text).toContain('paypulse_redis_max_clients 50');
      expect(text).toMatch(/^paypulse_redis_memory_used_ratio 0\.[6-9]\d*$/m);
      expect(text).toMatch(/^paypulse_redis_connected_clients [1-9]\d*$/m);
      expect(text).toMatch(/^paypulse_redis_replication_lag_seconds 0$/m);
      if (hasPromtool) {
        const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
        expect(check.stdout + check.stderr).toBe('');
      }
    });
  });

  it.skipIf(!hasPromtool)('has rules that fire at memory > 80 %/90 %, clients > 80 %, > 10 slow commands a minute for 2 minutes and lag > 1 s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paypulse-redis-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yml'), promRulesYaml(resolveAlertRules({}), { windows: ['1m', '5m', '15m', '1h'] }));
      const series = (name: string, before: number, after: number) => ({ series: `${name}{instance="a"}`, values: `${before}x12 ${after}x12` });
      const alert = (severity: string, summary: string) => ({ exp_labels: { severity, rule: 'redis' }, exp_annotations: { summary } });
      const tests = {
        rule_files: ['rules.yml'],
        evaluation_interval: '5s',
        tests: [{
          interval: '5s',
          input_series: [
            series('paypulse_redis_memory_used_ratio', 0.79, 0.85),
            series('paypulse_redis_clients_ratio', 0.5, 0.81),
            { series: 'paypulse_redis_slow_commands_per_minute{instance="a"}', values: '10x12 12x40' },
            series('paypulse_redis_replication_lag_seconds', 1, 2),
          ],
          alert_rule_test: [
            { eval_time: '55s', alertname: 'PayPulseRedisMemoryHigh', exp_alerts: [] },
            { eval_time: '55s', alertname: 'PayPulseRedisSlowCommands', exp_alerts: [] },
            { eval_time: '55s', alertname: 'PayPulseRedisReplicationLag', exp_alerts: [] },
            { eval_time: '55s', alertname: 'PayPulseRedisClientsHigh', exp_alerts: [] },
            { eval_time: '70s', alertname: 'PayPulseRedisMemoryHigh', exp_alerts: [alert('warn', 'Redis uses 85% of maxmemory (> 80 %)')] },
            { eval_time: '70s', alertname: 'PayPulseRedisClientsHigh', exp_alerts: [alert('warn', 'Redis has 81% of maxclients connected (> 80 %)')] },
            { eval_time: '70s', alertname: 'PayPulseRedisSlowCommands', exp_alerts: [] },
            { eval_time: '190s', alertname: 'PayPulseRedisSlowCommands', exp_alerts: [alert('warn', 'Redis logs 12 slow commands a minute from other clients (> 10 for 2 minutes)')] },
            { eval_time: '70s', alertname: 'PayPulseRedisReplicationLag', exp_alerts: [alert('major', 'a Redis replica lags 2 s behind its primary (> 1 s)')] },
          ],
        }],
      };
      writeFileSync(join(dir, 'tests.yml'), stringify(tests));
      const run = spawnSync('promtool', ['test', 'rules', join(dir, 'tests.yml')], { encoding: 'utf8' });
      expect(run.stdout + run.stderr).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
