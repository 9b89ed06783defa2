// recordMany (strategy buckets): several channels' batches in one script call (on a cluster, those of
// one node) answer and store what one call per channel does, and every key the calls write has a TTL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { clusterSlot } from '../../../src/store/keys/clusterSlot.js';
import { channelPrefix } from '../../../src/store/keys/stats.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { StatusCode, type ChannelBatch, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import { startCluster, startRedis, type LocalCluster, type LocalRedis } from '../../support/redisServer.js';
import { scriptCalls } from '../../support/scriptCalls.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 30);

function outcome(requestId: string, status: StatusCode, at: number, code = ''): StoredOutcome {
  return { requestId, status, at, code, series: [''], hash: hashId(requestId) };
}

/** A hot channel (pendings, failures, duplicates, an upgrade) beside quiet ones, one step of them. */
function batches(step: number, [hotChannel, ...quiet]: string[]): ChannelBatch[] {
  const at = now - 5_000 + step * 1_000;
  const hot = Array.from({ length: 120 }, (_, i) =>
    outcome(`h${step}-${i % 100}`, i % 10 === 0 ? StatusCode.Pending : i % 7 === 0 ? StatusCode.Failure : StatusCode.Success, at + i, i % 7 === 0 ? 'E1' : ''));
  hot.push(outcome(`h${step}-7`, StatusCode.Success, at + 500));
  return [
    { channel: hotChannel!, outcomes: hot },
    ...quiet.map((channel, k) => ({
      channel,
      outcomes: k % 2
        ? [outcome(`p${step}`, StatusCode.Pending, at), outcome(`q${step}`, StatusCode.Success, at + 9)]
        : [outcome(`q${step}`, step % 2 ? StatusCode.Failure : StatusCode.Success, at + 3, 'E2')],
    })),
  ];
}

/** Records the steps through recordBatches in one namespace and one call per channel in another. */
async function expectSameAsOneByOne(conn: RedisConnection, namespace: string, channels: string[]): Promise<void> {
  const settings = (ns: string) => resolveSettings({ namespace: ns, pendingTimeoutMs: 2_000 });
  const shared = new RedisStatsStore(conn, settings(`${namespace}-shared`));
  const apart = new RedisStatsStore(conn, settings(`${namespace}-apart`));
  for (let step = 0; step < 4; step++) {
    const stepNow = now + step * 1_500; // pendings of earlier steps come due: the sweep runs in both
    const together = await shared.recordBatches(batches(step, channels), stepNow, 5_000);
    const oneByOne = [];
    for (const b of batches(step, channels)) oneByOne.push(await apart.recordBatch(b.channel, b.outcomes, stepNow, 5_000));
    expect(together).toEqual(oneByOne);
  }
  const readAt = now + 7_000;
  for (const channel of channels) {
    for (const store of [shared, apart]) await store.recordBatches([{ channel, outcomes: [] }], readAt, 5_000);
    const read = (store: RedisStatsStore) => Promise.all([
      store.readWindows(channel, '', [10, 60], readAt),
      store.readLastN(channel, '', 7, readAt),
      store.readLastN(channel, '', 130, readAt),
      store.readFailures(channel, readAt - 60_000, readAt, 50),
    ]);
    expect(await read(shared)).toEqual(await read(apart));
  }
}

/** Every key of the namespace on every master, and those without a TTL. */
async function untimedKeys(conn: RedisConnection, namespace: string): Promise<{ keys: number; untimed: string[] }> {
  const script = "local keys = redis.call('KEYS', ARGV[1]) local out = {} for _, k in ipairs(keys) do if redis.call('TTL', k) < 0 then out[#out + 1] = k end end return { #keys, out }";
  const replies = (await conn.onEveryMaster(['EVAL', script, 0, `${namespace}:*`])) as Array<[number, string[]]>;
  return { keys: replies.reduce((sum, r) => sum + r[0], 0), untimed: replies.flatMap((r) => r[1]) };
}

describe('recordMany on one server', () => {
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
    await expectSameAsOneByOne(conn, 'one', ['hot', 'quiet-1', 'quiet-2']);
    const { keys, untimed } = await untimedKeys(conn, 'one-shared');
    expect(keys).toBeGreaterThan(10);
    expect(untimed).toEqual([]);
  });
});

describe('recordMany on a cluster', () => {
  let cluster: LocalCluster;
  let conn: RedisConnection;
  beforeAll(async () => {
    cluster = await startCluster();
    conn = await RedisConnection.connect({ url: cluster.urls.join(',') });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await cluster?.stop();
  });

  it('shares a call among the channels of one slot only, and answers what one call per channel does', async () => {
    // Two channels of the hot channel's slot (the slot depends on the channel alone, not the namespace).
    const slotOf = (channel: string) => clusterSlot(channelPrefix('any', channel));
    const sameSlot: string[] = [];
    for (let i = 0; sameSlot.length < 2; i++) if (slotOf(`quiet-${i}`) === slotOf('hot')) sameSlot.push(`quiet-${i}`);
    const other = slotOf('elsewhere') === slotOf('hot') ? 'elsewhere-2' : 'elsewhere';
    await expectSameAsOneByOne(conn, 'cl', ['hot', ...sameSlot, other]);
    const { keys, untimed } = await untimedKeys(conn, 'cl-shared');
    expect(keys).toBeGreaterThan(10);
    expect(untimed).toEqual([]);
  });

  it('records the channels of every slot of a node in one call', async () => {
    const store = new RedisStatsStore(conn, resolveSettings({ namespace: 'nodes' }));
    const channels = Array.from({ length: 30 }, (_, i) => `node-${i}`);
    expect(new Set(channels.map((c) => clusterSlot(channelPrefix('nodes', c)))).size).toBe(30);
    const record = (requestId: string) => store.recordBatches(channels.map((channel) => ({ channel, outcomes: [outcome(requestId, StatusCode.Success, now)] })), now, 5_000);
    await record('first'); // every node learns the script (a first EVALSHA each, then EVAL)
    const before = await scriptCalls(conn);
    expect(await record('second')).toEqual(channels.map(() => [0]));
    expect((await scriptCalls(conn)) - before).toBeLessThanOrEqual(3); // the cluster's three masters
  });

  it('sends the channels again a slot a call when the client maps slots to the wrong node, none counted twice', async () => {
    // A client whose slot map puts every slot on one node, as a stale map would after a resharding.
    const stale = await RedisConnection.connect({ url: cluster.urls.join(',') });
    stale.masterOfSlot = () => 'one node';
    try {
      const quiet = Array.from({ length: 6 }, (_, i) => `moved-${i}`);
      const masters = new Set(['hot', ...quiet].map((c) => conn.masterOfSlot(clusterSlot(channelPrefix('any', c)))));
      expect(masters.size).toBeGreaterThan(1);
      await expectSameAsOneByOne(stale, 'stale', ['hot', ...quiet]);
    } finally {
      await stale.close();
    }
  });
});
