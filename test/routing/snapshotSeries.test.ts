import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';

describe('health snapshot series ids', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });

  it('names each dims series by its id, so readers can tell series with equal dims apart', async () => {
    const clock = new ManualClock();
    const settings = resolveSettings({ dimensions: [['method']] });
    const store = new MemoryStatsStore(settings);
    const engine = new SuccessRateEngine(store, settings, clock);
    closers.push(() => engine.close());
    await engine.recordMany([
      { channel: 'a', requestId: '1', status: 'success', at: clock.now(), dims: { method: 'card' } },
      { channel: 'a', requestId: '2', status: 'failure', at: clock.now(), dims: { method: 'card' } },
    ]);
    const snapshots = createHealthSnapshots({
      store,
      clock,
      windows: ['1m'],
      minSamples: 1,
      horizonMs: settings.horizonMs,
      intervalMs: 1000,
      series: { seriesOf: () => [{ id: 'method=card', dims: { method: 'card' } }] },
    });
    const snap = await snapshots.refresh();
    const a = snap!.channels.get('a')!;
    expect(a.series).toHaveLength(1);
    expect(a.series[0]!.id).toBe('method=card');
    expect(a.series[0]!.rates['1m']!.total).toBe(2);
    expect(a.id).toBeUndefined();
  });
});
