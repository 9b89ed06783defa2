// A store outage pauses evaluation instead of alerting on stale numbers, and evaluation resumes after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerts } from '../../src/alerts/index.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { dropAt, SteadyTraffic } from '../../src/sim/steadyTraffic.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';

let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => redis?.stop());

describe('alerts through a store outage', () => {
  it('pauses while the snapshot fails, sends nothing from stale numbers, and resumes after', async () => {
    const start = Date.UTC(2026, 5, 1, 8);
    const clock = new ManualClock(start);
    const settings = resolveSettings({ namespace: 'outage', windows: ['1m', '5m', '1h'], recordTimeoutMs: 2_000 });
    const connection = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 500 });
    const stats = new RedisStatsStore(connection, settings);
    const engine = new SuccessRateEngine(stats, settings, clock);
    const rules = resolveAlertRules({ silent: false, log: false });
    const snapshots = createHealthSnapshots({ store: stats, clock, windows: ['1m', '5m', '1h'], minSamples: 100, horizonMs: settings.horizonMs, intervalMs: 5_000 });
    const alerts = createAlerts({ rules, namespace: 'outage', snapshots, coordination: new RedisCoordinationStore(connection), clock, failures: (c, q) => engine.failures(c, q) });
    const sent: string[] = [];
    alerts.onTransition((n) => sent.push(`${n.transition}:${n.level}`));
    const traffic = new SteadyTraffic([{ name: 'acq', perMinute: 600, successAt: dropAt(start + 6 * 60_000, 0.3) }], 3);
    const step = async () => {
      const from = clock.now();
      clock.advance(5_000);
      await engine.recordMany(traffic.between(from, clock.now()));
      await snapshots.refresh();
      return alerts.evaluate();
    };
    try {
      while (clock.now() < start + 5 * 60_000) await step();
      expect(alerts.status().paused).toBe(false);
      await redis.kill();
      // The drop happens during the outage: the last snapshot says healthy, and nothing may be concluded.
      while (clock.now() < start + 8 * 60_000) expect((await step()).reason).toBe('paused');
      expect(alerts.status().paused).toBe(true);
      expect(snapshots.status().failing).toBe(true);
      expect(sent).toEqual([]);
      await redis.start();
      // The client reconnects on its own schedule (wall time); wait for it, not for any window.
      await expect.poll(async () => (await snapshots.refresh()) !== undefined, { timeout: 15_000, interval: 100 }).toBe(true);
      // The recorder, too, finds the store again on its own probe; what it buffered meanwhile is written then.
      await expect.poll(() => engine.flushBuffer(), { timeout: 15_000, interval: 100 }).toBe(true);
      expect((await step()).evaluated).toBe(true);
      expect(alerts.status().paused).toBe(false);
      while (clock.now() < start + 10 * 60_000) await step();
      expect(sent[0]).toMatch(/^firing:/);
    } finally {
      await alerts.stop();
      await engine.close();
      await connection.close();
    }
  }, 60_000);
});
