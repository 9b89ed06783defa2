// How much of the queue the recorder's next batch takes. Concurrent callers' outcomes are coalesced, so
// every caller waiting at once rides one batch: the store then works while this process waits, and this
// process validates and packs the callers' next outcomes while the store waits. Split into two (or more)
// batches in flight, one part's callers prepare their next outcomes while the store runs the other part
// (docs/benchmarks.md, "Two batches in flight"). A split is not free on Redis: a channel costs a call
// ≈ 20 µs before its first outcome, so a batch of many channels with few outcomes each stays whole.

/** A part of a split batch holds at least this many outcomes (four parts of 500 ingested less than two of 1,000). */
export const minSplitOutcomes = 1000;
/**
 * ...and this many outcomes per channel it names. At 25 (the sweep's 10 events/s a channel) the split
 * cost Redis 10 % more CPU an event and gained no ingest on a loaded machine; at 125 (50/s) 5 % for more.
 */
export const minOutcomesPerChannel = 32;

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
