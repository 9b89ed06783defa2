// Each channel's dims series, marked by whichever process records them and listed for every process (the
// health snapshot of an instance that ingests nothing still reads `method=bank`), on every engine: per
// channel, oldest mark first, bounded by count and by the dedup horizon; on a cluster each channel's list
// lives on its own slot.
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../../src/stats/settings.js';
import { clusterSlot } from '../../../src/store/keys/clusterSlot.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { MemoryStatsStore } from '../../../src/store/memory/statsStore.js';
import { seriesSeenMax, type StatsStore } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import { useRedisServers } from '../../support/statsEngines.js';

const start = Date.UTC(2026, 0, 1, 12, 0, 0);
/** Longer than the Redis engine's mark interval (ten seconds), so each step's marks reach the store. */
const step = 11_000;

interface EngineCase {
  name: string;
  /** Two processes' stores over the same data: two connections on Redis, one store in memory. */
  open(namespace: string): Promise<{ stores: [StatsStore, StatsStore]; connection?: RedisConnection; close(): Promise<void> }>;
}

const servers = useRedisServers();

const settingsFor = (namespace: string) => resolveSettings({ namespace, windows: ['1m', '1h'] });
const onRedis = (url: () => string) => async (namespace: string) => {
  const connect = () => RedisConnection.connect({ url: url(), commandTimeoutMs: 5_000, connectTimeoutMs: 10_000 });
  const [a, b] = [await connect(), await connect()];
  const settings = settingsFor(namespace);
  return {
    stores: [new RedisStatsStore(a, settings), new RedisStatsStore(b, settings)] as [StatsStore, StatsStore],
    connection: a,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
};
const engines: EngineCase[] = [
  {
    name: 'memory',
    open: async (namespace) => {
      const store = new MemoryStatsStore(settingsFor(namespace));
      return { stores: [store, store], close: async () => undefined };
    },
  },
  { name: 'redis', open: onRedis(() => servers.redis!.url) },
  { name: 'cluster', open: onRedis(() => servers.cluster!.urls.join(',')) },
];

let namespaces = 0;

describe.each(engines)('series seen: $name', (engine) => {
  it("lists each channel's series, whichever process marked them, oldest first", async () => {
    const namespace = `ss${process.pid}-${++namespaces}`;
    const { stores, close } = await engine.open(namespace);
    const [a, b] = stores;
    try {
      const channels = ['alipay', 'заказ-№42', 'a{b}c', ...Array.from({ length: 12 }, (_, i) => `ch${i}`)];
      await a.touchChannels(channels.map((channel) => ({ channel, series: ['method=card'] })), start, 5_000);
      await b.touchChannels([{ channel: 'alipay', series: ['method=bank', 'currency=BRL,method=bank'] }, { channel: 'quiet', series: [] }], start + step, 5_000);

      const lists = await b.listSeries([...channels, 'quiet', 'never-seen'], start - 1, start + step);
      expect(lists[0]).toEqual([
        { series: 'method=card', lastSeenMs: start },
        { series: 'currency=BRL,method=bank', lastSeenMs: start + step },
        { series: 'method=bank', lastSeenMs: start + step },
      ]);
      for (const list of lists.slice(1, channels.length)) expect(list).toEqual([{ series: 'method=card', lastSeenMs: start }]);
      expect(lists.slice(channels.length)).toEqual([[], []]);
      expect(await a.listChannels(start - 1, start + step)).toEqual([...channels, 'quiet'].sort());
      // Since: the marks before it are left out.
      expect(await a.listSeries(['alipay'], start + 1, start + step)).toEqual([lists[0]!.slice(1)]);

      // A later mark moves a series forward, never back.
      await a.touchChannels([{ channel: 'alipay', series: ['method=card'] }], start + 2 * step, 5_000);
      await a.touchChannels([{ channel: 'alipay', series: ['method=bank'] }], start + step - 5, 5_000); // a clock behind
      expect((await a.listSeries(['alipay'], start - 1, start + 2 * step))[0]).toEqual([
        { series: 'currency=BRL,method=bank', lastSeenMs: start + step },
        { series: 'method=bank', lastSeenMs: start + step },
        { series: 'method=card', lastSeenMs: start + 2 * step },
      ]);
    } finally {
      await close();
    }
  }, 60_000);

  it('keeps the newest seriesSeenMax a channel, and none past the dedup horizon', async () => {
    const namespace = `ss${process.pid}-${++namespaces}`;
    const { stores, connection, close } = await engine.open(namespace);
    const [a] = stores;
    const horizonMs = settingsFor(namespace).horizonMs;
    try {
      const users = Array.from({ length: seriesSeenMax + 20 }, (_, i) => `user=u${String(i).padStart(3, '0')}`);
      // In two marks, the first 20 the oldest.
      await a.touchChannels([{ channel: 'c', series: users.slice(0, 20) }], start, 5_000);
      await a.touchChannels([{ channel: 'c', series: users.slice(20) }], start + step, 5_000);
      const kept = (await a.listSeries(['c'], 0, start + step))[0]!;
      expect(kept).toHaveLength(seriesSeenMax);
      expect(kept.map((s) => s.series).sort()).toEqual(users.slice(20));

      await a.touchChannels([{ channel: 'c', series: ['user=late'] }], start + step + horizonMs + 1, 5_000);
      expect((await a.listSeries(['c'], 0, start + step + horizonMs + 1))[0]).toEqual([{ series: 'user=late', lastSeenMs: start + step + horizonMs + 1 }]);

      if (connection) {
        // On the channel's slot, and gone a horizon after its last mark (the key's TTL).
        const key = `${channelPrefix(namespace, 'c')}seen`;
        expect(clusterSlot(key)).toBe(clusterSlot(channelPrefix(namespace, 'c')));
        const ttl = Number(await connection.command(key, ['PTTL', key]));
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(horizonMs);
      }
    } finally {
      await close();
    }
  }, 60_000);
});
