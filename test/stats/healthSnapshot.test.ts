// The health snapshot on every engine: one refresh reads every channel's windows; a failing store keeps the
// last snapshot and says so; refreshes never overlap; a channel's dims series come from this process and the store.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { KnownSeries } from '../../src/stats/knownSeries.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import type { StatsStore } from '../../src/store/ports/stats.js';
import { startRedis } from '../support/redisServer.js';
import { start, statsEngines } from '../support/statsEngines.js';

const cases = statsEngines({ cluster: false });

describe.each(cases)('health snapshot on $name', (engine) => {
  it('holds every channel seen, each with every configured window', async () => {
    const { pulse, clock } = await engine.make({ windows: ['1m', '5m'] });
    try {
      expect(await pulse.snapshots.refresh()).toMatchObject({ channels: new Map() });
      const outcomes = [
        ...Array.from({ length: 30 }, (_, i) => ({ channel: 'alipay', requestId: `a${i}`, status: 'success' as const, at: start - 200_000 + i })),
        ...Array.from({ length: 10 }, (_, i) => ({ channel: 'alipay', requestId: `f${i}`, status: 'failure' as const, at: start - 1000 })),
        { channel: 'bank-x', requestId: 'b1', status: 'success' as const, at: start - 1000 },
      ];
      await pulse.recordMany(outcomes);
      clock.advance(1000);
      const snapshot = (await pulse.snapshots.refresh())!;
      expect(snapshot.asOf).toBe(start + 1000);
      expect([...snapshot.channels.keys()].sort()).toEqual(['alipay', 'bank-x']);
      const alipay = snapshot.channels.get('alipay')!;
      expect(alipay.rates['1m']).toMatchObject({ total: 10, success: 0, window: '1m' });
      expect(alipay.rates['5m']).toMatchObject({ total: 40, success: 30, rate: 0.75 });
      expect(pulse.snapshots.latest()).toBe(snapshot);
      expect(pulse.snapshots.status()).toMatchObject({ lastAsOf: start + 1000, failing: false });
    } finally {
      await pulse.close();
    }
  });

  it('tells listeners of each new snapshot, and joins a refresh already running', async () => {
    const { pulse } = await engine.make();
    try {
      const seen: number[] = [];
      const unsubscribe = pulse.snapshots.onSnapshot((s) => seen.push(s.asOf));
      const [a, b] = await Promise.all([pulse.snapshots.refresh(), pulse.snapshots.refresh()]);
      expect(a).toBe(b);
      expect(seen).toHaveLength(1);
      unsubscribe();
      await pulse.snapshots.refresh();
      expect(seen).toHaveLength(1);
    } finally {
      await pulse.close();
    }
  });
});

describe('health snapshot while the store fails', () => {
  it('keeps the last snapshot, reports failing once, and recovers', async () => {
    const redis = await startRedis();
    const clock = new ManualClock(start);
    const pulse = await createPulse({ redis: redis.url, namespace: 'snap', clock, recordTimeoutMs: 200 });
    try {
      await pulse.record({ channel: 'wallet', requestId: 'w1', status: 'success', at: start - 1000 });
      const first = (await pulse.snapshots.refresh())!;
      expect(first.channels.get('wallet')!.rates['5m']).toMatchObject({ total: 1 });
      await redis.kill();
      expect(await pulse.snapshots.refresh()).toBeUndefined();
      expect(pulse.snapshots.latest()).toBe(first);
      expect(pulse.snapshots.status()).toMatchObject({ failing: true, lastAsOf: start });
      await redis.start();
      await pulse.record({ channel: 'wallet', requestId: 'w2', status: 'success', at: start - 500 });
      clock.advance(1000);
      let next: Awaited<ReturnType<typeof pulse.snapshots.refresh>>;
      // The client reconnects on its own schedule; the first refreshes after the restart may still fail.
      for (let i = 0; i < 100 && !(next = await pulse.snapshots.refresh()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(next!.asOf).toBe(start + 1000);
      expect(pulse.snapshots.status()).toMatchObject({ failing: false, lastAsOf: start + 1000 });
    } finally {
      await pulse.close();
      await redis.stop();
    }
  });
});

describe('health snapshot with series listed from the store', () => {
  it("reads this process's series at once, another's from the refresh after its list, and keeps both while listing fails", async () => {
    const clock = new ManualClock(start);
    const settings = resolveSettings({ windows: ['1m'], dimensions: [['method']] });
    const store = new MemoryStatsStore(settings);
    let listing: 'works' | 'fails' = 'works';
    const lists: Pick<StatsStore, 'listSeries'> = {
      listSeries: (channels, sinceMs) => (listing === 'works' ? store.listSeries(channels, sinceMs) : Promise.reject(new Error('store down'))),
    };
    const known = new KnownSeries({ dimensions: [['method']], horizonMs: settings.horizonMs, store: lists }, () => clock.now());
    const snapshots = createHealthSnapshots({ store, clock, windows: ['1m'], minSamples: 1, horizonMs: settings.horizonMs, intervalMs: 1000, series: known });
    // Another process records `method=bank` into the store; this one has seen `method=card` itself.
    const other = new SuccessRateEngine(store, settings, clock);
    try {
      await other.recordMany([{ channel: 'c', requestId: 'r1', status: 'failure', at: start - 1000, dims: { method: 'bank' } }]);
      known.observe([{ channel: 'c', at: start - 500, dims: { method: 'card' } }]);
      const ids = async () => (await snapshots.refresh())!.channels.get('c')!.series.map((s) => s.id);
      expect(await ids()).toEqual(['method=card']);
      clock.advance(1000);
      const snapshot = (await snapshots.refresh())!;
      expect(snapshot.channels.get('c')!.series.map((s) => [s.id, s.rates['1m']!.failure])).toEqual([['method=bank', 1], ['method=card', 0]]);

      listing = 'fails';
      clock.advance(10_000);
      expect(await ids()).toEqual(['method=bank', 'method=card']);
      expect(snapshots.status().failing).toBe(false);
    } finally {
      await other.close();
    }
  });
});
