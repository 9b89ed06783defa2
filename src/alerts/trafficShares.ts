// Each channel's share of the router's decisions over time, and when the most-chosen channel changed: what the
// alerts quote ("its share went from 48 % to 2 %") and the dashboard's routing panel draws. Kept from the
// router's monotonic decision counts, sampled at each health snapshot into 5-second buckets for an hour; the
// counts are this instance's own decisions, which every instance of a fleet routing alike sees in proportion.

/** What the router exposes: monotonic totals per channel and reason (src/routing/decisionCounts.ts). */
export interface DecisionCountsSource {
  entries(): Iterable<[string, string, number]>;
}

export interface LeaderChange {
  at: number;
  from: string | null;
  to: string;
}

export interface ShareBucket {
  /** Start of the bucket, epoch ms. */
  at: number;
  total: number;
  /** Decisions per channel in the bucket. */
  byChannel: Record<string, number>;
}

export const bucketMs = 5_000;
const keptBuckets = 720;
const keptLeaderChanges = 100;

export class TrafficShares {
  private readonly buckets: Array<{ at: number; byChannel: Map<string, number> }> = [];
  private readonly seen = new Map<string, number>();
  private readonly changes: LeaderChange[] = [];
  private leader: string | null = null;

  constructor(private readonly source: DecisionCountsSource) {}

  /** Adds the decisions made since the last sample to the bucket of `nowMs`. */
  sample(nowMs: number): void {
    const totals = new Map<string, number>();
    for (const [channel, , n] of this.source.entries()) totals.set(channel, (totals.get(channel) ?? 0) + n);
    const start = Math.floor(nowMs / bucketMs) * bucketMs;
    let bucket = this.buckets.at(-1);
    if (!bucket || bucket.at < start) {
      if (bucket) this.noteLeader(bucket);
      bucket = { at: start, byChannel: new Map() };
      this.buckets.push(bucket);
      if (this.buckets.length > keptBuckets) this.buckets.shift();
    }
    for (const [channel, total] of totals) {
      const added = total - (this.seen.get(channel) ?? 0);
      this.seen.set(channel, total);
      if (added > 0) bucket.byChannel.set(channel, (bucket.byChannel.get(channel) ?? 0) + added);
    }
  }

  /** A closed bucket's most-chosen channel; a change of it is a leader change. */
  private noteLeader(bucket: { at: number; byChannel: Map<string, number> }): void {
    let best: string | null = null;
    for (const [channel, n] of bucket.byChannel) if (best === null || n > bucket.byChannel.get(best)!) best = channel;
    if (best === null || best === this.leader) return;
    this.changes.push({ at: bucket.at, from: this.leader, to: best });
    if (this.changes.length > keptLeaderChanges) this.changes.shift();
    this.leader = best;
  }

  /** The channel's share of the decisions made in [fromMs, toMs), and how many decisions that share rests on. */
  share(channel: string, fromMs: number, toMs: number): { share: number | null; decisions: number } {
    let mine = 0;
    let all = 0;
    for (const b of this.buckets) {
      if (b.at + bucketMs <= fromMs || b.at >= toMs) continue;
      for (const [c, n] of b.byChannel) {
        all += n;
        if (c === channel) mine += n;
      }
    }
    return { share: all > 0 ? mine / all : null, decisions: all };
  }

  /** Decisions the router made for the channel in the buckets that start in [fromMs, toMs): a span's whole buckets. */
  decisionsOf(channel: string, fromMs: number, toMs: number): number {
    let n = 0;
    for (const b of this.buckets) if (b.at >= fromMs && b.at < toMs) n += b.byChannel.get(channel) ?? 0;
    return n;
  }

  /** Whether the router has made any decision for the channel in the kept hour. */
  routes(channel: string): boolean {
    return this.seen.has(channel);
  }

  /** The buckets from `fromMs` on, oldest first (the dashboard's routing panel). */
  history(fromMs = 0): ShareBucket[] {
    return this.buckets
      .filter((b) => b.at + bucketMs > fromMs)
      .map((b) => {
        let total = 0;
        for (const n of b.byChannel.values()) total += n;
        return { at: b.at, total, byChannel: Object.fromEntries(b.byChannel) };
      });
  }

  leaderChanges(fromMs = 0): LeaderChange[] {
    return this.changes.filter((c) => c.at >= fromMs);
  }
}
