// The dims series routing needs in the health snapshot: those decisions have asked about, per channel, bounded
// so a client sending ever new dims values cannot grow the snapshot's reads without limit. With excused codes,
// each series brings its excused twin (docs/routing.md).
import type { SeriesSource } from '../stats/healthSnapshot.js';
import { excusedSeriesId } from '../stats/series.js';

export interface SeriesRegistryOptions {
  /** Series per channel the registry keeps; further ones are counted and not read. Default 64. */
  maxPerChannel?: number;
  /** Channels the registry keeps series for. Default 1,000. */
  maxChannels?: number;
  withExcused: boolean;
}

export class SeriesRegistry implements SeriesSource {
  private readonly known = new Map<string, Map<string, Record<string, string>>>();
  private readonly maxPerChannel: number;
  private readonly maxChannels: number;
  /** Series not kept because a limit was reached (a metric: dims too varied to route on). */
  refused = 0;

  constructor(private readonly o: SeriesRegistryOptions) {
    this.maxPerChannel = o.maxPerChannel ?? 64;
    this.maxChannels = o.maxChannels ?? 1000;
  }

  /** Notes that `channel` is routed for the series `id` (a configured dims set's values). */
  note(channel: string, id: string, dims: () => Record<string, string>): void {
    let series = this.known.get(channel);
    if (series?.has(id)) return;
    if (!series) {
      if (this.known.size >= this.maxChannels) {
        this.refused++;
        return;
      }
      this.known.set(channel, (series = new Map()));
    }
    if (series.size >= this.maxPerChannel) {
      this.refused++;
      return;
    }
    series.set(id, dims());
  }

  seriesOf(channel: string): Array<{ id: string; dims: Record<string, string> }> {
    const out: Array<{ id: string; dims: Record<string, string> }> = [];
    if (this.o.withExcused) out.push({ id: excusedSeriesId(''), dims: {} });
    for (const [id, dims] of this.known.get(channel) ?? []) {
      out.push({ id, dims });
      if (this.o.withExcused) out.push({ id: excusedSeriesId(id), dims });
    }
    return out;
  }
}
