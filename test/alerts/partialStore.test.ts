// Alert evaluation when part of the coordination store cannot be read (a Redis Cluster master down holds some
// channels' keys): the readable channels are still evaluated, the unreadable ones keep showing what they
// showed, and evaluation pauses only when no channel can be read.
import { describe, expect, it } from 'vitest';
import { createAlertEvaluator } from '../../src/alerts/evaluator.js';
import { resolveAlertRules, windowsNeeded } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { dropAt, SteadyTraffic } from '../../src/sim/steadyTraffic.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import { RecordingSink, fleetStart } from './fleet.js';

const minutes = (n: number) => n * 60_000;

/** A coordination store whose keys of the named channels are unreachable, as on a dead cluster node. */
class PartlyDownCoordination extends MemoryCoordinationStore {
  readonly down = new Set<string>();
  override async readStates(keys: string[]) {
    if (keys.some((k) => [...this.down].some((c) => k.includes(c)))) throw new Error('CLUSTERDOWN The cluster is down');
    return super.readStates(keys);
  }
}

describe('alert evaluation with part of the store unreadable', () => {
  it('evaluates the readable channels, keeps the unreadable ones as they were, pauses only when none can be read', async () => {
    const clock = new ManualClock(fleetStart);
    const rules = resolveAlertRules({});
    const settings = resolveSettings({ windows: ['1m', '5m', '1h'] });
    const stats = new MemoryStatsStore(settings);
    const coordination = new PartlyDownCoordination(clock);
    const engine = new SuccessRateEngine(stats, settings, clock);
    const snapshots = createHealthSnapshots({
      store: stats, clock, windows: [...settings.windows, ...windowsNeeded(rules)], minSamples: settings.minSamples,
      horizonMs: settings.horizonMs, intervalMs: rules.evaluateEveryMs, series: { seriesOf: () => [] },
    });
    const sink = new RecordingSink();
    const evaluator = createAlertEvaluator({ rules, namespace: 'paypulse', snapshots, coordination, clock, sink });
    const drop = fleetStart + minutes(6);
    const recovery = drop + minutes(3);
    const traffic = new SteadyTraffic([
      { name: 'acq-up', perMinute: 600, successAt: dropAt(drop, 0.4, 0.97, recovery) },
      { name: 'acq-down', perMinute: 600, successAt: dropAt(drop, 0.4, 0.97, recovery) },
    ], 7);
    const drive = async (untilMs: number) => {
      const reports = [];
      while (clock.now() < fleetStart + untilMs) {
        const from = clock.now();
        clock.advance(5_000);
        await engine.recordMany(traffic.between(from, clock.now()));
        reports.push(await evaluator.evaluate(await snapshots.refresh()));
      }
      return reports;
    };
    try {
      await drive(minutes(8));
      expect(evaluator.active().map((a) => a.channel)).toEqual(['acq-down', 'acq-up']);

      coordination.down.add('acq-down');
      const before = evaluator.status().storeErrors;
      const reports = await drive(minutes(16));
      expect(reports.every((r) => r.evaluated)).toBe(true);
      expect(evaluator.status().paused).toBe(false);
      expect(evaluator.status().storeErrors).toBeGreaterThan(before);
      // acq-up recovered and resolved; acq-down's state was never read, so it neither resolved nor vanished.
      const resolved = sink.notifications.filter((n) => n.transition === 'resolved').map((n) => n.channel);
      expect(resolved).toEqual(['acq-up']);
      expect(evaluator.active().map((a) => a.channel)).toEqual(['acq-down']);

      coordination.down.add('acq-up');
      const [whole] = await drive(minutes(16) + 5_000);
      expect(whole).toMatchObject({ evaluated: false, reason: 'store-error' });
      expect(evaluator.status().paused).toBe(true);

      coordination.down.clear();
      await drive(minutes(18));
      expect(sink.notifications.filter((n) => n.transition === 'resolved').map((n) => n.channel)).toEqual(['acq-up', 'acq-down']);
      expect(evaluator.active()).toEqual([]);
    } finally {
      await stats.close();
    }
  }, 60_000);
});
