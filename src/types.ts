// The public shapes of PayPulse (docs/architecture.md). Names may grow, not change without reason.
import type { AlertRulesInput, Thresholds } from './alerts/rules.js';
import type { Clock } from './clock.js';
import type { RoutingOptions } from './routing/types.js';
import type { DegradationThresholds } from './stats/degradation.js';
import type { SqlClient } from './history/sqlClient.js';
import type { OperatorStateSettings } from './operatorState/index.js';

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

export interface PulseOptions {
  /** Alert rules (docs/alerts.md); none: no alerts are evaluated. */
  alerts?: AlertRulesInput;
  /** The levels that colour the dashboard and raise alerts. Default warn 0.95, major 0.80, critical 0.50. */
  thresholds?: Thresholds;
  /** Redis URL; several comma-separated URLs (or `cluster: true`) for Redis Cluster. None: embedded store. */
  redis?: string;
  cluster?: boolean;
  namespace?: string;
  strategy?: Strategy;
  /** Windows reported by `rates()` and the service; the longest sets the dedup horizon. Default 1m 5m 15m 1h. */
  windows?: string[];
  /** Samples a rate needs to be `sufficient`. Default 100. */
  minSamples?: number;
  /** Dimension sets kept besides the channel, e.g. [['method'], ['method', 'currency']]. */
  dimensions?: string[][];
  /** When true, outcome dims must only use names that appear in `dimensions`. */
  restrictDims?: boolean;
  /** A pending request without terminal outcome after this long counts as a failure `timeout`. Default 5 min. */
  pendingTimeoutMs?: number;
  /** How far in the future an outcome's `at` may be (clock skew). Default 60 s. */
  skewToleranceMs?: number;
  /**
   * Base timeout of a store call on the record path, plus 20 µs for each outcome at the store at the time;
   * past it the batch is buffered (fail open). Default 50 ms.
   */
  recordTimeoutMs?: number;
  /** Outcomes held while the store is unreachable; beyond it they are dropped and counted. Default 100,000. */
  bufferLimit?: number;
  /** Outcomes per store call; larger batches are split. Default 5,000. */
  maxBatch?: number;
  /**
   * With `redis`: reject createPulse when Redis is not ready within this long. Without it (the default)
   * createPulse returns at once whatever Redis's state, connects in the background and buffers meanwhile.
   */
  connectTimeoutMs?: number;
  /**
   * A folder for the durable spill: outcomes that cannot reach the store are fsync'd to a journal in
   * `<dataDir>/spill` before `buffered` is answered, and written to the store when it is back, after a crash
   * too. Without it they wait in memory and are lost if the process dies.
   */
  dataDir?: string;
  /** Bytes the spill journal may hold; past it outcomes wait in the memory buffer instead. Default 1 GiB. */
  spillMaxBytes?: number;
  /** Thresholds of the degradation switch (docs/architecture.md); each one optional. */
  degradation?: Partial<DegradationThresholds>;
  /**
   * A PostgreSQL database (a `postgres://` URL, or a client you own and close) that becomes the one authority
   * for the kit's callback marks and locks, at every degradation level: Redis is never asked about them, so a
   * Redis stall or an empty restart cannot make a handler run twice or a lock have two holders. The cache and
   * recency sets stay on Redis. Its tables are created by the history migrations, run at start. Without it
   * marks and locks live in Redis and the kit fails closed (PP_ERR_STORE_UNAVAILABLE) while Redis is down.
   */
  kitDatabase?: string | SqlClient;
  /**
   * Where breaker overrides, mutes and firing alerts are kept so a Redis restarted empty cannot erase them
   * (`{ store: await openPostgresOperatorState(url) }`, docs/configuration.md). Without it they live in Redis only.
   */
  operatorState?: OperatorStateSettings;
  /** Last known rates kept to answer reads while the store is down (least recently used evicted). Default 10,000. */
  lastKnownLimit?: number;
  /** Distinct channels within the dedup horizon; outcomes for new ones past it are refused (PP_ERR_LIMIT). Default 10,000. */
  maxChannels?: number;
  /** Distinct values of each configured dimension within the horizon, likewise. Default 1,000. */
  maxDimensionValues?: number;
  clock?: Clock;
  /**
   * Failure codes that are not the channel's fault (insufficient funds, wrong PIN …): they still count in the
   * plain rate, and are also kept apart so routing counts them for neither score nor breaker.
   */
  excusedCodes?: string[];
  /** The router and the shared breaker (docs/routing.md); its `excusedCodes` count as the option above. */
  routing?: RoutingOptions;
  /** Receives operational events (store errors, buffer overflow), e.g. a pino logger's methods. */
  logger?: PulseLogger;
}

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
