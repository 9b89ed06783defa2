// The public shapes of PayPulse (docs/architecture.md). Names may grow, not change without reason.
// They import nothing of ours: every layer speaks them. The options of createPulse, which name every feature's
// settings, are in options.ts beside pulse.ts.

export type OutcomeStatus = 'success' | 'failure' | 'pending';

/** One payment request reaching a state. `at` is the COMPLETION time in epoch ms (docs/background.md). */
export interface Outcome {
  channel: string;
  requestId: string;
  status: OutcomeStatus;
  at: number;
  dims?: Record<string, string>;
  code?: string;
  latencyMs?: number;
}

export interface RecordResult {
  accepted: 0 | 1;
  duplicate: 0 | 1;
  corrected: 0 | 1;
  stale: 0 | 1;
  /** 1 when the store was unreachable and the outcome waits in the bounded retry buffer (fail open). */
  buffered: 0 | 1;
  /** 1 when the store was unreachable and the retry buffer was full: the outcome is lost (and logged). */
  dropped: 0 | 1;
}

export interface RecordManyResult {
  accepted: number;
  duplicates: number;
  corrected: number;
  stale: number;
  buffered: number;
  dropped: number;
}

export interface Rate {
  channel: string;
  dims?: Record<string, string>;
  /** `5m`, `1h` … or `last100` for last-N. */
  window: string;
  total: number;
  success: number;
  failure: number;
  /** success / total; null when total is 0 (not a number to average). */
  rate: number | null;
  /** 95 % Wilson score interval. */
  low: number | null;
  high: number | null;
  /** total >= minSamples (fewer than ~100 samples make a jumpy rate). */
  sufficient: boolean;
  /** Requests sent in the window (pending outcomes recorded), apart from the rate (docs/architecture.md). */
  started: number;
  /** Of those, still waiting for a terminal outcome and not yet timed out. */
  pending: number;
  /** true when the store could not be reached and this is the last known value. */
  stale: boolean;
  /** The clock time the numbers are for. */
  asOf: number;
}

export interface FailedRequest {
  requestId: string;
  at: number;
  code?: string;
}

export interface MinuteCounts {
  /** Start of the minute, epoch ms. */
  minute: number;
  success: number;
  failure: number;
  started: number;
}

export type Strategy = 'buckets' | 'zset';

export interface PulseLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface WindowQuery {
  window?: string;
  dims?: Record<string, string>;
}

/** Recording outcomes and reading success rates: what the Pulse and the read routes offer over the stats engine. */
export interface SuccessRates {
  record(outcome: Outcome): Promise<RecordResult>;
  recordMany(outcomes: Outcome[]): Promise<RecordManyResult>;
  rate(channel: string, query?: WindowQuery): Promise<Rate>;
  lastN(channel: string, query: { n: number; dims?: Record<string, string> }): Promise<Rate>;
  /** Rates of every channel seen within the dedup horizon, sorted by channel. */
  rates(query?: { window?: string }): Promise<Rate[]>;
  failures(channel: string, query?: { window?: string; limit?: number }): Promise<FailedRequest[]>;
  /** Per-minute counts of a channel, oldest first, kept at least 2 h (docs/storage.md). */
  minutes(channel: string, query: { from: number; to: number; dims?: Record<string, string> }): Promise<MinuteCounts[]>;
  channels(): Promise<string[]>;
  /** Since when the store has held everything it was given: the history job trusts only those minutes to lower history. */
  storeEpoch(): Promise<StoreEpochInfo>;
  /** The configured windows, e.g. ['1m','5m','15m','1h']. */
  readonly windows: string[];
  /** Operational counters for metrics and logs (fail open must be visible). */
  health(): PulseHealth;
  close(): Promise<void>;
}

/** The live store's epoch (see docs/architecture.md): a store that lost its data starts a new one. */
export interface StoreEpochInfo {
  id: string;
  startedAt: number;
  /**
   * Minutes starting at or after this are complete in the store: every outcome with `at` in them reached this
   * store's memory (the epoch start plus the clock-skew tolerance, as an outcome may be early by that much).
   */
  completeFrom: number;
}

export interface PulseHealth {
  store: 'redis' | 'redis-cluster' | 'memory';
  strategy: Strategy;
  /** false while the store is failing and outcomes are being buffered. */
  storeReachable: boolean;
  /** Outcomes waiting in memory for the store: lost if the process dies (no data folder, or the journal refused them). */
  bufferedOutcomes: number;
  /** Outcomes waiting in the durable spill journal (data folder): they survive a crash. */
  spilledOutcomes: number;
  droppedOutcomes: number;
  /** Outcomes the spill journal refused (full or failing disk) since start; they went to the memory buffer. */
  spillRefusedOutcomes: number;
  /** Why the spill journal refuses outcomes now; absent while it takes them (or there is none). */
  spillRefusing?: string;
  /** 0 normal, 1 store failing (≥ 5 % of calls for 10 s), 2 failing badly (≥ 20 % for 30 s); see docs/architecture.md. */
  degradationLevel: 0 | 1 | 2;
  /** The connection as the service reports it: "waiting for Redis at … since …" until it is ready. */
  storeConnection?: string;
  /**
   * Share (0–1) of the Redis Cluster's 16,384 slots whose master this process cannot reach; on one server 0 or 1.
   * Absent on the embedded store.
   */
  unreachableSlotShare?: number;
  /** Channels whose outcomes wait for their part of the store while the rest answers (a cluster master down). */
  unreachableChannels?: number;
  /** Outcomes rejected as too old or too far in the future. */
  staleOutcomes: number;
  storeErrors: number;
  batches: number;
  lastBatchSize: number;
  /** Rates kept to answer reads during a store outage (at most `lastKnownLimit`). */
  lastKnownRates: number;
  /** Distinct channels seen within the horizon (at most `maxChannels` from this process). */
  knownChannels: number;
  /** Outcomes refused (PP_ERR_LIMIT) for naming a new channel past `maxChannels`. */
  rejectedChannelOutcomes: number;
  /** Outcomes refused (PP_ERR_LIMIT) for a new dimension value past `maxDimensionValues`. */
  rejectedDimensionOutcomes: number;
}
