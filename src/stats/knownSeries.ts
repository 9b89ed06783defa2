// The dims series each channel is known to have, learnt from the outcomes this process records, for the
// health snapshot (`SeriesSource`): alerts and "where the failures concentrate" need the channel's series
// without a store scan. Bounded: at most `maxPerChannel` series a channel and `maxChannels` channels, the
// least recently seen evicted first; a series not seen within `horizonMs` is forgotten.
import type { SeriesSource } from './healthSnapshot.js';
import { dimsOfSeriesId, SeriesPlan } from './series.js';

export interface KnownSeriesOptions {
  dimensions: string[][];
  horizonMs: number;
  maxPerChannel?: number;
  maxChannels?: number;
}

interface Entry {
  dims: Record<string, string>;
  lastSeenMs: number;
}

export class KnownSeries implements SeriesSource {
  private readonly plan: SeriesPlan;
  private readonly sets: string[][];
  /** channel → series id → entry; Map order is recency (re-inserted on each sighting). */
  private readonly channels = new Map<string, Map<string, Entry>>();
  private readonly maxPerChannel: number;
  private readonly maxChannels: number;

  constructor(private readonly options: KnownSeriesOptions, private readonly now: () => number) {
    this.plan = new SeriesPlan(options.dimensions);
    this.sets = options.dimensions.map((set) => [...new Set(set)].sort());
    this.maxPerChannel = options.maxPerChannel ?? 200;
    this.maxChannels = options.maxChannels ?? 10_000;
  }

  observe(outcomes: Array<{ channel: string; dims?: Record<string, string>; at: number }>): void {
    if (this.sets.length === 0) return;
    for (const o of outcomes) {
      if (!o.dims) continue;
      const ids = this.plan.seriesOf(o.dims).slice(1);
      if (ids.length === 0) continue;
      let series = this.channels.get(o.channel);
      if (series) this.channels.delete(o.channel);
      else series = new Map();
      this.channels.set(o.channel, series);
      if (this.channels.size > this.maxChannels) this.channels.delete(this.channels.keys().next().value!);
      for (const id of ids) {
        const entry = series.get(id);
        series.delete(id);
        series.set(id, { dims: entry?.dims ?? dimsOfSeriesId(id), lastSeenMs: Math.max(entry?.lastSeenMs ?? 0, o.at) });
        if (series.size > this.maxPerChannel) series.delete(series.keys().next().value!);
      }
    }
  }

  seriesOf(channel: string): Array<{ id: string; dims: Record<string, string> }> {
    const series = this.channels.get(channel);
    if (!series) return [];
    const oldest = this.now() - this.options.horizonMs;
    const out: Array<{ id: string; dims: Record<string, string> }> = [];
    for (const [id, entry] of series) {
      if (entry.lastSeenMs < oldest) series.delete(id);
      else out.push({ id, dims: entry.dims });
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }
}
