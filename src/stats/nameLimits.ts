// Distinct channels, and distinct values of each configured dimension, are what make the store and every
// snapshot grow: each new name is another set of keys and another row read every interval. Past a limit,
// outcomes naming a NEW channel or value are refused (PP_ERR_LIMIT) while known names carry on, so a
// client sending made-up names cannot degrade anyone else. Names are forgotten once unseen for the dedup
// horizon, as the store forgets them (docs/configuration.md).
import type { Clock } from '../clock.js';
import { LimitError, type FieldIssue } from '../errors.js';
import type { Outcome } from '../types.js';

export interface NameLimitSettings {
  maxChannels: number;
  maxDimensionValues: number;
  /** The dimension names that make series (the configured sets); other dims keep no state. */
  dimensionNames: Set<string>;
  horizonMs: number;
}

export interface NameLimitCounts {
  knownChannels: number;
  rejectedChannelOutcomes: number;
  rejectedDimensionOutcomes: number;
}

/** Names seen with their last time; the Map's order is refresh order, so the front holds the oldest. */
class SeenNames {
  private readonly lastSeen = new Map<string, number>();

  has(name: string): boolean {
    return this.lastSeen.has(name);
  }

  see(name: string, now: number): void {
    this.lastSeen.delete(name);
    this.lastSeen.set(name, now);
  }

  forgetBefore(oldestMs: number): void {
    for (const [name, seen] of this.lastSeen) {
      if (seen >= oldestMs) break;
      this.lastSeen.delete(name);
    }
  }

  get size(): number {
    return this.lastSeen.size;
  }
}

export class NameLimits {
  private readonly channels = new SeenNames();
  private readonly dimValues = new Map<string, SeenNames>();
  readonly counts = { rejectedChannelOutcomes: 0, rejectedDimensionOutcomes: 0 };

  constructor(
    private readonly settings: NameLimitSettings,
    private readonly clock: Clock,
  ) {
    for (const name of settings.dimensionNames) this.dimValues.set(name, new SeenNames());
  }

  get knownChannels(): number {
    return this.channels.size;
  }

  /** Seen within the horizon: recorded by this process, or listed by the store at a health snapshot. */
  knowsChannel(name: string): boolean {
    this.forgetOld(this.clock.now());
    return this.channels.has(name);
  }

  /** Channels the store lists (other processes write them too): they count, and are never refused. */
  learnChannels(names: Iterable<string>): void {
    const now = this.clock.now();
    for (const name of names) this.channels.see(name, now);
  }

  /** Throws LimitError, admitting nothing, if the batch names more new channels or values than there is room for. */
  admit(outcomes: readonly Outcome[]): void {
    const now = this.clock.now();
    this.forgetOld(now);
    const issues: FieldIssue[] = [];
    const newChannels = new Set<string>();
    const newValues = new Map<string, Set<string>>();
    let rejectedForChannel = 0;
    let rejectedForDims = 0;
    // Without configured dimensions no dims keep state: their values need no look at all.
    const countsDims = this.dimValues.size > 0;
    outcomes.forEach((o, index) => {
      if (!this.channels.has(o.channel) && !newChannels.has(o.channel)) {
        if (this.channels.size + newChannels.size >= this.settings.maxChannels) {
          rejectedForChannel++;
          issues.push({ index, field: 'channel', reason: `is a new channel past the limit of ${this.settings.maxChannels} distinct channels` });
          return;
        }
        newChannels.add(o.channel);
      }
      if (!countsDims || !o.dims) return;
      for (const [dim, value] of Object.entries(o.dims)) {
        const seen = this.dimValues.get(dim);
        if (!seen || seen.has(value)) continue;
        let fresh = newValues.get(dim);
        if (!fresh) newValues.set(dim, (fresh = new Set()));
        if (fresh.has(value)) continue;
        if (seen.size + fresh.size >= this.settings.maxDimensionValues) {
          rejectedForDims++;
          issues.push({ index, field: `dims.${dim}`, reason: `is a new value past the limit of ${this.settings.maxDimensionValues} values of ${dim}` });
          return;
        }
        fresh.add(value);
      }
    });
    if (issues.length > 0) {
      this.counts.rejectedChannelOutcomes += rejectedForChannel;
      this.counts.rejectedDimensionOutcomes += rejectedForDims;
      throw new LimitError(issues);
    }
    // Each name once a batch: all get the same time, so their order among themselves never decides what
    // forgetBefore() keeps, and a batch names few channels many times over.
    const batchChannels = new Set<string>();
    for (const o of outcomes) {
      batchChannels.add(o.channel);
      if (!countsDims || !o.dims) continue;
      for (const [dim, value] of Object.entries(o.dims)) this.dimValues.get(dim)?.see(value, now);
    }
    for (const channel of batchChannels) this.channels.see(channel, now);
  }

  private forgetOld(now: number): void {
    const oldest = now - this.settings.horizonMs;
    this.channels.forgetBefore(oldest);
    for (const seen of this.dimValues.values()) seen.forgetBefore(oldest);
  }
}
