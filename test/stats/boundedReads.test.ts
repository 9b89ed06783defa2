// Reads never create lasting state for a name the store has not seen, and the last-known values that
// answer reads during an outage are bounded: reading made-up channel names must not grow the process.
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import { StatusCode } from '../../src/store/ports/stats.js';
import { statsEngines, start } from '../support/statsEngines.js';

const unknownNames = (n: number) => Array.from({ length: n }, (_, i) => `never-written-${i}`);

describe('the embedded store', () => {
  it('answers reads of unknown channels and series with zeros without keeping anything for them', async () => {
    const store = new MemoryStatsStore(resolveSettings({}));
    const now = start;
    await store.recordBatch('alipay', [{ requestId: 'r1', status: StatusCode.Success, at: now, code: '', series: [''], hash: 1 }], now);
    expect(store.channelCount).toBe(1);
    for (const name of unknownNames(500)) {
      expect(await store.readWindows(name, '', [60, 300], now)).toEqual([
        { success: 0, failure: 0, started: 0, pending: 0 },
        { success: 0, failure: 0, started: 0, pending: 0 },
      ]);
      expect(await store.readLastN(name, '', 10, now)).toEqual({ success: 0, failure: 0 });
      expect(await store.readFailures(name, now - 60_000, now, 10)).toEqual([]);
      expect(await store.readMinutes(name, '', now - 120_000, now, now)).toHaveLength(3);
      // An unknown dims series of a known channel: the same.
      expect(await store.readWindows('alipay', `method=${name}`, [60], now)).toEqual([{ success: 0, failure: 0, started: 0, pending: 0 }]);
    }
    expect(store.channelCount).toBe(1);
    expect((await store.readWindows('alipay', '', [60], now))[0]).toMatchObject({ success: 1 });
  });
});

describe.each(statsEngines({ cluster: false }))('last known rates on $name', ({ make }) => {
  it('keeps none for reads of names never written', async () => {
    const { pulse } = await make({ dimensions: [['method']] });
    await pulse.record({ channel: 'alipay', requestId: 'r1', status: 'success', at: start });
    await pulse.rate('alipay', { window: '1m' });
    for (const name of unknownNames(300)) {
      await pulse.rate(name, { window: '1m' });
      await pulse.lastN(name, { n: 10 });
      await pulse.rate('alipay', { window: '5m', dims: { method: name } });
    }
    expect(pulse.health().lastKnownRates).toBe(1);
    await pulse.close();
  });

  it('keeps at most lastKnownLimit, the most recently read first', async () => {
    const { pulse } = await make({ lastKnownLimit: 20 });
    const channels = Array.from({ length: 60 }, (_, i) => `ch${i}`);
    await pulse.recordMany(channels.map((channel) => ({ channel, requestId: 'r', status: 'success' as const, at: start })));
    for (const channel of channels) await pulse.rate(channel, { window: '1m' });
    expect(pulse.health().lastKnownRates).toBe(20);
    await pulse.close();
  });
});
