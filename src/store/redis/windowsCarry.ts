// What the health snapshot's reader keeps between its once-a-second reads of every channel's windows on
// Redis (strategy buckets): each window's counts of its settled seconds, and the fresh seconds it read last.
// With them a read asks Redis for the seconds that left each window and the fresh seconds, a few fields a
// channel, instead of every key its windows span (lua/includes/windows-delta.lua says why that stays exact).
import type { WindowCounts } from '../ports/stats.js';

/** Seconds read again every time: writes to them may still come without changing the channel's `rev`. */
export const FRESH_SECONDS = 15;
/** The script carries a previous read over when it is at most this many seconds old (windows-delta.lua). */
export const MAX_GAP_SECONDS = 3;
/**
 * Each channel is still read whole once a minute, at a second of its own so that the whole reads spread
 * evenly: whatever a carried read could miss (writers whose clocks run more than FRESH − LATE seconds behind
 * the reader's) is corrected within a minute.
 */
const WHOLE_EVERY_SECONDS = 60;
/** Numbers per window and per fresh second: success, failure, started, pending. */
const COUNTS = 4;

interface SeriesState {
  settled: number[];
  /** Counts of the oldest MAX_GAP_SECONDS fresh seconds, which the next read may find settled. */
  oldestFresh: number[];
}

export interface CarryStart {
  previous?: ChannelState;
  args: [number, string];
}

interface ChannelState {
  sec: number;
  rev: string;
  windowsKey: string;
  series: Map<string, SeriesState>;
}

/** A channel's own second of the minute for its whole read. */
function wholeSecondOf(channel: string): number {
  let h = 0;
  for (let i = 0; i < channel.length; i++) h = (h * 31 + channel.charCodeAt(i)) | 0;
  return Math.abs(h) % WHOLE_EVERY_SECONDS;
}

export class WindowsCarry {
  private readonly channels = new Map<string, ChannelState>();
  private prunedAt = 0;

  /** Carried reads need every window longer than the fresh seconds and the gap a read may carry over. */
  static applies(windowsSec: number[]): boolean {
    return windowsSec.every((w) => w > FRESH_SECONDS + MAX_GAP_SECONDS);
  }

  /**
   * What a read of one channel starts from: the state to carry over, if any, and the script's arguments for
   * it (the second of that read, 0 to read whole, and the rev it saw). Concurrent reads of a channel each
   * carry over from the state they started from.
   */
  start(channel: string, series: string[], windowsSec: number[], toSec: number): CarryStart {
    const state = this.channels.get(channel);
    const carries =
      state !== undefined &&
      state.windowsKey === windowsSec.join(',') &&
      series.every((s) => state.series.has(s)) &&
      (toSec + wholeSecondOf(channel)) % WHOLE_EVERY_SECONDS !== 0;
    return carries ? { previous: state, args: [state.sec, state.rev] } : { args: [0, ''] };
  }

  /** One channel's reply (after its 'sweep' check): its series' window counts, and the state kept for next time. */
  absorb(channel: string, series: string[], windowsSec: number[], toSec: number, started: CarryStart, reply: Array<string | number>): WindowCounts[][] {
    const [rev, mode] = reply as [string, string];
    const previous = started.previous;
    const gap = previous ? toSec - previous.sec : 0;
    const state: ChannelState = { sec: toSec, rev, windowsKey: windowsSec.join(','), series: new Map() };
    const windowsEnd = COUNTS * windowsSec.length;
    const perSeries = windowsEnd + COUNTS * (1 + MAX_GAP_SECONDS);
    const counts = series.map((id, j) => {
      const at = (from: number, to: number) => reply.slice(2 + j * perSeries + from, 2 + j * perSeries + to) as number[];
      const sums = at(0, windowsEnd);
      const fresh = at(windowsEnd, windowsEnd + COUNTS);
      const settled = mode === 'd' ? carried(previous!.series.get(id)!, sums, gap) : sums;
      state.series.set(id, { settled, oldestFresh: at(windowsEnd + COUNTS, perSeries) });
      return windowsSec.map((_, w) => {
        const total = (k: number) => settled[w * COUNTS + k]! + fresh[k]!;
        return { success: total(0), failure: total(1), started: total(2), pending: total(3) };
      });
    });
    this.channels.set(channel, state);
    return counts;
  }

  forget(channel: string): void {
    this.channels.delete(channel);
  }

  /** Drops what channels no longer read (the snapshot reads every channel every second). */
  forgetOlderThan(sec: number): void {
    if (sec === this.prunedAt) return;
    this.prunedAt = sec;
    for (const [channel, state] of this.channels) if (state.sec < sec) this.channels.delete(channel);
  }
}

/** Settled sums now: the previous ones, plus the fresh seconds that have settled since, less what left. */
function carried(previous: SeriesState, left: number[], gap: number): number[] {
  return left.map((leftSum, i) => {
    const k = i % COUNTS;
    let entered = 0;
    for (let s = 0; s < gap; s++) entered += previous.oldestFresh[s * COUNTS + k]!;
    return previous.settled[i]! + entered - leftSum;
  });
}
