// A routing stack as createPulse wires it (planRouting, then startRouting), on virtual time: the stats engine over a real store, one health
// snapshot, the coordination store, and Routing over them. Instances built on one store share it, like a fleet.
import { ManualClock } from '../../src/clock.js';
import { planRouting, startRouting, type Routing } from '../../src/routing/index.js';
import type { BreakerTransition } from '../../src/routing/sharedBreakers.js';
import type { RoutingOptions } from '../../src/routing/types.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots, type HealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings, type ResolvedSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import type { StatsStore } from '../../src/store/ports/stats.js';
import type { CoordinationStore } from '../../src/store/ports/coordination.js';
import type { Outcome } from '../../src/types.js';

export interface Stack {
  clock: ManualClock;
  engine: SuccessRateEngine;
  snapshots: HealthSnapshots;
  routing: Routing;
  /** Records outcomes and lets routing credit probes and arms. */
  record(outcomes: Outcome[]): Promise<void>;
  close(): Promise<void>;
}

export interface StackParts {
  clock?: ManualClock;
  stats?: { store: StatsStore; settings: ResolvedSettings };
  coordination?: CoordinationStore;
  namespace?: string;
  onTransition?: (t: BreakerTransition) => void;
}

export const t0 = Date.UTC(2026, 0, 1, 12);

export function memoryStats(excusedCodes: string[] = []): { store: StatsStore; settings: ResolvedSettings } {
  const settings = resolveSettings({ dimensions: [['method'], ['currency', 'method']], minSamples: 20, excusedCodes });
  return { store: new MemoryStatsStore(settings), settings };
}

export function createStack(options: RoutingOptions = {}, parts: StackParts = {}): Stack {
  const clock = parts.clock ?? new ManualClock(t0);
  const { store, settings: stats } = parts.stats ?? memoryStats(options.excusedCodes);
  const engine = new SuccessRateEngine(store, stats, clock);
  const plan = planRouting(options, stats);
  const snapshots = createHealthSnapshots({
    store,
    clock,
    windows: [...new Set([...stats.windows, ...plan.windows])],
    minSamples: stats.minSamples,
    horizonMs: stats.horizonMs,
    intervalMs: 1000,
    series: plan.series,
  });
  const coordination = parts.coordination ?? new MemoryCoordinationStore(clock);
  const routing = startRouting(plan, { snapshots, coordination, stats: { ...stats, namespace: parts.namespace ?? 'test' }, clock, onTransition: parts.onTransition });
  return {
    clock,
    engine,
    snapshots,
    routing,
    async record(outcomes) {
      await engine.recordMany(outcomes);
      await routing.noteOutcomes(outcomes);
    },
    async close() {
      await routing.stop();
      await snapshots.stop();
      await engine.close();
    },
  };
}

let seq = 0;
/** `success` successes and `failure` failures on a channel at the clock's time. */
export function outcomes(channel: string, success: number, failure: number, at: number, extra: Partial<Outcome> = {}): Outcome[] {
  const out: Outcome[] = [];
  for (let i = 0; i < success + failure; i++) {
    out.push({ channel, requestId: `r${++seq}`, status: i < success ? 'success' : 'failure', at, ...extra });
  }
  return out;
}
