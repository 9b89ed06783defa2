// A 6 h / 30 m burn-rate pair: the engine answers 2 h at most, so the 6 h window is summed from per-minute
// counts, the last two hours from the live store and the rest from the history store (PGlite here), copied
// there by the real snapshot job.
import { describe, expect, it } from 'vitest';
import { createAlerts, type AlertNotification } from '../../src/alerts/index.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { createHistoryStore } from '../../src/history/historyStore.js';
import { startSnapshotJob } from '../../src/history/index.js';
import { migrate } from '../../src/history/migrate.js';
import { openPglite } from '../../src/history/pgliteClient.js';
import { dropAt, SteadyTraffic } from '../../src/sim/steadyTraffic.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import { ValidationError } from '../../src/errors.js';

const hour = 3_600_000;

describe('burn-rate windows past 2 h', () => {
  it('fires 6h/30m only when the whole 6 h (history included) burns 6× the budget', async () => {
    const start = Date.UTC(2026, 6, 1, 0);
    const clock = new ManualClock(start);
    const settings = resolveSettings({ windows: ['1m', '5m', '30m', '1h'] });
    const store = new MemoryStatsStore(settings);
    const engine = new SuccessRateEngine(store, settings, clock);
    const db = await openPglite();
    await migrate(db);
    const history = createHistoryStore(db);
    const job = startSnapshotJob({ pulse: engine, history, clock, intervalMs: 3_600_000, lookbackMinutes: 10 });
    const rules = resolveAlertRules({ evaluateEvery: '10s', silent: false, burnRate: { target: 0.95, pairs: [['6h', '30m', 6]] } });
    const snapshots = createHealthSnapshots({ store, clock, windows: ['1m', '5m', '30m', '1h'], minSamples: 100, horizonMs: settings.horizonMs, intervalMs: 10_000 });
    const alerts = createAlerts({
      rules, namespace: 'long', snapshots, coordination: new MemoryCoordinationStore(clock), clock,
      minutes: { live: (c, r) => engine.minutes(c, r), history: (c, r) => history.minutes(c, r), liveRetentionMs: settings.retentionMs, minSamples: 100 },
    });
    const burns: AlertNotification[] = [];
    alerts.onTransition((n) => n.rule === 'burn' && burns.push(n));
    // 97 % for 3 h, then 10 %: the 6 h window's errors pass 30 % after 1.35 h more (at 4.35 h); a 6 h
    // window that saw only the live store's last 2 h would pass it at 3.6 h.
    const traffic = new SteadyTraffic([{ name: 'acq', perMinute: 60, successAt: dropAt(start + 3 * hour, 0.1) }], 9);
    const driveTo = async (untilMs: number) => {
      while (clock.now() < untilMs) {
        const from = clock.now();
        clock.advance(10_000);
        await engine.recordMany(traffic.between(from, clock.now()));
        if ((clock.now() - start) % 600_000 === 0) await job.runOnce();
        await snapshots.refresh();
        await alerts.evaluate();
      }
    };
    try {
      await driveTo(start + 4.2 * hour);
      expect(burns).toEqual([]);
      await driveTo(start + 4.6 * hour);
      expect(burns.map((n) => `${n.transition}:${n.level}`)).toEqual(['firing:critical']);
      expect(burns[0]!.at).toBeGreaterThan(start + 4.3 * hour);
    } finally {
      await job.stop();
      await alerts.stop();
      await engine.close();
      await history.close();
    }
  }, 120_000);

  it('refuses a window past the live store without a history store, naming the pair', () => {
    const rules = resolveAlertRules({ burnRate: { target: 0.95, pairs: [['1h', '5m', 14.4], ['6h', '30m', 6]] } });
    const settings = resolveSettings({});
    const clock = new ManualClock();
    const store = new MemoryStatsStore(settings);
    const snapshots = createHealthSnapshots({ store, clock, windows: ['1m'], minSamples: 100, horizonMs: 1, intervalMs: 1 });
    const alerts = createAlerts({ rules, namespace: 'x', snapshots, coordination: new MemoryCoordinationStore(clock), clock,
      minutes: { live: async () => [], liveRetentionMs: settings.retentionMs, minSamples: 100 } });
    expect(() => alerts.start()).toThrow(ValidationError);
    expect(() => alerts.start()).toThrow(/pairs\[1\] 6h is longer than the live store keeps/);
    alerts.attachHistory({ alerts: { record: async () => undefined, list: async () => [], prune: async () => 0 }, minutes: async () => [] });
    expect(() => alerts.start()).not.toThrow();
    void alerts.stop();
  });
});
