// How much of the queue the recorder's next batch takes. Concurrent callers' outcomes are coalesced, so
// every caller waiting at once rides one batch: the store then works while this process waits, and this
// process validates and packs the callers' next outcomes while the store waits. Split into two (or more)
// batches in flight, one part's callers prepare their next outcomes while the store runs the other part
// (docs/decisions/090-record-batches-and-calls.md). A split is not free on Redis: a channel costs a call
// its fixed cost before its first outcome, so a batch of many channels with few outcomes each stays whole.

/** A part of a split batch holds at least this many outcomes (smaller parts ingested less, decision 090). */
export const minSplitOutcomes = 1000;
/**
 * ...and this many outcomes per channel it names: with fewer a split cost Redis more CPU an event than it
 * gained in ingest (decision 090).
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
