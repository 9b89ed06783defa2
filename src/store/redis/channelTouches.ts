// Which channels a batch marks as seen in Redis's channel list (RedisStatsStore.touchChannels). The list
// answers "which channels were seen within the dedup horizon" (the health snapshot, the dashboard): a mark a
// few seconds old answers that as well as a fresh one. Marking every channel of every batch, one sorted-set
// update for each, cost Redis a visible share of its work on quiet channels
// (docs/decisions/090-record-batches-and-calls.md).
// A server that restarted empty has lost the list: every reconnection marks every channel again, and ten
// seconds bound what a server emptied without one (FLUSHALL) leaves unlisted.

/** How stale a mark may grow: ten seconds, less for a short horizon. */
export function touchIntervalMs(horizonMs: number): number {
  return Math.min(10_000, Math.floor(horizonMs / 10));
}

/**
 * Channels marked in the current interval. A new interval starts afresh, so the set holds at most the
 * channels of one interval (and the name limits bound those), and each channel with outcomes is marked
 * again at least once an interval.
 */
export class ChannelTouches {
  private marked = new Set<string>();
  private intervalStart = Number.NEGATIVE_INFINITY;

  constructor(private readonly intervalMs: number) {}

  /** The channels to mark now; they count as marked until `forget` (a failed mark) or the next interval. */
  due(channels: Iterable<string>, now: number): string[] {
    if (now >= this.intervalStart + this.intervalMs || now < this.intervalStart) {
      this.marked = new Set();
      this.intervalStart = now;
    }
    const due: string[] = [];
    for (const channel of channels) {
      if (this.marked.has(channel)) continue;
      this.marked.add(channel);
      due.push(channel);
    }
    return due;
  }

  /** A mark that failed: its channels are due again at the next batch. */
  forget(channels: readonly string[]): void {
    for (const channel of channels) this.marked.delete(channel);
  }

  /** The server may have restarted without the list: every channel is due again. */
  forgetAll(): void {
    this.marked = new Set();
  }
}
