// `npx tsx bench/engine/steadyCost.ts`: what a channel costs Redis once its ledger has stopped growing.
// The sweep measures each channel's first 30–150 seconds; here each lane records 150 minutes of virtual
// time (past two ledger periods of 71 minutes) and Redis CPU is taken over the last 30, with the memory
// per request within the 70-minute horizon at the end. Two shapes: one hot channel, many quiet ones.
import { formatTable } from '../support/report.js';
import { runLane, type LaneRun } from './laneRun.js';
import type { LaneName } from './lanes.js';
import { trafficAt, type VolumePoint } from './traffic.js';
import { expectedFor, seedMinuteJob } from './volumeSweep.js';

const start = Date.UTC(2026, 0, 1, 12);
const minutes = 150;
const measuredMinutes = 30;
const points: VolumePoint[] = [
  { perChannelPerSec: 500, channels: 1 },
  { perChannelPerSec: 2, channels: 100 },
];
const lanes: LaneName[] = ['seed', 'buckets'];

const rows: string[][] = [];
for (const point of points) {
  const perSec = point.perChannelPerSec * point.channels;
  const traffic = trafficAt(point, perSec * minutes * 60, start);
  const runs: Partial<Record<LaneName, LaneRun>> = {};
  for (const lane of lanes) {
    console.error(`${point.perChannelPerSec}/s × ${point.channels}: ${lane}…`);
    runs[lane] = await runLane(lane, traffic, expectedFor(traffic), {
      writers: 4,
      batch: 500,
      warmUpQueries: 0,
      queries: 1,
      diagnose: false,
      everyMinute: seedMinuteJob,
      cpuFromMs: start + (minutes - measuredMinutes) * 60_000,
    });
  }
  const inHorizon = perSec * 70 * 60;
  const seed = runs.seed!;
  for (const lane of lanes) {
    const r = runs[lane]!;
    const bytes = (r.redisBytesPerEvent * r.events) / inHorizon;
    const seedBytes = (seed.redisBytesPerEvent * seed.events) / inHorizon;
    rows.push([
      `${point.perChannelPerSec}/s × ${point.channels}`,
      lane,
      r.lateRedisCpuUsPerEvent!.toFixed(2),
      `${(r.lateRedisCpuUsPerEvent! / seed.lateRedisCpuUsPerEvent!).toFixed(2)}×`,
      bytes.toFixed(1),
      `${(bytes / seedBytes).toFixed(2)}×`,
    ]);
  }
}
console.log(formatTable(['per channel × channels', 'lane', `Redis CPU µs/event, last ${measuredMinutes} of ${minutes} min`, '× seed', 'Redis B per in-horizon request', '× seed'], rows));
