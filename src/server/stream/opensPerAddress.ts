// How often one client address may open /v1/stream. Each open may replay up to a replay budget of events, so a
// client reconnecting in a loop turned the replay buffer into a bandwidth amplifier. A token bucket per
// address: a minute's worth of opens at once, refilled evenly; the map of addresses is bounded too.

interface Bucket {
  tokens: number;
  atMs: number;
}

/** Addresses remembered at most; past it the least recently seen is forgotten (it starts with a full bucket). */
const maxAddresses = 10_000;

export class OpensPerAddress {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** 0 when the address may open a stream now (counted); otherwise the ms until it may. */
  take(address: string): number {
    const now = this.now();
    const bucket = this.buckets.get(address);
    const tokens = bucket ? Math.min(this.perMinute, bucket.tokens + Math.max(0, now - bucket.atMs) * this.perMs) : this.perMinute;
    if (tokens < 1) return Math.ceil((1 - tokens) / this.perMs);
    this.buckets.delete(address);
    this.buckets.set(address, { tokens: tokens - 1, atMs: now });
    if (this.buckets.size > maxAddresses) this.buckets.delete(this.buckets.keys().next().value!);
    return 0;
  }
}
