// A Redis Cluster is only as down as its dead node: three masters (`cluster-require-full-coverage no`), one
// killed with SIGKILL. Channels on the other masters record and read as before, the dead master's channels are
// buffered and flagged stale, /readyz stays ready and says which share of slots is unreachable; once the master
// is back (empty: no persistence) the buffered outcomes are written, each counted exactly once.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSlot } from '../../src/store/keys/clusterSlot.js';
import { channelPrefix, channelsKey } from '../../src/store/keys/stats.js';
import type { Outcome } from '../../src/types.js';
import { eventually } from '../kit/engines.js';
import { makeApp, post, type Engine, type TestApp } from '../server/harness.js';
import { startCluster, type LocalCluster } from '../support/redisServer.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster(3, { extraArgs: ['--cluster-require-full-coverage', 'no'] });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const namespace = `kill${randomBytes(3).toString('hex')}`;
const clusterEngine: Engine = {
  name: 'redis',
  start: async () => undefined,
  stop: async () => undefined,
  pulseOptions: () => ({ redis: cluster.urls.join(','), namespace, recordTimeoutMs: 500 }),
};

interface ChannelEntry {
  channel: string;
  stale?: boolean;
  rates: Record<string, { total: number; stale: boolean }>;
}

describe('one Redis Cluster master killed', () => {
  it('keeps the channels of the other masters recording and readable, and counts the dead one\'s outcomes once when it is back', async () => {
    // The victim serves the channel list too, the worst case: the list is one key.
    const victim = cluster.masterOfSlot(clusterSlot(channelsKey(namespace)));
    const channels = Array.from({ length: 24 }, (_, i) => `ch${i}`);
    const onVictim = channels.filter((c) => cluster.masterOfSlot(clusterSlot(channelPrefix(namespace, c))) === victim);
    const healthy = channels.filter((c) => !onVictim.includes(c));
    expect(onVictim.length).toBeGreaterThan(0);
    expect(healthy.length).toBeGreaterThan(0);

    const t: TestApp = await makeApp(clusterEngine);
    const { app, pulse, clock } = t;
    let sequence = 0;
    const round = (): Outcome[] => channels.map((channel) => ({ channel, requestId: `r${sequence++}`, status: 'success', at: clock.now() - 1_000 }));
    const totals = async (names: string[]) => Promise.all(names.map(async (c) => (await pulse.rate(c, { window: '1h' })).total));
    try {
      expect((await post(app, { outcomes: round() })).json()).toMatchObject({ accepted: channels.length });
      await pulse.snapshots.refresh();
      // Remembered for the outage: the dead master's channels answer their last values, flagged stale.
      await totals(channels);

      await cluster.killMaster(victim);
      const rounds = 5;
      for (let r = 0; r < rounds; r++) {
        const reply = (await post(app, { outcomes: round() })).json() as { accepted: number; buffered: number };
        expect(reply).toMatchObject({ accepted: healthy.length, buffered: onVictim.length });
      }
      expect(pulse.health()).toMatchObject({ storeReachable: true, unreachableChannels: onVictim.length });
      expect(pulse.health().unreachableSlotShare).toBeGreaterThan(0.3);
      expect(pulse.health().unreachableSlotShare).toBeLessThan(0.35);

      // Reads of the healthy channels answer now's counts; the dead master's channels their last ones, stale.
      expect(await totals(healthy)).toEqual(healthy.map(() => 1 + rounds));
      for (const c of onVictim) expect(await pulse.rate(c, { window: '1h' })).toMatchObject({ total: 1, stale: true });

      await pulse.snapshots.refresh();
      expect(pulse.snapshots.status()).toMatchObject({ failing: false, staleChannels: onVictim.length });
      const list = (await app.inject({ method: 'GET', url: '/v1/channels' })).json() as { stale?: boolean; channels: ChannelEntry[] };
      expect(list.stale).toBeUndefined();
      expect(list.channels.map((e) => e.channel).sort()).toEqual([...channels].sort());
      for (const entry of list.channels) {
        const rate = entry.rates['1h'] ?? Object.values(entry.rates).at(-1)!;
        if (onVictim.includes(entry.channel)) expect({ stale: entry.stale, rateStale: rate.stale }).toEqual({ stale: true, rateStale: true });
        else expect({ stale: entry.stale, rateStale: rate.stale, total: rate.total }).toEqual({ stale: undefined, rateStale: false, total: 1 + rounds });
      }

      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      const readyBody = ready.json() as { unreachableSlotShare: number; checks: { store: { detail?: string } } };
      expect(readyBody.unreachableSlotShare).toBeGreaterThan(0.3);
      expect(readyBody.checks.store.detail).toMatch(/of slots unreachable/);
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toMatch(/^paypulse_redis_unreachable_slot_share 0\.3\d*$/m);
      expect(metrics).toContain(`paypulse_store_unreachable_channels ${onVictim.length}`);

      // Back, empty: what it held before the kill is gone; every outcome buffered during the outage counts once.
      await cluster.restartMaster(victim);
      await eventually(() => pulse.flushBuffer(), 30_000);
      await eventually(async () => (await post(app, { outcomes: [] })).statusCode === 200 && pulse.health().unreachableSlotShare === 0, 30_000).catch(() => undefined);
      expect(pulse.health()).toMatchObject({ storeReachable: true, unreachableChannels: 0, bufferedOutcomes: 0, droppedOutcomes: 0, unreachableSlotShare: 0 });
      expect(await totals(onVictim)).toEqual(onVictim.map(() => rounds));
      expect(await totals(healthy)).toEqual(healthy.map(() => 1 + rounds));
      await pulse.snapshots.refresh();
      expect(pulse.snapshots.status()).toMatchObject({ failing: false, staleChannels: 0 });
    } finally {
      await t.close();
    }
  }, 120_000);
});
