// PayPulse's router in the simulator: the real code paths end to end on virtual time — outcomes recorded
// through the stats engine into the memory stats store, one health snapshot a simulated second, breaker
// states in the memory coordination store, decisions by Routing.route(); wired as createPulse wires it.
import { ManualClock } from '../../src/clock.js';
import { planRouting, startRouting, type Routing } from '../../src/routing/index.js';
import type { RouteDecision, RoutingOptions } from '../../src/routing/types.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import type { Outcome } from '../../src/types.js';
import type { Payment, Policy, SimOutcome } from './baselines.js';
import { simChannels, type SimChannel } from './world.js';

export interface PayPulsePolicy extends Policy {
  close(): Promise<void>;
  routing: Routing;
  /** The decision behind the last choice (what the outage replay labels). */
  lastDecision?: RouteDecision;
}

export function paypulsePolicy(
  name: string,
  startMs: number,
  random: () => number,
  options: RoutingOptions & { withAmount?: boolean } = {},
  channels: readonly SimChannel[] = simChannels,
): PayPulsePolicy {
  const clock = new ManualClock(startMs);
  const stats = resolveSettings({ dimensions: [['method']], windows: ['1m', '5m', '15m', '1h'] });
  const store = new MemoryStatsStore(stats);
  const engine = new SuccessRateEngine(store, stats, clock);
  const plan = planRouting(
    {
      ...options,
      random,
      channels: Object.fromEntries(channels.map((c) => [c.name, { weight: c.weight, fixedFee: c.fixedFee, percentFee: c.percentFee }])),
    },
    stats,
  );
  const snapshots = createHealthSnapshots({
    store,
    clock,
    windows: [...new Set([...stats.windows, ...plan.windows])],
    minSamples: stats.minSamples,
    horizonMs: stats.horizonMs,
    intervalMs: 1000,
    series: plan.series,
  });
  const coordination = new MemoryCoordinationStore(clock);
  const routing = startRouting(plan, { snapshots, coordination, stats: { ...stats, namespace: 'sim' }, clock });
  const policy: PayPulsePolicy = {
    name,
    routing,
    async tick(nowMs) {
      clock.set(nowMs);
      await routing.refresh();
    },
    async choose(p: Payment) {
      const d = await routing.route({ candidates: p.candidates, dims: { method: p.method }, requestId: p.id, ...(options.withAmount ? { amount: p.amount } : {}) });
      policy.lastDecision = d;
      return d.channel;
    },
    async observe(outcomes: SimOutcome[]) {
      if (outcomes.length === 0) return;
      const recorded: Outcome[] = outcomes.map((o) => ({
        channel: o.channel,
        requestId: o.payment.id,
        status: o.success ? 'success' : 'failure',
        at: o.at,
        dims: { method: o.payment.method },
        ...(o.success ? {} : { code: 'do_not_honor' }),
      }));
      await engine.recordMany(recorded);
      await routing.noteOutcomes(recorded);
    },
    async close() {
      await routing.stop();
      await snapshots.stop();
      await engine.close();
      await coordination.close();
    },
  };
  return policy;
}
