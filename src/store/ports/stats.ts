// The storage port of the success-rate engine: a handful of atomic operations named after what they do.
// The Redis engine runs each as one Lua script call per channel; the memory engine as one function.
// Both pass the same conformance suite (test/store/conformance). Stats code never imports a Redis client.
import type { FailedRequest, MinuteCounts, Strategy } from '../../types.js';

/** 1 pending, 2 failure, 3 success: the order is the precedence (a success is never downgraded). */
export const enum StatusCode {
  Pending = 1,
  Failure = 2,
  Success = 3,
}

/** What one outcome did; `stale` is decided before the store and never reaches it. */
export const enum RecordCode {
  Accepted = 0,
  Duplicate = 1,
  Corrected = 2,
}

/** A validated outcome as the store takes it. */
export interface StoredOutcome {
  requestId: string;
  status: StatusCode;
  at: number;
  /** '' when none. */
  code: string;
  /** Series the outcome counts in: the channel ('') first, then its dimension series. */
  series: readonly string[];
  /** hash(requestId): picks the request's ledger shard. */
  hash: number;
}

export interface WindowCounts {
  success: number;
  failure: number;
  started: number;
  pending: number;
}

/**
 * A channel seen at a batch's time, with the dims series its outcomes counted in (never '', the channel itself,
 * nor an excused twin): what other processes learn a channel's series from (`listSeries`).
 */
export interface ChannelSighting {
  channel: string;
  series: readonly string[];
}

/** A series of a channel and when it was last marked seen. */
export interface SeenSeries {
  series: string;
  lastSeenMs: number;
}

/**
 * Dims series the store remembers a channel by, the most recently seen kept: a label with thousands of values
 * (a user id set as a dimension) must not grow one channel's list without end.
 */
export const seriesSeenMax = 200;

/** One channel's outcomes of a batch. */
export interface ChannelBatch {
  channel: string;
  outcomes: StoredOutcome[];
}

/** Series of one channel to read at once: the channel itself is series ''. */
export interface ChannelSeries {
  channel: string;
  series: string[];
}

export interface EngineSettings {
  namespace: string;
  strategy: Strategy;
  pendingTimeoutMs: number;
  /** Dedup horizon: a request's state is remembered this long after its last `at`. */
  horizonMs: number;
  skewToleranceMs: number;
  /** How long per-second and per-minute counts are kept (≥ 2 h). */
  retentionMs: number;
  /** Newest terminal outcomes kept per series for last-N (2,000 by default). */
  lastNMax: number;
  /** Newest failed requests kept per channel for drill-down by the sorted-set strategies; `buckets` keeps every one within the horizon (failures-log.lua). */
  failuresMax: number;
  /** Ledger hashes a channel grows to, a power of 4; small hashes stay in Redis's compact listpack encoding. */
  ledgerShards: number;
}

/**
 * When this store's memory began. The store writes it at first use and keeps it as long as its data, so a
 * store that lost its data (a Redis restarted empty, a new process's memory engine) answers with a new one:
 * outcomes counted in minutes starting after `startedAt` are all in this store, earlier minutes may be partial.
 */
export interface StoreEpoch {
  id: string;
  startedAt: number;
}

export interface StatsStore {
  readonly kind: 'redis' | 'redis-cluster' | 'memory';
  /**
   * Applies one channel's outcomes in order at `now` (timeouts due by `now` first). One code per outcome.
   * Rejects when the store takes longer than `timeoutMs` (the caller then buffers: fail open).
   */
  recordBatch(channel: string, outcomes: StoredOutcome[], now: number, timeoutMs: number): Promise<RecordCode[]>;
  /**
   * `recordBatch` of several channels in as few store calls as the keys allow (one per node on a
   * cluster): `result[i]` is what `recordBatch(batches[i].channel, batches[i].outcomes, …)` answers.
   * Channels must be distinct. Rejects as a whole when every call fails, and with a PartialStoreFailure holding
   * the codes of the channels written when only some do (partialFailure.ts).
   */
  recordBatches(batches: ChannelBatch[], now: number, timeoutMs: number): Promise<RecordCode[][]>;
  /** Counts of one series for each window (seconds), ending at `now`. */
  readWindows(channel: string, series: string, windowsSec: number[], now: number): Promise<WindowCounts[]>;
  /**
   * `readWindows` of many channels' series at once, in as few store calls as the keys allow (one script
   * call per chunk of channels; per node on a cluster): `result[i][j]` is exactly what
   * `readWindows(reads[i].channel, reads[i].series[j], windowsSec, now)` answers. When only some calls fail, rejects
   * with a PartialStoreFailure holding the counts of the channels read.
   */
  readWindowsMany(reads: ChannelSeries[], windowsSec: number[], now: number): Promise<WindowCounts[][][]>;
  /** Successes and failures among the newest `n` terminal outcomes up to `now`. */
  readLastN(channel: string, series: string, n: number, now: number): Promise<{ success: number; failure: number }>;
  /** Newest requests whose final status is failure, with `at` in [fromMs, now]. */
  readFailures(channel: string, fromMs: number, now: number, limit: number): Promise<FailedRequest[]>;
  /** Per-minute counts for the minutes starting in [fromMs, toMs]. */
  readMinutes(channel: string, series: string, fromMs: number, toMs: number, now: number): Promise<MinuteCounts[]>;
  /**
   * Remembers that channels were seen at `now` (for `rates()` and `channels()`), and each with the dims
   * series of its sighting, at most `seriesSeenMax` a channel and none past the dedup horizon (`listSeries`).
   * A mark a few seconds old answers as well as a fresh one, so an engine may skip one it made lately.
   */
  touchChannels(sightings: ChannelSighting[], now: number, timeoutMs: number): Promise<void>;
  /** Channels seen since `sinceMs`, sorted. */
  listChannels(sinceMs: number, now: number): Promise<string[]>;
  /**
   * The dims series marked for each channel since `sinceMs`, whichever process recorded them: `result[i]` is
   * `channels[i]`'s, oldest mark first. In as few store calls as the keys allow (one per node on a cluster).
   */
  listSeries(channels: string[], sinceMs: number, now: number): Promise<SeenSeries[][]>;
  /** This store's epoch, written at the first call and refreshed on each; `id` is used only when it is new. */
  readEpoch(newId: string, now: number): Promise<StoreEpoch>;
  close(): Promise<void>;
}
