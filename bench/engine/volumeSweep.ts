// The volume sweep and the steady-state row. Runs are interleaved (every lane of a point, in an
// order that turns each repeat, before the next point) so that the other load on a shared machine
// falls on every lane alike; each ratio is taken within one repeat, against that repeat's seed run.
import { runLane, type LaneRun, type RunOptions } from './laneRun.js';
import type { LaneName } from './lanes.js';
import { expectedIn5m, trafficAt, volumePoints, type Traffic, type VolumePoint } from './traffic.js';

export interface SweepOptions extends RunOptions {
  lanes: LaneName[];
  /** Events of every sweep point. */
  eventsPerPoint: number;
  repeats: number;
  points: VolumePoint[];
  steadyChannels: number;
  log: (line: string) => void;
}

export interface PointRuns {
  point: VolumePoint;
  /** runs[repeat][lane] */
  runs: Record<string, LaneRun>[];
}

export interface SteadyRun extends LaneRun {
  /** Of 500 requests 68 minutes old sent again, how many the lane still knew. */
  knownOf500After68Min: number;
}

const start = Date.UTC(2026, 0, 1, 12);

function rotated<T>(items: T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]);
}

export const expectedFor = (traffic: Traffic) => (lane: LaneName, channel: string, nowMs: number) =>
  expectedIn5m(traffic, lane === 'seed', channel, nowMs);

export async function runSweep(o: SweepOptions): Promise<PointRuns[]> {
  const results: PointRuns[] = o.points.map((point) => ({ point, runs: [] }));
  for (let repeat = 0; repeat < o.repeats; repeat++) {
    for (const [p, point] of o.points.entries()) {
      const traffic = trafficAt(point, o.eventsPerPoint, start);
      const runs: Record<string, LaneRun> = {};
      for (const lane of rotated(o.lanes, repeat + p)) {
        o.log(`repeat ${repeat + 1}, ${point.perChannelPerSec}/s × ${point.channels} channels: ${lane}…`);
        runs[lane] = await runLane(lane, traffic, expectedFor(traffic), { ...o, diagnose: o.diagnose && repeat === 0 });
      }
      results[p].runs.push(runs);
    }
  }
  return results;
}

/** The seed's read trims its sets: run once a virtual minute on every channel, as its alert job would. */
export async function seedMinuteJob(lane: { name: LaneName; rate5m(channel: string): Promise<number> }, traffic: Traffic) {
  if (lane.name === 'seed') for (const channel of traffic.channels) await lane.rate5m(channel);
}

/** 70 minutes of virtual time at 50 events/s per channel: a whole dedup horizon of traffic. */
export function steadyTraffic(channels: number): Traffic {
  return trafficAt({ perChannelPerSec: 50, channels }, channels * 50 * 70 * 60, start);
}

export async function runSteady(o: SweepOptions): Promise<SteadyRun[][]> {
  const traffic = steadyTraffic(o.steadyChannels);
  const again = Array.from({ length: 500 }, (_, i) => traffic.outcomeAt((2 * 60 * 50 + i) * o.steadyChannels));
  const repeats: SteadyRun[][] = [];
  for (let repeat = 0; repeat < o.repeats; repeat++) {
    const runs: SteadyRun[] = [];
    for (const lane of rotated(o.lanes, repeat)) {
      o.log(`repeat ${repeat + 1}, steady state (70 min at 50/s × ${o.steadyChannels}): ${lane}…`);
      let known = 0;
      const run = await runLane(lane, traffic, expectedFor(traffic), {
        ...o,
        diagnose: o.diagnose && repeat === 0,
        everyMinute: seedMinuteJob,
        afterQueries: async (l) => {
          known = await l.duplicatesAmong(again);
        },
      });
      runs.push({ ...run, knownOf500After68Min: known });
    }
    repeats.push(runs);
  }
  return repeats;
}
