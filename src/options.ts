// The options of createPulse (docs/configuration.md). They name every feature's settings, so they sit beside
// pulse.ts, above the features, and not with the data shapes in types.ts that every layer imports.
import type { AlertRulesInput } from './alerts/rules.js';
import type { Clock } from './clock.js';
import type { OperatorStateSettings } from './operatorState/index.js';
import type { RoutingOptions } from './routing/types.js';
import type { DegradationThresholds } from './stats/degradation.js';
import type { Thresholds } from './stats/severity.js';
import type { SqlClient } from './store/ports/sqlClient.js';
import type { PulseLogger, Strategy } from './types.js';

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
