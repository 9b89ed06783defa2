// The Redis request ledger keeps itself small: a shard drops its forgotten requests the first time it
// is written in a later period, keeps the ones still within the horizon, and always carries a TTL; the
// shards grow in number with the channel, up to ledgerShards, and no request is lost as they split.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { createPulse } from '../../../src/pulse.js';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { RecordCode, StatusCode } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { ledgerField, ledgerShard } from '../../../src/store/redis/layouts.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';

const start = Date.UTC(2026, 0, 1, 12); // a period (horizon 15 min + skew 1 min) begins here
const periodOf = (at: number) => Math.floor(at / (16 * 60_000));
let redis: LocalRedis;
let admin: RedisConnection;
beforeAll(async () => {
  redis = await startRedis();
  admin = await RedisConnection.connect({ url: redis.url });
});
afterAll(async () => {
  await admin.close();
  await redis.stop();
});

/** A Lua one-liner's answer: what a shard holds, without its fields' three hash bytes (not UTF-8). */
const idsIn = async (key: string) =>
  ((await admin.command(key, ['EVAL', "local ids = {} for i, f in ipairs(redis.call('HKEYS', KEYS[1])) do ids[i] = f:sub(4) end return ids", 1, key])) as string[]).sort();

/** Every ledger shard of a channel: its key, its length and its TTL. */
async function shardsOf(prefix: string): Promise<Array<{ key: string; length: number; ttl: number }>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await admin.command(prefix, ['SCAN', cursor, 'MATCH', `${prefix}lh:*`, 'COUNT', 1000])) as [string, string[]];
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return Promise.all(keys.map(async (key) => ({ key, length: Number(await admin.command(key, ['HLEN', key])), ttl: Number(await admin.command(key, ['TTL', key])) })));
}

const ids = (count: number, name: string) => Array.from({ length: count }, (_, i) => `${name}${i}`);

describe('the Redis request ledger', () => {
  /** A pulse on a fresh namespace; its channel `c` is small enough to keep one shard, `lh:0`. */
  async function quietChannel(namespace: string) {
    const clock = new ManualClock(start);
    const pulse = await createPulse({ redis: redis.url, namespace, clock, windows: ['5m'], recordTimeoutMs: 30_000 }); // horizon 15 min
    const key = `${channelPrefix(namespace, 'c')}lh:0`;
    return {
      clock,
      pulse,
      record: (requestId: string) => pulse.record({ channel: 'c', requestId, status: 'success', at: clock.now() }),
      keys: () => idsIn(key),
      ttl: async () => Number(await admin.command(key, ['TTL', key])),
    };
  }

  it('drops forgotten requests from a shard at its first write of a later period, and keeps the rest', async () => {
    const { clock, pulse, record, keys, ttl } = await quietChannel('ledger');
    try {
      await record('old');
      clock.set(start + 10 * 60_000);
      await record('recent');
      expect(await keys()).toEqual(['old', 'recent']);
      clock.set(start + 17 * 60_000); // a new period; `old` is 17 min old, past the horizon, `recent` 7 min
      await record('next');
      expect(await keys()).toEqual(['next', 'recent']);
      expect(await ttl()).toBeGreaterThan(0);
      expect(await record('recent')).toMatchObject({ duplicate: 1 });
    } finally {
      await pulse.close();
    }
  });

  it('replaces a shard whose requests are all forgotten, and forgets a shard idle for a whole period', async () => {
    const { clock, pulse, record, keys, ttl } = await quietChannel('ledger-all');
    try {
      await record('first');
      clock.set(start + 17 * 60_000); // the next period (16 min): `first` is past the horizon, and all the shard held
      await record('second');
      expect(await keys()).toEqual(['second']);
      expect(await ttl()).toBeGreaterThan(0);

      // Unwritten for the whole next period (Redis would have expired the key by then): its requests
      // are forgotten all the same.
      clock.set(start + 50 * 60_000);
      expect(await record('third')).toMatchObject({ accepted: 1 });
      expect(await record('second')).toMatchObject({ accepted: 1 });
      expect(await pulse.rate('c', { window: '5m' })).toMatchObject({ total: 2, success: 2 });
    } finally {
      await pulse.close();
    }
  });

  it("marks each period's written shards in one bitmap with its TTL, a byte per 8 of the channel's shards, kept across calls", async () => {
    const clock = new ManualClock(start);
    const namespace = 'ledger-bits';
    const pulse = await createPulse({ redis: redis.url, namespace, clock, windows: ['5m'], recordTimeoutMs: 30_000 });
    const prefix = channelPrefix(namespace, 'c');
    const bitmapAt = (at: number) => `${prefix}lm:${periodOf(at)}`;
    try {
      // Several channels in one call, then a second call: the second must not start the bitmap again.
      await pulse.recordMany(['c', 'd', 'e'].map((channel) => ({ channel, requestId: 'a', status: 'success' as const, at: clock.now() })));
      await pulse.record({ channel: 'c', requestId: 'b', status: 'success', at: clock.now() });
      const bitmap = bitmapAt(start);
      expect(Number(await admin.command(bitmap, ['STRLEN', bitmap]))).toBe(1); // one shard: one byte
      expect(Number(await admin.command(bitmap, ['GETBIT', bitmap, 0]))).toBe(1);
      expect(Number(await admin.command(bitmap, ['TTL', bitmap]))).toBeGreaterThan(0);

      // Grown to many shards, the next period's bitmap starts with a bit for each.
      await pulse.recordMany(ids(2_000, 'g').map((requestId) => ({ channel: 'c', requestId, status: 'success' as const, at: clock.now() })));
      const shards = (await shardsOf(prefix)).length;
      expect(shards).toBeGreaterThan(16);
      const next = start + 16 * 60_000;
      clock.set(next);
      await pulse.record({ channel: 'c', requestId: 'late', status: 'success', at: next });
      expect(Number(await admin.command(bitmapAt(next), ['STRLEN', bitmapAt(next)]))).toBe(Math.ceil(shards / 8));
    } finally {
      await pulse.close();
    }
  });

  it('splits its shards as the channel grows, keeps every request exactly once, and each shard small and expiring', async () => {
    const clock = new ManualClock(start);
    const namespace = 'ledger-grows';
    const pulse = await createPulse({ redis: redis.url, namespace, clock, windows: ['5m'], recordTimeoutMs: 30_000 });
    const prefix = channelPrefix(namespace, 'c');
    const outcomes = ids(5_000, 'r').map((requestId) => ({ channel: 'c', requestId, status: 'success' as const, at: clock.now() }));
    try {
      for (let i = 0; i < outcomes.length; i += 500) expect(await pulse.recordMany(outcomes.slice(i, i + 500))).toMatchObject({ accepted: 500 });
      const shards = await shardsOf(prefix);
      const splits = Number(await admin.command(`${prefix}lsplits`, ['GET', `${prefix}lsplits`]));
      expect(shards.length).toBe(1 + 3 * splits);
      expect(shards.reduce((sum, s) => sum + s.length, 0)).toBe(5_000);
      expect(Math.max(...shards.map((s) => s.length))).toBeLessThanOrEqual(128);
      expect(Math.min(...shards.map((s) => s.ttl))).toBeGreaterThan(0);
      expect(Number(await admin.command(`${prefix}lsplits`, ['TTL', `${prefix}lsplits`]))).toBeGreaterThan(0);
      // The client's copy of the addressing (the shard keys it sends) puts each request where the script did.
      const layout = ledgerShard.layout(splits, resolveSettings({}).ledgerShards);
      for (const { requestId } of outcomes.slice(0, 200)) {
        const hash = hashId(requestId);
        const key = ledgerShard.key(prefix, ledgerShard.of(ledgerField.hashBits(hash), layout));
        expect([requestId, Number(await admin.command(key, ['HEXISTS', key, ledgerField.encode(hash, requestId)]))]).toEqual([requestId, 1]);
      }

      expect(await pulse.recordMany(outcomes.slice(0, 2_500))).toMatchObject({ duplicates: 2_500 });
      expect(await pulse.recordMany(outcomes.slice(2_500))).toMatchObject({ duplicates: 2_500 });
      expect(await pulse.rate('c', { window: '5m' })).toMatchObject({ total: 5_000, success: 5_000 });
    } finally {
      await pulse.close();
    }
  });

  it('times out a pending request whose shard split after it was recorded, and finds it again afterwards', async () => {
    const clock = new ManualClock(start);
    const namespace = 'ledger-pending';
    const pulse = await createPulse({ redis: redis.url, namespace, clock, windows: ['5m'], pendingTimeoutMs: 60_000, recordTimeoutMs: 30_000 });
    try {
      await pulse.record({ channel: 'c', requestId: 'waiting', status: 'pending', at: start });
      await pulse.recordMany(ids(2_000, 'r').map((requestId) => ({ channel: 'c', requestId, status: 'success' as const, at: start })));
      clock.set(start + 90_000);
      expect(await pulse.rate('c', { window: '5m' })).toMatchObject({ success: 2_000, failure: 1, pending: 0 });
      expect(await pulse.failures('c', { window: '5m' })).toEqual([expect.objectContaining({ requestId: 'waiting', code: 'timeout' })]);
      expect(await pulse.record({ channel: 'c', requestId: 'waiting', status: 'success', at: clock.now() })).toMatchObject({ corrected: 1 });
    } finally {
      await pulse.close();
    }
  });

  it('stops splitting at ledgerShards, and stays exact past it', async () => {
    const settings = { ...resolveSettings({ namespace: 'ledger-cap', windows: ['5m'] }), ledgerShards: 16 };
    const store = new RedisStatsStore(admin, settings);
    const prefix = channelPrefix(settings.namespace, 'c');
    const outcomes = ids(3_000, 'r').map((requestId) => ({ requestId, status: StatusCode.Success, at: start, code: '', series: [''], hash: hashId(requestId) }));
    for (let i = 0; i < outcomes.length; i += 500) await store.recordBatch('c', outcomes.slice(i, i + 500), start, 5_000);
    expect(Number(await admin.command(`${prefix}lsplits`, ['GET', `${prefix}lsplits`]))).toBe(5);
    const shards = await shardsOf(prefix);
    expect(shards.length).toBe(16);
    expect(shards.reduce((sum, s) => sum + s.length, 0)).toBe(3_000);
    const again = await store.recordBatch('c', outcomes.slice(0, 500), start, 5_000);
    expect(again.every((code) => code === RecordCode.Duplicate)).toBe(true);
  });
});
