// record-many (strategy buckets): several channels' batches in one script call answer and store what
// one call per channel does, and every key the call writes carries a TTL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { StatusCode, type ChannelBatch, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 30);

function outcome(requestId: string, status: StatusCode, at: number, code = ''): StoredOutcome {
  return { requestId, status, at, code, series: [''], hash: hashId(requestId) };
}

/** A hot channel (pendings, failures, duplicates, an upgrade) beside two quiet ones, one step of them. */
function batches(step: number): ChannelBatch[] {
  const at = now - 5_000 + step * 1_000;
  const hot = Array.from({ length: 120 }, (_, i) =>
    outcome(`h${step}-${i % 100}`, i % 10 === 0 ? StatusCode.Pending : i % 7 === 0 ? StatusCode.Failure : StatusCode.Success, at + i, i % 7 === 0 ? 'E1' : ''));
  hot.push(outcome(`h${step}-7`, StatusCode.Success, at + 500));
  return [
    { channel: 'hot', outcomes: hot },
    { channel: 'quiet-1', outcomes: [outcome(`q${step}`, step % 2 ? StatusCode.Failure : StatusCode.Success, at + 3, 'E2')] },
    { channel: 'quiet-2', outcomes: [outcome(`p${step}`, StatusCode.Pending, at), outcome(`q${step}`, StatusCode.Success, at + 9)] },
  ];
}

describe('record-many', () => {
  let redis: LocalRedis;
  let conn: RedisConnection;
  beforeAll(async () => {
    redis = await startRedis();
    conn = await RedisConnection.connect({ url: redis.url });
  });
  afterAll(async () => {
    await conn?.close();
    await redis?.stop();
  });

  it('answers and stores what one call per channel does, every key with a TTL', async () => {
    const settings = (namespace: string) => resolveSettings({ namespace, pendingTimeoutMs: 2_000 });
    const shared = new RedisStatsStore(conn, settings('shared'));
    const apart = new RedisStatsStore(conn, settings('apart'));
    for (let step = 0; step < 4; step++) {
      const stepNow = now + step * 1_500; // pendings of earlier steps come due: the sweep runs in both
      const together = await shared.recordBatches(batches(step), stepNow, 5_000);
      const oneByOne = [];
      for (const b of batches(step)) oneByOne.push(await apart.recordBatch(b.channel, b.outcomes, stepNow, 5_000));
      expect(together).toEqual(oneByOne);
    }
    const readAt = now + 7_000;
    for (const channel of ['hot', 'quiet-1', 'quiet-2']) {
      for (const store of [shared, apart]) await store.recordBatches([{ channel, outcomes: [] }], readAt, 5_000);
      const read = (store: RedisStatsStore) => Promise.all([
        store.readWindows(channel, '', [10, 60], readAt),
        store.readLastN(channel, '', 7, readAt),
        store.readLastN(channel, '', 130, readAt),
        store.readFailures(channel, readAt - 60_000, readAt, 50),
      ]);
      expect(await read(shared)).toEqual(await read(apart));
    }
    const [, keys] = (await conn.command('', ['SCAN', 0, 'MATCH', 'shared:*', 'COUNT', 100_000])) as [string, string[]];
    expect(keys.length).toBeGreaterThan(10);
    const untimed = [];
    for (const key of keys) if (Number(await conn.command(key, ['TTL', key])) < 0) untimed.push(key);
    expect(untimed).toEqual([]);
  });
});
