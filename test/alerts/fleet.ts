// N PayPulse instances that share their stores, as a fleet of service processes would: on Redis each has its
// own connection, stats reader, health snapshot and coordination store on one redis-server of the test's own;
// on the embedded engines they share one stats store and one coordination store in this process.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createAlertEvaluator, type AlertEvaluator, type AlertSink } from '../../src/alerts/evaluator.js';
import type { ActiveAlert, AlertNotification } from '../../src/alerts/notification.js';
import { resolveAlertRules, windowsNeeded, type AlertRulesInput, type AlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots, type HealthSnapshots, type SeriesSource } from '../../src/stats/healthSnapshot.js';
import { KnownSeries } from '../../src/stats/knownSeries.js';
import { SeriesPlan } from '../../src/stats/series.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import type { CoordinationStore } from '../../src/store/ports/coordination.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import type { StatsStore } from '../../src/store/ports/stats.js';

export const fleetStart = Date.UTC(2026, 2, 2, 10, 0, 0);

/** Keeps what it is handed: the test's receiver. */
export class RecordingSink implements AlertSink {
  readonly notifications: AlertNotification[] = [];
  lastFiring: ActiveAlert[] = [];
  /** `forward`: the real receivers under test, handed everything after it is recorded. */
  constructor(private readonly forward?: AlertSink) {}
  dispatch(n: AlertNotification): void {
    this.notifications.push(n);
    this.forward?.dispatch(n);
  }
  firing(active: ActiveAlert[], nowMs: number): void {
    this.lastFiring = active;
    this.forward?.firing?.(active, nowMs);
  }
}

export interface Instance {
  engine: SuccessRateEngine;
  snapshots: HealthSnapshots;
  coordination: CoordinationStore;
  evaluator: AlertEvaluator;
  sink: RecordingSink;
}

export interface Fleet {
  clock: ManualClock;
  rules: AlertRules;
  instances: Instance[];
  /** Every instance refreshes its snapshot and evaluates it, in turn (as their timers would). */
  evaluateAll(): Promise<void>;
  notifications(): AlertNotification[];
  close(): Promise<void>;
}

export interface FleetOptions {
  instances: number;
  alerts?: AlertRulesInput;
  dimensions?: string[][];
  /** Dims the traffic uses, so each instance's snapshot knows its series; without it, each lists them from the store. */
  knownDims?: Array<Record<string, string>>;
  windows?: string[];
  /** Receivers each instance hands its notifications to (besides recording them). */
  forward?: AlertSink;
}

export type FleetEngine = { name: string; open(options: FleetOptions): Promise<Fleet> };

function seriesSource(dimensions: string[][], knownDims: Array<Record<string, string>>): SeriesSource {
  const plan = new SeriesPlan(dimensions);
  const known = new Map<string, Record<string, string>>();
  for (const dims of knownDims) {
    for (const id of plan.seriesOf(dims).slice(1)) known.set(id, Object.fromEntries(id.split(',').map((p) => p.split('=') as [string, string])));
  }
  return { seriesOf: () => [...known].map(([id, dims]) => ({ id, dims })) };
}

function assemble(clock: ManualClock, rules: AlertRules, options: FleetOptions, namespace: string,
  parts: Array<{ stats: StatsStore; coordination: CoordinationStore }>, close: () => Promise<void>): Fleet {
  const settings = resolveSettings({ namespace, windows: options.windows ?? ['1m', '5m', '1h'], dimensions: options.dimensions, recordTimeoutMs: 5000 });
  const instances = parts.map(({ stats, coordination }) => {
    const engine = new SuccessRateEngine(stats, settings, clock);
    // Without `knownDims`, each instance learns the series as a process does: from the store's lists.
    const series = options.knownDims
      ? seriesSource(options.dimensions ?? [], options.knownDims)
      : new KnownSeries({ dimensions: options.dimensions ?? [], horizonMs: settings.horizonMs, store: stats }, () => clock.now());
    const snapshots = createHealthSnapshots({
      store: stats, clock, windows: [...settings.windows, ...windowsNeeded(rules)], minSamples: settings.minSamples,
      horizonMs: settings.horizonMs, intervalMs: rules.evaluateEveryMs, series,
    });
    const sink = new RecordingSink(options.forward);
    const evaluator = createAlertEvaluator({ rules, namespace, snapshots, coordination, clock, sink, failures: (c, q) => engine.failures(c, q) });
    return { engine, snapshots, coordination, evaluator, sink };
  });
  return {
    clock,
    rules,
    instances,
    async evaluateAll() {
      for (const i of instances) {
        const snapshot = await i.snapshots.refresh();
        await i.evaluator.evaluate(snapshot);
      }
    },
    notifications: () => instances.flatMap((i) => i.sink.notifications),
    close,
  };
}

/** Starts a redis-server of the test file's own before its tests and stops it after; returns its reader. */
export function fileRedis(): () => LocalRedis {
  let redis: LocalRedis | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => redis?.stop());
  return () => redis!;
}

/** Registers the file's redis-server and returns the two fleet engines. */
export function fleetEngines(): FleetEngine[] {
  const redis = fileRedis();
  return [
    {
      name: 'memory',
      async open(options) {
        const clock = new ManualClock(fleetStart);
        const rules = resolveAlertRules(options.alerts);
        const settings = resolveSettings({ windows: options.windows ?? ['1m', '5m', '1h'], dimensions: options.dimensions });
        const stats = new MemoryStatsStore(settings);
        const coordination = new MemoryCoordinationStore(clock);
        const parts = Array.from({ length: options.instances }, () => ({ stats, coordination }));
        return assemble(clock, rules, options, 'paypulse', parts, async () => stats.close());
      },
    },
    {
      name: 'redis',
      async open(options) {
        const clock = new ManualClock(fleetStart);
        const rules = resolveAlertRules(options.alerts);
        const namespace = `a${randomBytes(4).toString('hex')}`;
        const settings = resolveSettings({ namespace, windows: options.windows ?? ['1m', '5m', '1h'], dimensions: options.dimensions });
        const connections = await Promise.all(Array.from({ length: options.instances }, () => RedisConnection.connect({ url: redis().url, commandTimeoutMs: 5000 })));
        const parts = connections.map((c) => ({ stats: new RedisStatsStore(c, settings), coordination: new RedisCoordinationStore(c) }));
        return assemble(clock, rules, options, namespace, parts, async () => void (await Promise.all(connections.map((c) => c.close()))));
      },
    },
  ];
}
