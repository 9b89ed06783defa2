// The dims series each channel is known to have, for the health snapshot (`SeriesSource`): alerts and "where
// the failures concentrate" need the channel's series without a store scan. Learnt from two places: the
// outcomes this process records, at once, and the store's list of each channel's series, which every process
// of a fleet marks (StatsStore.touchChannels), read again at most once a `refreshEveryMs` a channel — so an
// instance that records nothing of a channel still evaluates its `method=bank`. Bounded: at most
// `maxPerChannel` series a channel and `maxChannels` channels, the least recently seen evicted first; a series
// not seen within `horizonMs` is forgotten.
import type { SeriesSource } from './healthSnapshot.js';
import { dimsOfSeriesId, SeriesPlan, seriesIdOf } from './series.js';
import { PartialStoreFailure } from '../store/ports/partialFailure.js';
import { seriesSeenMax, type SeenSeries, type StatsStore } from '../store/ports/stats.js';
import type { PulseLogger } from '../types.js';

export interface KnownSeriesOptions {
  dimensions: string[][];
  horizonMs: number;
  maxPerChannel?: number;
  maxChannels?: number;
  /** Where the series other processes recorded are listed; without it, only this process's are known. */
  store?: Pick<StatsStore, 'listSeries'>;
  /** How old a channel's list from the store may grow: the store's marks are themselves up to 10 s old. */
  refreshEveryMs?: number;
  logger?: PulseLogger;
}

interface Entry {
  dims: Record<string, string>;
  lastSeenMs: number;
}

export class KnownSeries implements SeriesSource {
  private readonly plan: SeriesPlan;
  private readonly setKeys: Set<string>;
  /** channel → series id → entry; Map order is recency (re-inserted on each sighting). */
  private readonly channels = new Map<string, Map<string, Entry>>();
  /** channel → when its list was last asked of the store; Map order is that time's. */
  private readonly refreshedAt = new Map<string, number>();
  private readonly maxPerChannel: number;
  private readonly maxChannels: number;
  private readonly refreshEveryMs: number;
  private failing = false;

  constructor(private readonly options: KnownSeriesOptions, private readonly now: () => number) {
    this.plan = new SeriesPlan(options.dimensions);
    this.setKeys = new Set(options.dimensions.map((set) => [...new Set(set)].sort().join(',')));
    this.maxPerChannel = options.maxPerChannel ?? seriesSeenMax;
    this.maxChannels = options.maxChannels ?? 10_000;
    this.refreshEveryMs = options.refreshEveryMs ?? 10_000;
  }

  observe(outcomes: Array<{ channel: string; dims?: Record<string, string>; at: number }>): void {
    if (this.setKeys.size === 0) return;
    for (const o of outcomes) {
      if (!o.dims) continue;
      const ids = this.plan.seriesOf(o.dims).slice(1);
      for (const id of ids) this.sight(o.channel, id, o.at);
    }
  }

  /**
   * Merges the store's lists of the channels not asked within `refreshEveryMs`, in one store read. Never
   * throws: a list the store cannot give now leaves what is known (local sightings, earlier lists) as it is.
   */
  async refresh(channels: readonly string[]): Promise<void> {
    const store = this.options.store;
    if (!store || this.setKeys.size === 0) return;
    const now = this.now();
    const due = channels.filter((channel) => !this.listFresh(channel, now));
    if (due.length === 0) return;
    for (const channel of due) {
      this.refreshedAt.delete(channel);
      this.refreshedAt.set(channel, now);
      if (this.refreshedAt.size > this.maxChannels) this.refreshedAt.delete(this.refreshedAt.keys().next().value!);
    }
    let lists: ReadonlyArray<SeenSeries[] | undefined>;
    try {
      lists = await store.listSeries(due, now - this.options.horizonMs, now);
      this.noteFailing(false);
    } catch (err) {
      this.noteFailing(true, err instanceof PartialStoreFailure ? err.firstError : err);
      if (!(err instanceof PartialStoreFailure)) return;
      lists = (err as PartialStoreFailure<SeenSeries[]>).results;
    }
    due.forEach((channel, i) => {
      for (const { series, lastSeenMs } of lists[i] ?? []) if (this.configured(series)) this.sight(channel, series, lastSeenMs);
    });
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

  /** A series seen at `atMs`: moved to the back of both recency orders unless what is known is newer. */
  private sight(channel: string, id: string, atMs: number): void {
    let series = this.channels.get(channel);
    if (series) this.channels.delete(channel);
    else series = new Map();
    this.channels.set(channel, series);
    if (this.channels.size > this.maxChannels) this.channels.delete(this.channels.keys().next().value!);
    const entry = series.get(id);
    if (entry && entry.lastSeenMs >= atMs) return;
    series.delete(id);
    series.set(id, { dims: entry?.dims ?? dimsOfSeriesId(id), lastSeenMs: atMs });
    if (series.size > this.maxPerChannel) series.delete(series.keys().next().value!);
  }

  /**
   * A series id of a dimension set this process is configured with, written as this process writes it: the
   * store's list is shared text, and a fleet in the middle of a configuration change lists other sets too.
   */
  private configured(id: string): boolean {
    try {
      const dims = dimsOfSeriesId(id);
      const names = Object.keys(dims).sort();
      return this.setKeys.has(names.join(',')) && seriesIdOf(dims, names) === id;
    } catch {
      return false;
    }
  }

  /** Asked of the store within `refreshEveryMs` (a clock gone back asks again). */
  private listFresh(channel: string, now: number): boolean {
    const at = this.refreshedAt.get(channel);
    return at !== undefined && at <= now && now - at < this.refreshEveryMs;
  }

  /** Logged when reading the lists starts or stops failing, not at every refresh. */
  private noteFailing(failing: boolean, err?: unknown): void {
    if (failing === this.failing) return;
    this.failing = failing;
    if (failing) this.options.logger?.warn({ err: String(err) }, "paypulse: cannot read channels' dims series from the store; using those known");
    else this.options.logger?.info({}, "paypulse: channels' dims series readable again");
  }
}
