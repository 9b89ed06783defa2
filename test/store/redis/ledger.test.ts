// The Redis request ledger keeps itself small: a shard drops its forgotten requests the first time it
// is written in a later period, keeps the ones still within the horizon, and always carries a TTL; each
// period's bitmap of written shards is made whole once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { createPulse } from '../../../src/pulse.js';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';

const start = Date.UTC(2026, 0, 1, 12); // a period (horizon 15 min + skew 1 min) begins here
let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

/** `count` request ids that share one ledger shard, and that shard. */
function idsInOneShard(count: number): { ids: string[]; shard: number } {
  const { ledgerShards } = resolveSettings({});
  const shard = hashId('r0') % ledgerShards;
  const ids = ['r0'];
  for (let i = 1; ids.length < count; i++) if (hashId(`r${i}`) % ledgerShards === shard) ids.push(`r${i}`);
  return { ids, shard };
}

/** A pulse, three request ids that share one ledger shard, and what that shard holds. */
async function oneShard(namespace: string) {
  const clock = new ManualClock(start);
  const pulse = await createPulse({ redis: redis.url, namespace, clock, windows: ['5m'] }); // horizon 15 min
  const admin = await RedisConnection.connect({ url: redis.url });
  const { ids: requestIds, shard } = idsInOneShard(3);
  const key = `${channelPrefix(namespace, 'c')}l:${shard}`;
  return {
    clock,
    pulse,
    requestIds,
    record: (requestId: string) => pulse.record({ channel: 'c', requestId, status: 'success', at: clock.now() }),
    keys: async () => [...((await admin.command(key, ['HKEYS', key])) as string[])].sort(),
    ttl: async () => Number(await admin.command(key, ['TTL', key])),
    close: async () => {
      await admin.close();
      await pulse.close();
    },
  };
}

describe('the Redis request ledger', () => {
  it('drops forgotten requests from a shard at its first write of a later period, and keeps the rest', async () => {
    const { clock, requestIds: [old, recent, next], record, keys, ttl, close } = await oneShard('ledger');
    await record(old);
    clock.set(start + 10 * 60_000);
    await record(recent);
    expect(await keys()).toEqual([old, recent].sort());
    clock.set(start + 17 * 60_000); // a new period; `old` is 17 min old, past the horizon, `recent` 7 min
    await record(next);
    expect(await keys()).toEqual([recent, next].sort());
    expect(await ttl()).toBeGreaterThan(0);
    expect(await record(recent)).toMatchObject({ duplicate: 1 });
    await close();
  });

  it('replaces a shard whose requests are all forgotten, and forgets a shard idle for a whole period', async () => {
    const { clock, pulse, requestIds: [first, second, third], record, keys, ttl, close } = await oneShard('ledger-all');
    await record(first);
    clock.set(start + 17 * 60_000); // the next period (16 min): `first` is past the horizon, and all the shard held
    await record(second);
    expect(await keys()).toEqual([second]);
    expect(await ttl()).toBeGreaterThan(0);

    // Unwritten for the whole next period (Redis would have expired the key by then): its requests
    // are forgotten all the same.
    clock.set(start + 50 * 60_000);
    expect(await record(third)).toMatchObject({ accepted: 1 });
    expect(await record(second)).toMatchObject({ accepted: 1 });
    expect(await pulse.rate('c', { window: '5m' })).toMatchObject({ total: 2, success: 2 });
    await close();
  });

  it("marks each period's written shards in one bitmap, created whole with its TTL, kept across calls", async () => {
    const clock = new ManualClock(start);
    const namespace = 'ledger-bits';
    const pulse = await createPulse({ redis: redis.url, namespace, clock, windows: ['5m'] });
    const admin = await RedisConnection.connect({ url: redis.url });
    const { ledgerShards } = resolveSettings({});
    const bitmap = `${channelPrefix(namespace, 'c')}lm:${Math.floor(start / (16 * 60_000))}`;
    const bit = async (requestId: string) => Number(await admin.command(bitmap, ['GETBIT', bitmap, String(hashId(requestId) % ledgerShards)]));
    try {
      // Several channels in one call, then a second call: the second must not start the bitmap again.
      await pulse.recordMany(['c', 'd', 'e'].map((channel) => ({ channel, requestId: 'a', status: 'success' as const, at: clock.now() })));
      await pulse.record({ channel: 'c', requestId: 'b', status: 'success', at: clock.now() });
      expect([await bit('a'), await bit('b'), await bit('never')]).toEqual([1, 1, 0]);
      expect(Number(await admin.command(bitmap, ['STRLEN', bitmap]))).toBe(ledgerShards / 8);
      // Grown by SETBIT, Redis would have allocated about twice the string's length.
      expect(Number(await admin.command(bitmap, ['MEMORY', 'USAGE', bitmap]))).toBeLessThan(1.5 * (ledgerShards / 8));
      expect(Number(await admin.command(bitmap, ['TTL', bitmap]))).toBeGreaterThan(0);
    } finally {
      await admin.close();
      await pulse.close();
    }
  });
});
