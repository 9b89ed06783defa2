// A gateway that routes every payment through PayPulse's router and alerts on the outcomes, on virtual time:
// payments arrive at a fixed volume, `route()` picks among the candidates, each outcome follows the chosen
// channel's scripted success probability, and the alert evaluator reads the router through its lens — wired as
// createPulse wires them. What the alert tests and `npm run bench:alerts` use to show alerts and router agree.
import { createAlertEvaluator, type AlertEvaluator } from '../../src/alerts/evaluator.js';
import type { AlertNotification } from '../../src/alerts/notification.js';
import { windowsNeeded, type AlertRules } from '../../src/alerts/rules.js';
import { followRouting } from '../../src/alerts/routingLens.js';
import type { TrafficShares } from '../../src/alerts/trafficShares.js';
import type { ManualClock } from '../../src/clock.js';
import { planRouting, startRouting, type Routing } from '../../src/routing/index.js';
import type { RoutingOptions } from '../../src/routing/types.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots, type HealthSnapshots } from '../../src/stats/healthSnapshot.js';
import type { ResolvedSettings } from '../../src/stats/settings.js';
import type { CoordinationStore } from '../../src/store/ports/coordination.js';
import type { StatsStore } from '../../src/store/ports/stats.js';
import type { Outcome } from '../../src/types.js';
import { pick, poisson, seededRandom } from '../../src/sim/random.js';

export interface RoutedWorldOptions {
  clock: ManualClock;
  stats: { store: StatsStore; settings: ResolvedSettings };
  coordination: CoordinationStore;
  rules: AlertRules;
  routing?: RoutingOptions;
  candidates: string[];
  /** Payments a minute, all routed among `candidates`. */
  perMinute: number;
  /** Success probability of a channel at `at`. */
  successOf(channel: string, at: number): number;
  seed: number;
}

export interface RoutedWorld {
  engine: SuccessRateEngine;
  snapshots: HealthSnapshots;
  routing: Routing;
  evaluator: AlertEvaluator;
  shares: TrafficShares;
  notifications: AlertNotification[];
  /** Runs second by second until `untilMs` (epoch ms), evaluating every `evaluateEvery`. */
  runUntil(untilMs: number): Promise<void>;
  close(): Promise<void>;
}

const failureCodes: Array<[string, number]> = [['do_not_honor', 5], ['issuer_unavailable', 3], ['insufficient_funds', 2]];

export function createRoutedWorld(o: RoutedWorldOptions): RoutedWorld {
  const { clock, rules } = o;
  const random = seededRandom(o.seed);
  const engine = new SuccessRateEngine(o.stats.store, o.stats.settings, clock);
  const plan = planRouting({ ...o.routing, random: seededRandom(o.seed + 1) }, o.stats.settings);
  const snapshots = createHealthSnapshots({
    store: o.stats.store, clock, minSamples: o.stats.settings.minSamples, horizonMs: o.stats.settings.horizonMs, intervalMs: 1_000,
    windows: [...new Set([...o.stats.settings.windows, ...plan.windows, ...windowsNeeded(rules)])], series: plan.series,
  });
  const routing = startRouting(plan, { snapshots, coordination: o.coordination, stats: o.stats.settings, clock });
  const { shares, lens } = followRouting({ decisionsByChannel: routing.decisionsByChannel, breakerView: (c) => routing.breakers.view(c) }, (l) => snapshots.onSnapshot(l));
  const notifications: AlertNotification[] = [];
  const evaluator = createAlertEvaluator({
    rules, namespace: o.stats.settings.namespace, snapshots, coordination: o.coordination, clock, lens, recent: (c, q) => engine.lastN(c, q),
    sink: { dispatch: (n) => notifications.push(n) }, failures: (c, q) => engine.failures(c, q),
  });
  let seq = 0;

  async function second(): Promise<void> {
    const from = clock.now();
    const count = poisson(random, o.perMinute / 60);
    const outcomes: Outcome[] = [];
    for (let i = 0; i < count; i++) {
      const at = from + Math.floor((i * 1_000) / count);
      const requestId = `p${o.seed.toString(36)}-${(++seq).toString(36)}`;
      const { channel } = await routing.route({ candidates: o.candidates, requestId });
      const ok = random() < o.successOf(channel, at);
      outcomes.push(ok ? { channel, requestId, status: 'success', at } : { channel, requestId, status: 'failure', at, code: pick(random, failureCodes) });
    }
    clock.advance(1_000);
    if (outcomes.length > 0) {
      await engine.recordMany(outcomes);
      await routing.noteOutcomes(outcomes);
    }
    await routing.refresh();
    if (clock.now() % rules.evaluateEveryMs === 0) await evaluator.evaluate(snapshots.latest());
  }

  return {
    engine, snapshots, routing, evaluator, shares, notifications,
    async runUntil(untilMs) {
      while (clock.now() < untilMs) await second();
    },
    async close() {
      await routing.stop();
      await snapshots.stop();
      await engine.close();
    },
  };
}
