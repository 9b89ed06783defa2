// The health snapshot on every engine: one refresh reads every channel's windows; a failing store keeps the
// last snapshot and says so; refreshes never overlap.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
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
