// A counter hash's TTL follows its own minute (or block), not the call that last wrote it: it is set
// once, by the write that creates the key, and lasts until the minute's last second leaves the
// retention, plus a minute. Later writes need no EXPIRE of their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { StatusCode, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';

const minute = 29_450_000; // an epoch minute, the first of its 10-minute block
const settings = resolveSettings({ namespace: 'ttl' });
const prefix = channelPrefix('ttl', 'c');

function success(requestId: string, at: number): StoredOutcome {
  return { requestId, status: StatusCode.Success, at, code: '', series: [''], hash: hashId(requestId) };
}

/** Seconds from `now` until `endMs` leaves the retention, plus the minute the TTLs add. */
const ttlUntil = (endMs: number, now: number) => Math.ceil((endMs + settings.retentionMs - now) / 1000) + 60;

let redis: LocalRedis;
let admin: RedisConnection;
beforeAll(async () => {
  redis = await startRedis();
  admin = await RedisConnection.connect({ url: redis.url });
});
afterAll(async () => {
  await admin?.close();
  await redis?.stop();
});

describe('counter TTLs', () => {
  it('are set by the write that creates the key, from its minute and block', async () => {
    const store = new RedisStatsStore(admin, settings);
    const ttl = async (key: string) => Number(await admin.command(key, ['TTL', key]));
    const first = minute * 60_000 + 5_000;
    await store.recordBatch('c', [success('a', first - 1_000)], first, 5_000);
    const minuteTtl = ttlUntil((minute + 1) * 60_000, first);
    const blockTtl = ttlUntil((minute / 10 + 1) * 600_000, first);
    expect(await ttl(`${prefix}b::${minute}`)).toBeGreaterThanOrEqual(minuteTtl - 2);
    expect(await ttl(`${prefix}b::${minute}`)).toBeLessThanOrEqual(minuteTtl);
    expect(await ttl(`${prefix}b10::${minute / 10}`)).toBeGreaterThanOrEqual(blockTtl - 2);

    // 40 s later, the same minute again: the TTL is what the first write set, which still covers the
    // minute until it leaves the retention.
    const later = first + 40_000;
    await store.recordBatch('c', [success('b', later - 1_000)], later, 5_000);
    const left = await ttl(`${prefix}b::${minute}`);
    expect(left).toBeGreaterThanOrEqual(minuteTtl - 2);
    expect(left).toBeGreaterThanOrEqual(ttlUntil((minute + 1) * 60_000, later));
    expect(await admin.command('', ['HGET', `${prefix}b::${minute}`, 's'])).toBe('2');
  });
});
