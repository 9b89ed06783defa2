// createPulse(): the library's one entry point. With `redis` it runs on Redis (or Redis Cluster);
// without, on the embedded in-memory engines, which are real single-process engines. The success-rate
// engine and the payment safety kit share one connection and one clock.
import { join } from 'node:path';
import { createAlerts, type Alerts } from './alerts/index.js';
import { followRouting } from './alerts/routingLens.js';
import type { TrafficShares } from './alerts/trafficShares.js';
import { resolveAlertRules, windowsNeeded, type AlertRulesInput } from './alerts/rules.js';
import type { Thresholds } from './stats/severity.js';
import { ValidationError } from './errors.js';
import { alertStateTtlMs } from './alerts/evaluator.js';
import { OperatorState } from './operatorState/index.js';
import { systemClock, type Clock } from './clock.js';
import { createKit, type Kit } from './kit/index.js';
import { observeRecord, observeStoreCall, type PulseObserver } from './observer.js';
import { DegradationSwitch } from './stats/degradation.js';
import { SuccessRateEngine } from './stats/engine.js';
import { DurableSpill } from './stats/spill/durableSpill.js';
import { SpillJournal } from './stats/spill/journal.js';
import { startDegradationProbe } from './stats/degradationProbe.js';
import { createHealthSnapshots, type HealthSnapshots } from './stats/healthSnapshot.js';
import { KnownSeries } from './stats/knownSeries.js';
import { addRecords, noRecords, verdictOf } from './stats/recordResults.js';
import { resolveSettings, type ResolvedSettings } from './stats/settings.js';
import { kitWithAuthority } from './store/kitWithAuthority.js';
import { openKitDatabase, type OpenedKitAuthority } from './history/kitDatabase.js';
import { MemoryCoordinationStore } from './store/memory/coordination.js';
import { MemoryKitStore } from './store/memory/kit/index.js';
import { MemoryStatsStore } from './store/memory/statsStore.js';
import type { CoordinationStore } from './store/ports/coordination.js';
import type { KitStore } from './store/ports/kit.js';
import type { StatsStore } from './store/ports/stats.js';
import { RedisConnection } from './store/redis/connection.js';
import { RedisCoordinationStore } from './store/redis/coordination.js';
import { RedisKitStore } from './store/redis/kit/index.js';
import { RedisStatsStore } from './store/redis/statsStore.js';
import { RedisServerHealthReader, startServerHealthSampler, type ServerHealthSampler } from './store/redis/serverHealth.js';
import { planRouting, startRouting, type BreakerHandle, type Routing } from './routing/index.js';
import type { RouteDecision, RouteRequest } from './routing/types.js';
import type { PulseOptions } from './options.js';
import type {
  FailedRequest,
  MinuteCounts,
  Outcome,
  PulseHealth,
  Rate,
  RecordManyResult,
  RecordResult,
  StoreEpochInfo,
  SuccessRates,
  WindowQuery,
} from './types.js';

export type { PulseObserver } from './observer.js';

function summaryOf(r: RecordResult): RecordManyResult {
  return addRecords(noRecords(), [verdictOf(r)]);
}

/** Optional parts built beside the engine and the kit. */
export interface PulseParts {
  /** Present when `createPulse({ alerts })` configured them. */
  alerts?: Alerts;
  /** The dims series seen by this process, for the snapshot's per-dimension series. */
  knownSeries?: KnownSeries;
  /** The Redis server's INFO, sampled periodically; absent on the embedded store. */
  storeServer?: ServerHealthSampler;
  /** Present when `createPulse({ operatorState })` gave a durable store. */
  operatorState?: OperatorState;
  /** Share of the store's slots this process cannot reach (the connection's slot map); absent on the embedded store. */
  unreachableSlotShare?: () => number;
  trafficShares?: TrafficShares;
}

/**
 * The library object: the success-rate engine and the payment safety kit side by side. Every store-backed
 * call of the engine is reported to the observer. A new part (a router, alerts) is one more member here,
 * built in createPulse and closed in close().
 */
export class Pulse implements SuccessRates {
  readonly windows: string[];
  readonly lock: Kit['lock'];
  readonly idempotency: Kit['idempotency'];
  readonly cache: Kit['cache'];
  readonly recency: Kit['recency'];
  /**
   * Graded alerts on the health snapshot (`createPulse({ alerts })`), evaluating from creation until `close()`;
   * `alerts.active()` lists the firing ones.
   */
  readonly alerts: Alerts | undefined;
  /** Redis's memory, clients, slow log, replication lag and hit rate (docs/storage.md); absent on the embedded store. */
  readonly storeServer: ServerHealthSampler | undefined;
  /** Overrides, mutes and firing alerts kept durably and restored when Redis forgets them (`createPulse({ operatorState })`). */
  readonly operatorState: OperatorState | undefined;
  /** Each channel's share of this instance's routing decisions over the last hour, and leader changes. */
  readonly trafficShares: TrafficShares | undefined;
  private readonly knownSeries: KnownSeries | undefined;
  private readonly unreachableSlotShare: (() => number) | undefined;
  readonly snapshotIntervalMs = snapshotIntervalMs;

  constructor(
    private readonly engine: SuccessRateEngine,
    private readonly kit: Kit,
    /** The process's one health snapshot; started by whoever needs it live (service, alerts, routing). */
    readonly snapshots: HealthSnapshots,
    readonly settings: Readonly<ResolvedSettings>,
    private readonly observer: PulseObserver,
    /** Closes what the parts share (the stores, the connection), after the parts. */
    private readonly closeShared: () => Promise<void>,
    /** The router and the shared breakers (docs/routing.md). */
    readonly routing: Routing,
    private readonly describeStore: (() => string) | undefined,
    parts: PulseParts = {},
  ) {
    this.alerts = parts.alerts;
    this.storeServer = parts.storeServer;
    this.operatorState = parts.operatorState;
    this.trafficShares = parts.trafficShares;
    this.unreachableSlotShare = parts.unreachableSlotShare;
    this.knownSeries = parts.knownSeries;
    this.windows = engine.windows;
    this.lock = kit.lock;
    this.idempotency = kit.idempotency;
    this.cache = kit.cache;
    this.recency = kit.recency;
  }

  async record(outcome: Outcome): Promise<RecordResult> {
    this.knownSeries?.observe([outcome]);
    const result = await observeRecord(this.observer, 'record', [outcome], () => this.engine.record(outcome), summaryOf);
    await this.routing.noteOutcomes([outcome]);
    return result;
  }

  async recordMany(outcomes: Outcome[]): Promise<RecordManyResult> {
    if (Array.isArray(outcomes)) this.knownSeries?.observe(outcomes);
    const result = await observeRecord(this.observer, 'recordMany', outcomes, () => this.engine.recordMany(outcomes), (r) => r);
    // Probes and experiment arms are credited from what was recorded; it never fails the record.
    await this.routing.noteOutcomes(outcomes);
    return result;
  }

  /**
   * The channel to send a payment to, from this process's health cache (never a store call per decision,
   * except a half-open channel's probe lease). The first call starts the health snapshot and the cache.
   */
  route(request: RouteRequest): Promise<RouteDecision> {
    this.startRouting();
    return this.routing.route(request);
  }

  /** A channel's shared breaker: `state()` as stored now, `setMode()` for the manual override. */
  breaker(channel: string): BreakerHandle {
    return this.routing.breaker(channel);
  }

  /** Keeps the health snapshot and routing's cache live (the service calls it at start; `route()` on first use). */
  startRouting(): void {
    if (this.routingLive) return;
    this.routingLive = true;
    this.snapshots.start();
    this.routing.start();
  }

  private routingLive = false;

  rate(channel: string, query?: WindowQuery): Promise<Rate> {
    return observeStoreCall(this.observer, 'rate', () => this.engine.rate(channel, query));
  }

  lastN(channel: string, query: { n: number; dims?: Record<string, string> }): Promise<Rate> {
    return observeStoreCall(this.observer, 'lastN', () => this.engine.lastN(channel, query));
  }

  rates(query?: { window?: string }): Promise<Rate[]> {
    return observeStoreCall(this.observer, 'rates', () => this.engine.rates(query));
  }

  /** Every configured window of one channel (or dims series) in one store call. */
  ratesOf(channel: string, dims?: Record<string, string>): Promise<Rate[]> {
    return this.engine.ratesOf(channel, dims);
  }

  failures(channel: string, query?: { window?: string; limit?: number }): Promise<FailedRequest[]> {
    return observeStoreCall(this.observer, 'failures', () => this.engine.failures(channel, query));
  }

  minutes(channel: string, query: { from: number; to: number; dims?: Record<string, string> }): Promise<MinuteCounts[]> {
    return observeStoreCall(this.observer, 'minutes', () => this.engine.minutes(channel, query));
  }

  channels(): Promise<string[]> {
    return observeStoreCall(this.observer, 'channels', () => this.engine.channels());
  }

  /** Seen within the dedup horizon: recorded by this process, or listed by the store at a health snapshot (no store call). */
  knowsChannel(channel: string): boolean {
    return this.engine.knowsChannel(channel);
  }

  storeEpoch(): Promise<StoreEpochInfo> {
    return this.engine.storeEpoch();
  }

  health(): PulseHealth {
    const health = this.engine.health();
    const withShare = this.unreachableSlotShare ? { ...health, unreachableSlotShare: this.unreachableSlotShare() } : health;
    return this.describeStore ? { ...withShare, storeConnection: this.describeStore() } : withShare;
  }

  /**
   * New alert rules while running (a config reload), from the next evaluation on. Checked whole first — any bad
   * field throws a ValidationError and nothing changes. A rule asking for a window the snapshot does not read
   * needs a restart, as does `evaluateEvery` (it keeps its value).
   */
  reconfigureAlerts(input: AlertRulesInput, thresholds?: Thresholds): void {
    if (!this.alerts) throw new ValidationError([{ index: 0, field: 'alerts', reason: 'were not configured at start; turning them on needs a restart' }]);
    const rules = resolveAlertRules(input, thresholds, this.settings.minSamples);
    const unread = windowsNeeded(rules).filter((w) => !this.snapshots.windows.includes(w));
    const reads = this.snapshots.windows.join(', ');
    if (unread.length > 0) throw new ValidationError(unread.map((w) => ({ index: 0, field: 'alerts', reason: `window ${w} is not read by this process (it reads ${reads}); it needs a restart` })));
    this.alerts.reconfigure(rules);
  }

  /** Writes outcomes buffered during a store outage now; false while the store still fails. */
  flushBuffer(): Promise<boolean> {
    return this.engine.flushBuffer();
  }

  async close(): Promise<void> {
    await this.alerts?.stop();
    await this.routing.stop();
    await this.operatorState?.stop();
    await this.snapshots.stop();
    await this.engine.close();
    await this.kit.close();
    await this.closeShared();
  }
}

interface Stores {
  stats: StatsStore;
  kit: KitStore;
  coordination: CoordinationStore;
  /** "waiting for Redis at … since …" and the like; absent for the embedded store. */
  describe?: () => string;
  unreachableSlotShare?: () => number;
  storeServer?: ServerHealthSampler;
  close(): Promise<void>;
}

async function openStores(options: PulseOptions, settings: ResolvedSettings): Promise<Stores> {
  const kitDatabase = await openKitDatabase(options.kitDatabase);
  try {
    return await openEngineStores(options, settings, kitDatabase);
  } catch (err) {
    await kitDatabase?.close().catch(() => undefined);
    throw err;
  }
}

/** With a kit database, its authority answers every mark and lock; the engine's store keeps the rest. */
function kitOf(engineKit: KitStore, kitDatabase: OpenedKitAuthority | undefined): KitStore {
  return kitDatabase ? kitWithAuthority(engineKit, kitDatabase.authority) : engineKit;
}

async function openEngineStores(options: PulseOptions, settings: ResolvedSettings, kitDatabase: OpenedKitAuthority | undefined): Promise<Stores> {
  const closeKitDatabase = async () => kitDatabase?.close();
  if (!options.redis) {
    const kit = kitOf(new MemoryKitStore({ clock: options.clock ?? systemClock }), kitDatabase);
    const coordination = new MemoryCoordinationStore(options.clock ?? systemClock);
    return {
      stats: new MemoryStatsStore(settings),
      kit,
      coordination,
      close: async () => {
        await kit.close();
        await closeKitDatabase();
      },
    };
  }
  // Returns at once whatever Redis's state (docs/architecture.md, fail open), unless connectTimeoutMs asks to wait.
  const redis = await RedisConnection.connect({
    url: options.redis,
    cluster: options.cluster,
    commandTimeoutMs: 1000,
    logger: options.logger,
    connectTimeoutMs: options.connectTimeoutMs,
  });
  const kit = kitOf(new RedisKitStore(redis), kitDatabase);
  const storeServer = startServerHealthSampler(new RedisServerHealthReader(redis));
  return {
    storeServer,
    stats: new RedisStatsStore(redis, settings),
    kit,
    coordination: new RedisCoordinationStore(redis),
    describe: () => redis.describe(),
    unreachableSlotShare: () => redis.unreachableSlotShare(),
    close: async () => {
      storeServer.stop();
      await kit.close();
      await redis.close();
      await closeKitDatabase();
    },
  };
}

async function openSpill(options: PulseOptions): Promise<DurableSpill | undefined> {
  if (!options.dataDir) return undefined;
  const clock = options.clock ?? systemClock;
  const journal = await SpillJournal.open({ dir: join(options.dataDir, 'spill'), ...(options.spillMaxBytes === undefined ? {} : { maxBytes: options.spillMaxBytes }) });
  return new DurableSpill(journal, options.logger, () => clock.now());
}

function degradationSwitch(options: PulseOptions, clock: Clock): DegradationSwitch {
  return new DegradationSwitch(clock, options.degradation, ({ level, previous, failureRatio }) => {
    const log = level > previous ? options.logger?.warn : options.logger?.info;
    log?.call(options.logger, { level, previous, failureRatio }, `paypulse: degradation level ${previous} → ${level}`);
  });
}
/** One health snapshot a second: the stream's pace and the freshness alerts and routing act on. */
const snapshotIntervalMs = 1000;

export async function createPulse(options: PulseOptions = {}, observer: PulseObserver = {}): Promise<Pulse> {
  const settings = resolveSettings(options);
  const clock = options.clock ?? systemClock;
  // Checked before any connection is opened: a bad rule must stop the start, naming its field.
  const alertRules = options.alerts ? resolveAlertRules(options.alerts, options.thresholds, settings.minSamples) : undefined;
  const degradation = degradationSwitch(options, clock);
  const spill = await openSpill(options);
  const stores = await openStores(options, settings).catch(async (err: unknown) => {
    await spill?.close();
    throw err;
  });
  // The switch's own evidence while degraded, whatever calls the process makes (degradationProbe.ts).
  const probe = startDegradationProbe(degradation, () => stores.stats.listChannels(clock.now(), clock.now()));
  const engine = new SuccessRateEngine(stores.stats, settings, clock, options.logger, observer.onBatch?.bind(observer), { spill, degradation });
  const kit = createKit({ store: stores.kit, clock, namespace: settings.namespace });
  const plan = planRouting(options.routing ?? {}, settings);
  const knownSeries = settings.dimensions.length > 0
    ? new KnownSeries({ dimensions: settings.dimensions, horizonMs: settings.horizonMs, store: stores.stats, logger: options.logger }, () => clock.now())
    : undefined;
  const snapshots = createHealthSnapshots({
    store: stores.stats,
    clock,
    windows: [...settings.windows, ...plan.windows, ...(alertRules ? windowsNeeded(alertRules) : [])],
    minSamples: settings.minSamples,
    horizonMs: settings.horizonMs,
    intervalMs: snapshotIntervalMs,
    series: plan.series,
    logger: options.logger,
    ...(knownSeries ? { series: knownSeries } : {}),
  });
  snapshots.onSnapshot((snapshot) => engine.learnChannels(snapshot.channels.keys()));
  const operatorState = options.operatorState
    ? new OperatorState(options.operatorState, { namespace: settings.namespace, clock, coordination: stores.coordination, readEpoch: () => engine.storeEpoch(), logger: options.logger })
    : undefined;
  const routing = startRouting(plan, { snapshots, coordination: stores.coordination, stats: settings, clock, logger: options.logger, keepOverride: operatorState?.keepOverride });
  const followed = followRouting({ decisionsByChannel: routing.decisionsByChannel, breakerView: (c) => routing.breakers.view(c) }, (l) => snapshots.onSnapshot(l));
  const keeper = operatorState && alertRules
    ? operatorState.alertKeeper({ stateTtlMs: alertStateTtlMs(alertRules), evaluateEveryMs: alertRules.evaluateEveryMs, resolveOrphan: (last, nowMs) => alerts?.resolveOrphan(last, nowMs) })
    : undefined;
  const alerts: Alerts | undefined = alertRules
    ? createAlerts({
        rules: alertRules,
        namespace: settings.namespace,
        snapshots,
        coordination: stores.coordination,
        clock,
        failures: (channel, query) => engine.failures(channel, query),
        minutes: { live: (channel, range) => engine.minutes(channel, range), liveRetentionMs: settings.retentionMs, minSamples: settings.minSamples },
        logger: options.logger,
        ...(observer.onAlertNotification ? { onResult: observer.onAlertNotification.bind(observer) } : {}),
        ...(keeper ? { keeper } : {}),
        lens: followed.lens,
        recent: (channel, query) => engine.lastN(channel, query),
      })
    : undefined;
  operatorState?.start();
  const closeStores = () => {
    probe.stop();
    return stores.close();
  };
  const pulse = new Pulse(engine, kit, snapshots, settings, observer, closeStores, routing, stores.describe, { alerts, knownSeries, storeServer: stores.storeServer, operatorState, unreachableSlotShare: stores.unreachableSlotShare, trafficShares: followed.shares });
  // Configured alerts that wait for a start() call nobody knows to make would stay silent through an outage.
  if (alerts) {
    alerts.start();
    snapshots.start();
  }
  return pulse;
}
