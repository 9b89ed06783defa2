// Per-dims alerts across a fleet: instance A records a channel's outcomes, `method=bank` failing; instance B
// records nothing of it, yet its snapshot reads the `method=bank` series and its evaluation raises the alert,
// because A marks the channel's series in the store and B lists them from there (StatsStore.listSeries).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse, type Pulse } from '../../src/pulse.js';
import type { Outcome } from '../../src/types.js';
import { eventually } from '../kit/engines.js';
import { fileRedis, fleetEngines, fleetStart } from './fleet.js';

const redis = fileRedis();

/** 600 outcomes over the last minute: `method=bank` 90 % failures, `method=card` all successes. */
function traffic(channel: string, now: number): Outcome[] {
  return Array.from({ length: 600 }, (_, i) => {
    const bank = i % 2 === 0;
    return { channel, requestId: `r-${i}`, status: bank && i % 20 !== 0 ? 'failure' : 'success', at: now - 59_000 + i * 90, dims: { method: bank ? 'bank' : 'card' } };
  });
}

/** A refresh, and the evaluation the alerts run on it (they listen to the snapshot). */
async function evaluated(pulse: Pulse) {
  const snapshot = (await pulse.snapshots.refresh())!;
  await eventually(async () => (await pulse.alerts!.evaluate(), pulse.alerts!.status().lastEvaluatedAt === snapshot.asOf), 10_000);
  return { snapshot, alerts: pulse.alerts!.active().map((a) => a.id).sort() };
}

describe('per-dims series shared through the store', () => {
  it('createPulse on one Redis: B, which records nothing, evaluates the method=bank series A recorded', async () => {
    const clock = new ManualClock(fleetStart);
    const options = { redis: redis().url, namespace: `shared${process.pid}`, clock, dimensions: [['method']], alerts: { silent: false as const, log: false } };
    const [a, b] = [await createPulse(options), await createPulse(options)];
    try {
      await a.recordMany(traffic('acq', clock.now()));
      clock.advance(1_000);

      const seenByA = await evaluated(a);
      expect(seenByA.alerts).toEqual(['rate/@acq', 'rate/method=bank@acq']);

      const seenByB = await evaluated(b);
      const acq = seenByB.snapshot.channels.get('acq')!;
      expect(acq.series.map((s) => s.id)).toEqual(['method=bank', 'method=card']);
      // The same counts A reads: the store's, whichever instance asks.
      expect(acq.series).toEqual(seenByA.snapshot.channels.get('acq')!.series);
      expect(acq.series[0]!.rates['1m']!.failure).toBeGreaterThan(200);
      expect(seenByB.alerts).toEqual(['rate/@acq', 'rate/method=bank@acq']);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  // Two createPulse calls without Redis each open an embedded store of their own, so they share nothing;
  // processes sharing one embedded store are the fleet harness's, which gives each its KnownSeries.
  const memory = fleetEngines().find((e) => e.name === 'memory')!;
  it('on one embedded store: B lists the series A recorded', async () => {
    const fleet = await memory.open({ instances: 2, dimensions: [['method']], alerts: { silent: false, log: false } });
    try {
      const [a, b] = fleet.instances;
      await a!.engine.recordMany(traffic('acq', fleet.clock.now()));
      fleet.clock.advance(1_000);
      const snapshot = await b!.snapshots.refresh();
      expect(snapshot!.channels.get('acq')!.series.map((s) => s.id)).toEqual(['method=bank', 'method=card']);
      await b!.evaluator.evaluate(snapshot);
      expect(b!.evaluator.active().map((x) => x.id).sort()).toEqual(['rate/@acq', 'rate/method=bank@acq']);
    } finally {
      await fleet.close();
    }
  }, 60_000);
});
