// What a batch tells the store about its channels (StatsStore.touchChannels): each channel, with the dims series
// its outcomes counted in, so every process of a fleet learns a channel's series, not only the one recording.
import { isExcusedSeries } from './series.js';
import type { ChannelBatch, ChannelSighting } from '../store/ports/stats.js';

const none: readonly string[] = Object.freeze([]);

/** One sighting per batch: its channel and its outcomes' distinct dims series (excused twins are the store's own). */
export function sightingsOf(batches: readonly ChannelBatch[]): ChannelSighting[] {
  return batches.map(({ channel, outcomes }) => {
    let series: Set<string> | undefined;
    for (const outcome of outcomes) {
      // The channel's own series is first; outcomes without dims have no other.
      for (let i = 1; i < outcome.series.length; i++) {
        const id = outcome.series[i]!;
        if (!isExcusedSeries(id)) (series ??= new Set()).add(id);
      }
    }
    return { channel, series: series ? [...series] : none };
  });
}
