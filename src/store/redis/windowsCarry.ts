// What the health snapshot's reader keeps between its once-a-second reads of every channel's windows on
// Redis (strategy buckets): each window's counts of its settled seconds, and the fresh seconds it read last,
// one by one. With them a read asks Redis for the seconds that left each window and the fresh seconds, a few
// fields a channel, instead of every key its windows span; for a channel nobody wrote since, only the seconds
// leaving the windows that hold counts there (lua/buckets/windowsDelta-1.lua says why that stays exact).
import type { WindowCounts } from '../ports/stats.js';

/** Seconds read again every time: writes to them may still come without changing the channel's `rev`. */
export const FRESH_SECONDS = 15;
/** The script carries a previous read over when it is at most this many seconds old (buckets/windowsDelta-1.lua). */
export const MAX_GAP_SECONDS = 3;
/**
 * Seconds past its own that a read of the fresh seconds also reads (outcomes dated ahead of the reader's
 * clock): while nobody writes to the channel, the next reads up to this many seconds later read none of them.
 */
export const AHEAD_SECONDS = 8;
/**
 * Each channel is still read whole once a minute, at a second of its own so that the whole reads spread
 * evenly: whatever a carried read could miss (writers whose clocks run more than FRESH − LATE seconds behind
 * the reader's) is corrected within a minute.
 */
const WHOLE_EVERY_SECONDS = 60;
/** Numbers per window and per fresh second: success, failure, started, pending. */
const COUNTS = 4;
const HELD_SECONDS = FRESH_SECONDS + AHEAD_SECONDS;

interface SeriesState {
  settled: number[];
  /** Counts of each second from the oldest fresh one of the state's `sec` to AHEAD_SECONDS past it. */
  fresh: number[];
}

export interface CarryStart {
  previous?: ChannelState;
  /** The script's arguments for the channel: its marks as the previous read saw them, then its series. */
  args: Array<string | number>;
}

interface ChannelState {
  sec: number;
  rev: string;
  writes: string;
  /** The last second `fresh` holds counts of. */
  freshTo: number;
  windowsKey: string;
  series: Map<string, SeriesState>;
}

/** A channel's own second of the minute for its whole read. */
function wholeSecondOf(channel: string): number {
  let h = 0;
  for (let i = 0; i < channel.length; i++) h = (h * 31 + channel.charCodeAt(i)) | 0;
  return Math.abs(h) % WHOLE_EVERY_SECONDS;
}

/**
 * For each window, '1' when its seconds leaving it by `gap` seconds may hold counts. Per-second counts are
 * never negative and the windows all end at the read's second, so where a window's settled sums equal those of
 * a window at least `gap` seconds shorter (or are zero), every second between the two lengths is empty — and the
 * seconds leaving the longer one are among them.
 */
function leavingMarks(settled: number[], windowsSec: number[], gap: number): string {
  return windowsSec
    .map((length, w) => {
      const shorter = windowsSec.reduce((best, other, o) => (other <= length - gap && (best < 0 || other > windowsSec[best]!) ? o : best), -1);
      for (let k = 0; k < COUNTS; k++) {
        if (settled[w * COUNTS + k]! !== (shorter < 0 ? 0 : settled[shorter * COUNTS + k]!)) return '1';
      }
      return '0';
    })
    .join('');
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
   * it (the second of that read, 0 to read whole, the rev and wr it saw, the last second of fresh counts it
   * holds, then its series). Concurrent reads of a channel each carry over from the state they started from.
   */
  start(channel: string, series: string[], windowsSec: number[], toSec: number): CarryStart {
    const state = this.channels.get(channel);
    const carries =
      state !== undefined &&
      state.windowsKey === windowsSec.join(',') &&
      series.every((s) => state.series.has(s)) &&
      (toSec + wholeSecondOf(channel)) % WHOLE_EVERY_SECONDS !== 0;
    if (!carries) return { args: [0, '', '', 0, series.length, ...series.flatMap((id) => [id, ''])] };
    const gap = toSec - state.sec;
    const marks = series.flatMap((id) => [id, leavingMarks(state.series.get(id)!.settled, windowsSec, gap)]);
    return { previous: state, args: [state.sec, state.rev, state.writes, state.freshTo, series.length, ...marks] };
  }

  /** One channel's reply (after its 'sweep' check): its series' window counts, and the state kept for next time. */
  absorb(channel: string, series: string[], windowsSec: number[], toSec: number, started: CarryStart, reply: Array<string | number>): WindowCounts[][] {
    const [head, rev, writes] = String(reply[0]).split(':') as [string, string, string];
    const mode = head[0];
    const width = Number(head.slice(1));
    const previous = started.previous;
    const gap = previous ? toSec - previous.sec : 0;
    const quiet = mode === 'q';
    const state: ChannelState = { sec: toSec, rev, writes, freshTo: quiet ? previous!.freshTo : toSec + AHEAD_SECONDS, windowsKey: windowsSec.join(','), series: new Map() };
    let at = 1;
    const counts = series.map((id) => {
      const sums = new Array<number>(COUNTS * windowsSec.length).fill(0);
      for (let n = reply[at++] as number; n > 0; n--, at += 1 + COUNTS) {
        const w = (reply[at] as number) - 1;
        for (let k = 0; k < COUNTS; k++) sums[w * COUNTS + k] = reply[at + 1 + k] as number;
      }
      const before = previous?.series.get(id);
      const settled = mode === 'f' ? sums : carried(before!, sums, gap);
      let fresh: number[];
      if (quiet) {
        // The fresh seconds held before, `gap` seconds on (the held ones reach far enough, the script checked).
        fresh = [...before!.fresh.slice(gap * COUNTS), ...new Array<number>(gap * COUNTS).fill(0)];
      } else {
        fresh = new Array<number>(COUNTS * HELD_SECONDS).fill(0);
        for (let s = 0, m = reply[at++] as number; s < m; s++, at += width) {
          for (let k = 0; k < width; k++) fresh[s * COUNTS + k] = reply[at + k] as number;
        }
      }
      state.series.set(id, { settled, fresh });
      return windowsSec.map((_, w) => {
        const total = (k: number) => {
          let sum = settled[w * COUNTS + k]!;
          for (let s = 0; s < FRESH_SECONDS; s++) sum += fresh[s * COUNTS + k]!;
          return sum;
        };
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
    for (let s = 0; s < gap; s++) entered += previous.fresh[s * COUNTS + k]!;
    return previous.settled[i]! + entered - leftSum;
  });
}
