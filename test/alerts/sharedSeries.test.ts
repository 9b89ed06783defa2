// Per-dims alerts across a fleet: instance A records a channel's outcomes, `method=bank` failing; instance B
// records nothing of it, yet its snapshot reads the `method=bank` series and its evaluation raises the alert,
// because A marks the channel's series in the store and B lists them from there (StatsStore.listSeries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse, type Pulse } from '../../src/pulse.js';
import type { Outcome } from '../../src/types.js';
import { eventually } from '../kit/engines.js';
import { startCluster, type LocalCluster } from '../support/redisServer.js';
import { fileRedis, fleetEngines, fleetStart } from './fleet.js';

const redis = fileRedis();

/** 600 outcomes over the last minute: `method=bank` 90 % failures, `method=card` all successes. */
function traffic(channel: string, now: number): Outcome[] {
  return Array.from({ length: 600 }, (_, i) => {
    const bank = i % 2 === 0;
    return { channel, requestId: `r-${i}`, status: bank && i % 20 !== 0 ? 'failure' : 'success', at: now - 59_000 + i * 90, dims: { method: bank ? 'bank' : 'card' } };
  });
}

/**
 * Two refreshes (the store's series lists asked during one serve the next), and the evaluation the alerts run on
 * the second (they listen to the snapshot).
 */
async function evaluated(pulse: Pulse, clock: ManualClock) {
  await pulse.snapshots.refresh();
  clock.advance(1_000); // the next evaluation slot
  const snapshot = (await pulse.snapshots.refresh())!;
  await eventually(async () => (await pulse.alerts!.evaluate(), pulse.alerts!.status().lastEvaluatedAt === snapshot.asOf), 10_000);
  return { snapshot, alerts: pulse.alerts!.active().map((a) => a.id).sort() };
}

const cluster: { servers?: LocalCluster } = {};
beforeAll(async () => {
  cluster.servers = await startCluster();
}, 60_000);
afterAll(async () => cluster.servers?.stop());

const stores = [
  { name: 'one Redis', url: () => redis().url },
  { name: 'one Redis Cluster', url: () => cluster.servers!.urls.join(',') },
];

describe('per-dims series shared through the store', () => {
  it.each(stores)('createPulse on $name: B, which records nothing, evaluates the method=bank series A recorded', async (store) => {
    const clock = new ManualClock(fleetStart);
    const options = { redis: store.url(), namespace: `shared${process.pid}`, clock, dimensions: [['method']], alerts: { evaluateEvery: '1s', silent: false as const, log: false } };
    const [a, b] = [await createPulse(options), await createPulse(options)];
    try {
      // Several channels, so a cluster's series calls carry channels of several slots and nodes.
      for (const channel of ['acq', 'wallet-7', 'bank.x']) await a.recordMany(traffic(channel, clock.now()));
      clock.advance(1_000);

      const seenByA = await evaluated(a, clock);
      expect(seenByA.alerts).toContain('rate/method=bank@acq');

      const seenByB = await evaluated(b, clock);
      const acq = seenByB.snapshot.channels.get('acq')!;
      expect(acq.series.map((s) => s.id)).toEqual(['method=bank', 'method=card']);
      // The same counts A reads: the store's, whichever instance asks.
      expect(acq.series).toEqual((await a.snapshots.refresh())!.channels.get('acq')!.series);
      expect(acq.series[0]!.rates['1m']!.failure).toBeGreaterThan(200);
      expect(seenByB.alerts).toEqual(seenByA.alerts);
      for (const channel of ['wallet-7', 'bank.x']) expect(seenByB.snapshot.channels.get(channel)!.series.map((s) => s.id)).toEqual(['method=bank', 'method=card']);

      // A new series of A's reaches B with B's next list of the channel (at most every 10 s, not at every snapshot),
      // read at the refresh after that list.
      clock.advance(4_000);
      await a.record({ channel: 'acq', requestId: 'pix-1', status: 'success', at: clock.now(), dims: { method: 'pix' } });
      const ids = async () => (await b.snapshots.refresh())!.channels.get('acq')!.series.map((s) => s.id);
      expect(await ids()).toEqual(['method=bank', 'method=card']);
      clock.advance(6_000);
      expect(await ids()).toEqual(['method=bank', 'method=card']); // asked now, read at the next refresh
      clock.advance(1_000);
      expect(await ids()).toEqual(['method=bank', 'method=card', 'method=pix']);
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
      expect((await b!.snapshots.refresh())!.channels.get('acq')!.series).toEqual([]); // the lists asked serve the next refresh
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
