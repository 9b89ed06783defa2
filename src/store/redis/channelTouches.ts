// Which channels a batch marks as seen in Redis's channel list, and which dims series in the channel's own
// list (RedisStatsStore.touchChannels). The lists answer "which channels, and which series of a channel, were
// seen within the dedup horizon" (the health snapshot, the dashboard): a mark a few seconds old answers that as
// well as a fresh one. Marking every channel of every batch, one sorted-set
// update for each, cost Redis a visible share of its work on quiet channels
// (docs/decisions/090-record-batches-and-calls.md).
// A server that restarted empty has lost the list: every reconnection marks every channel again, and ten
// seconds bound what a server emptied without one (FLUSHALL) leaves unlisted. A channel's series are marked
// the same way, so a series costs Redis one mark an interval, not one an outcome.
import { seriesSeenMax, type ChannelSeries, type ChannelSighting } from '../ports/stats.js';

/** How stale a mark may grow: ten seconds, less for a short horizon. */
export function touchIntervalMs(horizonMs: number): number {
  return Math.min(10_000, Math.floor(horizonMs / 10));
}

/** What a batch's sightings still have to mark: channels for the channel list, and series per channel. */
export interface DueMarks {
  channels: string[];
  series: ChannelSeries[];
}

/**
 * Channels and their dims series marked in the current interval. A new interval starts afresh, so it holds at
 * most the channels and series of two intervals (the name limits bound those, `seriesSeenMax` a channel's series
 * besides), and each one with outcomes is marked again at least once an interval.
 */
export class ChannelTouches {
  /** channel → its series marked this interval; a channel present is marked. */
  private marked = new Map<string, Set<string>>();
  /** channel → the series its outcomes had this interval, and in the last one, each with its last batch's time. */
  private sighted = new Map<string, Map<string, number>>();
  private lastSighted = new Map<string, Map<string, number>>();
  private intervalStart = Number.NEGATIVE_INFINITY;

  constructor(private readonly intervalMs: number) {}

  /** The marks to make now; they count as made until `forget` (a failed mark) or the next interval. */
  due(sightings: Iterable<ChannelSighting>, now: number): DueMarks {
    if (now >= this.intervalStart + this.intervalMs || now < this.intervalStart) this.startInterval(now);
    const due: DueMarks = { channels: [], series: [] };
    for (const { channel, series } of sightings) {
      let marked = this.marked.get(channel);
      const firstOfInterval = !marked;
      if (!marked) {
        this.marked.set(channel, (marked = new Set()));
        due.channels.push(channel);
      }
      const fresh: string[] = [];
      const mark = (id: string) => {
        if (marked!.size >= seriesSeenMax || marked!.has(id)) return;
        marked!.add(id);
        fresh.push(id);
      };
      for (const id of series) mark(id);
      // A quiet channel's series arrive one a batch: marked at its first batch of the interval with the series
      // it had within the last interval's length, it costs one mark an interval, not one a series. A series gone
      // quiet is so marked seen less than one interval after its last outcome.
      if (firstOfInterval) {
        for (const [id, at] of this.lastSighted.get(channel) ?? []) if (now - at < this.intervalMs) mark(id);
      }
      if (fresh.length > 0) due.series.push({ channel, series: fresh });
      if (series.length > 0) this.noteSighted(channel, series, now);
    }
    return due;
  }

  /** Marks that failed: they are due again at the next batch. */
  forget(due: Partial<DueMarks>): void {
    for (const channel of due.channels ?? []) this.marked.delete(channel);
    for (const { channel, series } of due.series ?? []) {
      const marked = this.marked.get(channel);
      for (const id of series) marked?.delete(id);
    }
  }

  /** The server may have restarted without the lists: everything is due again. */
  forgetAll(): void {
    this.marked = new Map();
  }

  private startInterval(now: number): void {
    this.marked = new Map();
    this.lastSighted = this.sighted;
    this.sighted = new Map();
    this.intervalStart = now;
  }

  private noteSighted(channel: string, series: readonly string[], now: number): void {
    let sighted = this.sighted.get(channel);
    if (!sighted) this.sighted.set(channel, (sighted = new Map()));
    for (const id of series) if (sighted.size < seriesSeenMax || sighted.has(id)) sighted.set(id, now);
  }
}
