// `npx tsx bench/engine/commandProfile.ts [--points 1x400,2000x1] [--lanes seed,buckets] [--events 120000]`:
// where a lane's Redis time per event goes, from INFO commandstats over the sweep's ingest (four writers of
// 500-outcome batches). A script's own calls are counted in their commands' rows as well as in EVALSHA's,
// so "Lua and call overhead" is EVALSHA's time less its commands': the interpreter, the tables, the
// unpacking, and the glue of each redis.call. Times are Redis's own per-command clock, not its CPU:
// compare the rows of one run, not runs.
import { parseArgs } from 'node:util';
import { ManualClock } from '../../src/clock.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis } from '../../test/support/redisServer.js';
import { formatTable } from '../support/report.js';
import { openLane, type LaneName } from './lanes.js';
import { batchesOf, trafficAt, type VolumePoint } from './traffic.js';

const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '1x400,10x40,50x8,500x2,2000x1' },
    lanes: { type: 'string', default: 'seed,buckets' },
    events: { type: 'string', default: '120000' },
  },
});

const start = Date.UTC(2026, 0, 1, 12);

function commandStats(info: string): Map<string, { calls: number; usec: number }> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const m of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)/gm)) stats.set(m[1], { calls: Number(m[2]), usec: Number(m[3]) });
  return stats;
}

async function profile(name: LaneName, point: VolumePoint, events: number): Promise<string[][]> {
  const redis = await startRedis();
  const admin = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 60_000 });
  const traffic = trafficAt(point, events, start);
  const clock = new ManualClock(traffic.startMs);
  const lane = await openLane(name, redis.url, clock);
  try {
    await lane.rate5m(traffic.channels[0]);
    await admin.command('', ['CONFIG', 'RESETSTAT']);
    const cpu0 = /used_cpu_user:([0-9.]+)/.exec((await admin.command('', ['INFO', 'cpu'])) as string)![1];
    const batches = batchesOf(traffic, 500);
    const writer = async () => {
      for (let next = batches.next(); !next.done; next = batches.next()) {
        clock.set(Math.max(clock.now(), next.value[next.value.length - 1].at));
        await lane.recordMany(next.value);
      }
    };
    await Promise.all(Array.from({ length: 4 }, writer));
    const info = (await admin.command('', ['INFO', 'all'])) as string;
    const cpu = (Number(/used_cpu_user:([0-9.]+)/.exec(info)![1]) - Number(cpu0)) * 1e6;
    const stats = commandStats(info);
    stats.delete('info');
    stats.delete('config|resetstat');
    const script = stats.get('evalsha');
    const inner = [...stats.entries()].filter(([c]) => c !== 'evalsha' && c !== 'eval');
    const innerUsec = inner.reduce((s, [, v]) => s + v.usec, 0);
    const rows = inner
      .sort((a, b) => b[1].usec - a[1].usec)
      .map(([c, v]) => [`${point.perChannelPerSec}/s`, name, c, (v.calls / events).toFixed(3), (v.usec / events).toFixed(3)]);
    if (script) rows.unshift([`${point.perChannelPerSec}/s`, name, 'Lua and call overhead', (script.calls / events).toFixed(4), ((script.usec - innerUsec) / events).toFixed(3)]);
    rows.unshift([`${point.perChannelPerSec}/s`, name, 'user CPU (all)', '', (cpu / events).toFixed(3)]);
    return rows;
  } finally {
    await lane.close();
    await admin.close();
    await redis.stop();
  }
}

const points = values.points.split(',').map((p) => {
  const [perChannelPerSec, channels] = p.split('x').map(Number);
  return { perChannelPerSec, channels };
});
const rows: string[][] = [];
for (const point of points) for (const lane of values.lanes.split(',') as LaneName[]) rows.push(...(await profile(lane, point, Number(values.events))));
console.log(formatTable(['traffic', 'lane', 'command', 'calls/event', 'µs/event'], rows));
