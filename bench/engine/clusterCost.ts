// `npx tsx bench/engine/clusterCost.ts`: what the sweep's traffic costs `buckets` on a local Redis
// Cluster of three masters, against the same traffic on one server in the same run: the ingest, then
// the health snapshot's read of every channel once a second for 20 seconds. On a cluster a script call's
// keys must be on one node, so a call can carry fewer channels.
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import { startCluster, startRedis } from '../../test/support/redisServer.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable } from '../support/report.js';
import { batchesOf, trafficAt, volumePoints, type Traffic } from './traffic.js';

const events = 30_000;
const start = Date.UTC(2026, 0, 1, 12);
const readWindows = [60, 300, 900, 3600];
const readRounds = 20;

/** Four writers of 500-outcome batches, as the sweep's lanes: Redis CPU (all masters) and script calls per event, events/s. */
async function ingest(url: string, traffic: Traffic) {
  const admin = await RedisConnection.connect({ url, commandTimeoutMs: 60_000 });
  const clock = new ManualClock(traffic.startMs);
  const pulse = await createPulse({ redis: url, clock, namespace: 'bench', recordTimeoutMs: 30_000 });
  try {
    const before = await sampleRedis(admin);
    const batches = batchesOf(traffic, 500);
    const began = performance.now();
    const writer = async () => {
      for (let next = batches.next(); !next.done; next = batches.next()) {
        clock.set(Math.max(clock.now(), next.value[next.value.length - 1]!.at));
        const r = await pulse.recordMany(next.value);
        if (r.accepted !== next.value.length) throw new Error(`not all accepted: ${JSON.stringify(r)}`);
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    const seconds = (performance.now() - began) / 1000;
    const after = await sampleRedis(admin);
    // The snapshot's read: every channel's default windows, once a second, in calls of 50 channels.
    const store = new RedisStatsStore(admin, resolveSettings({ namespace: 'bench' }));
    const reads = traffic.channels.map((channel) => ({ channel, series: [''] }));
    await store.readWindowsMany(reads, readWindows, clock.now());
    const readsBefore = await sampleRedis(admin);
    for (let second = 1; second <= readRounds; second++) await store.readWindowsMany(reads, readWindows, clock.now() + second * 1000);
    const readsAfter = await sampleRedis(admin);
    return {
      cpuUs: ((after.cpuSec - before.cpuSec) * 1e6) / traffic.events,
      calls: (after.evalCalls - before.evalCalls) / traffic.events,
      perSec: traffic.events / seconds,
      readUs: ((readsAfter.cpuSec - readsBefore.cpuSec) * 1e6) / (readRounds * reads.length),
    };
  } finally {
    await pulse.close();
    await admin.close();
  }
}

const rows: string[][] = [];
for (const point of volumePoints) {
  const traffic = trafficAt(point, events, start);
  const one = await startRedis();
  const single = await ingest(one.url, traffic).finally(() => one.stop());
  const cluster = await startCluster(3);
  const spread = await ingest(cluster.urls.join(','), traffic).finally(() => cluster.stop());
  rows.push([
    `${point.perChannelPerSec}/s × ${point.channels}`,
    single.cpuUs.toFixed(2),
    spread.cpuUs.toFixed(2),
    `${(spread.cpuUs / single.cpuUs).toFixed(2)}×`,
    spread.calls.toFixed(3),
    `${(spread.perSec / single.perSec).toFixed(2)}×`,
    `${single.readUs.toFixed(1)} / ${spread.readUs.toFixed(1)}`,
    `${(spread.readUs / single.readUs).toFixed(2)}×`,
  ]);
}
console.log(formatTable([
  'per channel × channels', 'one server: Redis CPU µs/event', 'cluster: Redis CPU µs/event', 'cluster × one server',
  'cluster: script calls/event', 'cluster events/s × one server', 'snapshot read, µs/channel: one server / cluster', 'cluster × one server',
], rows));
