// On a cluster the health snapshot's read of many channels goes one call per node, as a batch's record
// does (recordMany.test.ts): the channels of every slot a master serves in one call, and when the client's
// slot map is wrong, a call per slot that answers the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { clusterSlot } from '../../../src/store/keys/clusterSlot.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { StatusCode, type ChannelSeries } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import { startCluster, type LocalCluster } from '../../support/redisServer.js';
import { scriptCalls } from '../../support/scriptCalls.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 30);
const windowsSec = [60, 300, 900, 3600]; // the default windows: the carried read (windowsDelta)
const channels = Array.from({ length: 30 }, (_, i) => `read-${i}`);
const reads: ChannelSeries[] = channels.map((channel) => ({ channel, series: [''] }));

let cluster: LocalCluster;
let conn: RedisConnection;
beforeAll(async () => {
  cluster = await startCluster();
  conn = await RedisConnection.connect({ url: cluster.urls.join(',') });
  const store = new RedisStatsStore(conn, resolveSettings({ namespace: 'reads' }));
  // Channel i holds i + 1 outcomes, one in three a failure, and one request still pending.
  await store.recordBatches(
    channels.map((channel, i) => ({
      channel,
      outcomes: Array.from({ length: i + 2 }, (_, j) => {
        const requestId = `${channel}-${j}`;
        const status = j === i + 1 ? StatusCode.Pending : j % 3 === 0 ? StatusCode.Failure : StatusCode.Success;
        return { requestId, status, at: now - 20_000 + j, code: status === StatusCode.Failure ? 'E1' : '', series: [''], hash: hashId(requestId) };
      }),
    })),
    now,
    5_000,
  );
}, 60_000);
afterAll(async () => {
  await conn?.close();
  await cluster?.stop();
});

describe('the read of many channels on a cluster', () => {
  it('reads the channels of every slot of a node in one call, what one read per channel answers', async () => {
    expect(new Set(channels.map((c) => clusterSlot(channelPrefix('reads', c)))).size).toBe(30);
    const store = new RedisStatsStore(conn, resolveSettings({ namespace: 'reads' }));
    await store.readWindowsMany(reads, windowsSec, now); // every node learns the script
    const before = await scriptCalls(conn);
    const many = await store.readWindowsMany(reads, windowsSec, now + 1_000);
    expect((await scriptCalls(conn)) - before).toBeLessThanOrEqual(3); // the cluster's three masters
    const one = await Promise.all(channels.map(async (c) => [await store.readWindows(c, '', windowsSec, now + 1_000)]));
    expect(many).toEqual(one);
    expect(many[29]![0]![0]).toMatchObject({ success: 20, failure: 10, started: 1, pending: 1 });
  });

  it('answers the same a slot a call when the client maps every slot to one node', async () => {
    const stale = await RedisConnection.connect({ url: cluster.urls.join(',') });
    stale.masterOfSlot = () => 'one node';
    try {
      const store = new RedisStatsStore(stale, resolveSettings({ namespace: 'reads' }));
      const right = new RedisStatsStore(conn, resolveSettings({ namespace: 'reads' }));
      for (const at of [now + 2_000, now + 3_000]) {
        expect(await store.readWindowsMany(reads, windowsSec, at)).toEqual(await right.readWindowsMany(reads, windowsSec, at));
      }
    } finally {
      await stale.close();
    }
  });
});
