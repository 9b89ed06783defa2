// How much of the queue the recorder's next batch takes. Concurrent callers' outcomes are coalesced, so
// every caller waiting at once rides one batch: the store then works while this process waits, and this
// process validates and packs the callers' next outcomes while the store waits. Split in two (or more)
// batches in flight, each half's callers prepare their next outcomes while the store runs the other
// half (docs/benchmarks.md, the volume sweep: ingest 1.3–1.4× from 500 events/s per channel).
// A split is not free on Redis: a channel costs its call ≈ 20 µs before its first outcome, so a batch
// of many quiet channels stays whole.

/** A part of a split batch holds at least this many outcomes: below it a call's fixed costs show. */
export const minSplitOutcomes = 1000;
/** ...and this many outcomes per channel it names, so a channel's fixed cost in a call stays small. */
export const minOutcomesPerChannel = 16;

/**
 * Outcomes of the next batch: up to `maxBatch`, or a share of that when `freeSlots` more batches could
 * go to the store now and each share would keep the minimums above.
 */
export function nextBatchSize(queued: ReadonlyArray<{ channel: string }>, maxBatch: number, freeSlots: number): number {
  const size = Math.min(queued.length, maxBatch);
  if (freeSlots < 2 || size < 2 * minSplitOutcomes) return size;
  const channels = new Set<string>();
  for (let i = 0; i < size; i++) channels.add(queued[i]!.channel);
  const parts = Math.min(freeSlots, Math.floor(size / minSplitOutcomes), Math.floor(size / (channels.size * minOutcomesPerChannel)));
  return parts > 1 ? Math.ceil(size / parts) : size;
}
