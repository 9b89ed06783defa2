// The sweep's tables: each figure is the median over the repeats with its range, and each ratio is
// taken within a repeat against that repeat's seed run, then summarised the same way.
import { formatTable } from '../support/report.js';
import type { LaneRun } from './laneRun.js';
import type { PointRuns, SteadyRun } from './volumeSweep.js';

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function spread(values: number[], digits: number, unit = ''): string {
  const f = (v: number) => `${v.toFixed(digits)}${unit}`;
  if (values.length === 1) return f(values[0]);
  return `${f(median(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}

type Figure = 'redisBytesPerEvent' | 'redisCpuUsPerEvent' | 'eventsPerSec';

function ratios(point: PointRuns, lane: string, figure: Figure): number[] {
  return point.runs.map((r) => r[lane][figure] / r.seed[figure]);
}

/** The bars for the default strategy against the seed, on the medians of the ratios. */
export function missedBars(point: PointRuns): string[] {
  const missed: string[] = [];
  if (median(ratios(point, 'buckets', 'redisBytesPerEvent')) > 0.25) missed.push('memory > ¼ seed');
  // Redis CPU: at most the seed's from 50 events/s per channel up; below, where a channel's few outcomes a
  // call share its fixed cost, at most 1.3×.
  const cpuBar = point.point.perChannelPerSec >= 50 ? 1 : 1.3;
  if (median(ratios(point, 'buckets', 'redisCpuUsPerEvent')) > cpuBar) missed.push(`CPU > ${cpuBar}× seed`);
  if (median(point.runs.map((r) => r.buckets.queryP99Ms)) > 0.5) missed.push('p99 > 0.5 ms');
  return missed;
}

export function sweepTable(points: PointRuns[], lanes: string[]): string {
  const rows: string[][] = [];
  for (const point of points) {
    for (const lane of lanes) {
      const runs = point.runs.map((r) => r[lane]);
      const values = (figure: keyof LaneRun) => runs.map((r) => r[figure] as number);
      const isSeed = lane === 'seed';
      rows.push([
        `${point.point.perChannelPerSec.toLocaleString('en')}/s × ${point.point.channels}`,
        lane,
        spread(values('redisBytesPerEvent'), 0),
        isSeed ? '1' : spread(ratios(point, lane, 'redisBytesPerEvent'), 2, '×'),
        spread(values('redisCpuUsPerEvent'), 2),
        isSeed ? '1' : spread(ratios(point, lane, 'redisCpuUsPerEvent'), 2, '×'),
        spread(values('eventsPerSec').map((v) => v / 1000), 0, 'k'),
        isSeed ? '1' : spread(ratios(point, lane, 'eventsPerSec'), 2, '×'),
        spread(values('scriptCallsPerEvent'), 3),
        spread(values('queryP99Ms'), 3),
        spread(values('pingP99Ms'), 3),
        lane === 'buckets' ? missedBars(point).join('; ') || 'all met' : '',
      ]);
    }
  }
  return formatTable(
    ['per channel × channels', 'lane', 'Redis B/event', '× seed', 'Redis CPU µs/event', '× seed', 'events/s', '× seed', 'script calls/event', '5m query p99 ms', 'PING p99 ms', 'bars (buckets)'],
    rows,
  );
}

export function steadyTable(repeats: SteadyRun[][], lanes: string[]): string {
  const of = (lane: string) => repeats.map((runs) => runs.find((r) => r.lane === lane)!);
  const seedBytes = of('seed').map((r) => r.redisBytesPerEvent);
  return formatTable(
    ['lane', 'Redis B per in-horizon request', '× seed', 'keys per request', 'of 500 requests sent again 68 min later, known'],
    lanes.map((lane) => {
      const runs = of(lane);
      return [
        lane,
        spread(runs.map((r) => r.redisBytesPerEvent), 1),
        lane === 'seed' ? '1' : spread(runs.map((r, i) => r.redisBytesPerEvent / seedBytes[i]), 2, '×'),
        spread(runs.map((r) => r.keysPerEvent), 4),
        spread(runs.map((r) => r.knownOf500After68Min), 0),
      ];
    }),
  );
}

/** Bytes per event by key kind, from the first repeat's MEMORY USAGE sums. */
export function usageTable(label: string, runs: LaneRun[]): string {
  const rows = runs.filter((r) => r.usage).map((r) => [
    label,
    r.lane,
    r.usage!.slice(0, 6).map((u) => `${u.kind} ${(u.bytes / r.events).toFixed(0)} B (${(u.keys / r.events).toFixed(3)} keys)`).join(', '),
  ]);
  return formatTable(['traffic', 'lane', 'per event, by key kind (largest first)'], rows);
}
