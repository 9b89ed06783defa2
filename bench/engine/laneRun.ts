// One lane over one traffic, on a Redis server started for it: four concurrent writers of batches,
// then window queries on the hottest channel. What the sweep and the steady-state row measure.
import { ManualClock } from '../../src/clock.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis } from '../../test/support/redisServer.js';
import { sampleRedis, type RedisSample } from '../support/redisInfo.js';
import { percentile } from '../support/report.js';
import { usageByKind, type KindUsage } from './keyUsage.js';
import { openLane, type Lane, type LaneName } from './lanes.js';
import { batchesOf, type Traffic } from './traffic.js';

export interface RunOptions {
  writers: number;
  batch: number;
  warmUpQueries: number;
  queries: number;
  /** Sum MEMORY USAGE by key kind after ingest (slow on many keys: one run per point is enough). */
  diagnose: boolean;
  /** Called once a virtual minute during ingest: the seed's trimming read, as its alert job runs it. */
  everyMinute?: (lane: Lane, traffic: Traffic) => Promise<void>;
  /** Called after the measurements, before the server stops. */
  afterQueries?: (lane: Lane) => Promise<void>;
  /** Also measure Redis CPU per event over the events completed from this virtual time on. */
  cpuFromMs?: number;
}

export interface LaneRun {
  lane: LaneName;
  events: number;
  eventsPerSec: number;
  redisCpuUsPerEvent: number;
  clientCpuUsPerEvent: number;
  redisBytesPerEvent: number;
  keysPerEvent: number;
  scriptCallsPerEvent: number;
  queryP50Ms: number;
  queryP99Ms: number;
  /** A PING's p99 on another connection, timed right after each query: the machine's floor. */
  pingP99Ms: number;
  usage?: KindUsage[];
  /** With `cpuFromMs`: Redis CPU per event over the events from then on. */
  lateRedisCpuUsPerEvent?: number;
}

/** Redis CPU and the events written so far, taken once the clock reaches `cpuFromMs`. */
interface LateMark {
  sample: RedisSample;
  eventsBefore: number;
}

async function writeAll(lane: Lane, traffic: Traffic, clock: ManualClock, o: RunOptions, admin: RedisConnection): Promise<LateMark | undefined> {
  const batches = batchesOf(traffic, o.batch);
  let minute = Math.floor(traffic.startMs / 60_000);
  let written = 0;
  let mark: Promise<LateMark> | undefined;
  const writer = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) {
      const batch = next.value;
      if (o.cpuFromMs !== undefined && !mark && batch[0].at >= o.cpuFromMs) {
        const eventsBefore = written;
        mark = sampleRedis(admin).then((sample) => ({ sample, eventsBefore }));
        await mark;
      }
      written += batch.length;
      clock.set(Math.max(clock.now(), batch[batch.length - 1].at));
      if (o.everyMinute && Math.floor(clock.now() / 60_000) > minute) {
        minute = Math.floor(clock.now() / 60_000);
        await o.everyMinute(lane, traffic);
      }
      await lane.recordMany(batch);
    }
  };
  await Promise.all(Array.from({ length: o.writers }, writer));
  return mark;
}

// Each query is followed by a PING on another connection of the same client library to the same server:
// this 2-core machine's own round trip has millisecond tails (p99 0.1–1.8 ms for PING alone, from one
// minute to the next), and the PING's p99, taken over the same moments, says how much of a query's is the
// machine's.
async function timeQueries(lane: Lane, channel: string, admin: RedisConnection, o: RunOptions): Promise<{ queries: number[]; pings: number[] }> {
  const ping = () => admin.command(channel, ['PING']);
  for (let q = 0; q < o.warmUpQueries; q++) {
    await lane.rate5m(channel);
    await ping();
  }
  const queries: number[] = [];
  const pings: number[] = [];
  for (let q = 0; q < o.queries; q++) {
    const t0 = performance.now();
    await lane.rate5m(channel);
    const t1 = performance.now();
    await ping();
    queries.push(t1 - t0);
    pings.push(performance.now() - t1);
  }
  return { queries, pings };
}

function perEvent(before: RedisSample, after: RedisSample, events: number) {
  return {
    redisCpuUsPerEvent: ((after.cpuSec - before.cpuSec) * 1e6) / events,
    redisBytesPerEvent: (after.usedMemory - before.usedMemory) / events,
    keysPerEvent: (after.keys - before.keys) / events,
    scriptCallsPerEvent: (after.evalCalls - before.evalCalls) / events,
  };
}

/** What a lane's 5-minute window on `channel` must hold at `nowMs`: checked before any query is timed. */
export type ExpectedCount = (lane: LaneName, channel: string, nowMs: number) => number;

export async function runLane(name: LaneName, traffic: Traffic, expected5m: ExpectedCount, o: RunOptions): Promise<LaneRun> {
  const redis = await startRedis();
  const admin = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 60_000 });
  const clock = new ManualClock(traffic.startMs);
  const lane = await openLane(name, redis.url, clock);
  try {
    // A read first, so that no lane's first call is measured (each opens with its scripts loaded, lanes.ts).
    await lane.rate5m(traffic.channels[0]);
    const before = await sampleRedis(admin);
    const clientCpuBefore = process.cpuUsage();
    const began = performance.now();
    const late = await writeAll(lane, traffic, clock, o, admin);
    const seconds = (performance.now() - began) / 1000;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const after = await sampleRedis(admin);
    // The clock stays at the newest event's completion time: queries ask for the window ending there.
    const hottest = traffic.channels[0];
    const counted = await lane.rate5m(hottest);
    const expected = expected5m(name, hottest, clock.now());
    if (counted !== expected) throw new Error(`${name}: 5m window holds ${counted} events, expected ${expected}`);
    const { queries, pings } = await timeQueries(lane, hottest, admin, o);
    const usage = o.diagnose ? await usageByKind(admin) : undefined;
    await o.afterQueries?.(lane);
    return {
      lane: name,
      events: traffic.events,
      eventsPerSec: Math.round(traffic.events / seconds),
      clientCpuUsPerEvent: (clientCpu.user + clientCpu.system) / traffic.events,
      ...perEvent(before, after, traffic.events),
      queryP50Ms: percentile(queries, 50),
      queryP99Ms: percentile(queries, 99),
      pingP99Ms: percentile(pings, 99),
      usage,
      ...(late && { lateRedisCpuUsPerEvent: perEvent(late.sample, after, traffic.events - late.eventsBefore).redisCpuUsPerEvent }),
    };
  } finally {
    await lane.close();
    await admin.close();
    await redis.stop();
  }
}
