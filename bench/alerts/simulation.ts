// One simulated run on virtual time: traffic through the embedded stats engine, one health snapshot every
// `evaluateEvery`, and every decision rule under comparison evaluating the same snapshots side by side (each
// with its own coordination store), so the rules differ in nothing but the rule.
import { createAlertEvaluator, type AlertEvaluator } from '../../src/alerts/evaluator.js';
import type { AlertNotification } from '../../src/alerts/notification.js';
import { windowsNeeded, type AlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import type { SteadyChannel } from '../../src/sim/steadyTraffic.js';
import { SteadyTraffic } from '../../src/sim/steadyTraffic.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots, type HealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';

export interface Variant {
  name: string;
  rules: AlertRules;
}

export interface RunOptions {
  variants: Variant[];
  channels: SteadyChannel[];
  startMs: number;
  durationMs: number;
  seed: number;
  /** Instances evaluating side by side, each with its own snapshot, sharing each rule's coordination store. */
  instances?: number;
}

export interface RunResult {
  notifications: Map<string, AlertNotification[]>;
  evaluations: number;
  outcomes: number;
  wallMs: number;
}

export async function runSimulation(options: RunOptions): Promise<RunResult> {
  const wallStart = performance.now();
  const clock = new ManualClock(options.startMs);
  const settings = resolveSettings({ windows: ['1m', '5m', '1h'], recordTimeoutMs: 60_000 });
  const store = new MemoryStatsStore(settings);
  const engine = new SuccessRateEngine(store, settings, clock);
  const everyMs = options.variants[0]!.rules.evaluateEveryMs;
  const instances = Array.from({ length: options.instances ?? 1 }, () => createHealthSnapshots({
    store, clock, minSamples: settings.minSamples, horizonMs: settings.horizonMs, intervalMs: everyMs,
    windows: [...new Set(options.variants.flatMap((v) => windowsNeeded(v.rules)))],
  }));
  const notifications = new Map<string, AlertNotification[]>();
  const evaluators: Array<{ snapshots: HealthSnapshots; evaluator: AlertEvaluator }> = [];
  for (const variant of options.variants) {
    const seen: AlertNotification[] = [];
    notifications.set(variant.name, seen);
    const coordination = new MemoryCoordinationStore(clock);
    for (const snapshots of instances) {
      evaluators.push({ snapshots, evaluator: createAlertEvaluator({
        rules: variant.rules, namespace: 'bench', snapshots, clock, coordination,
        sink: { dispatch: (n) => seen.push(n) }, failures: (c, q) => engine.failures(c, q),
      }) });
    }
  }
  const traffic = new SteadyTraffic(options.channels, options.seed);
  const end = options.startMs + options.durationMs;
  let evaluations = 0;
  let outcomes = 0;
  while (clock.now() < end) {
    const from = clock.now();
    clock.advance(1_000);
    const batch = traffic.between(from, clock.now());
    outcomes += batch.length;
    if (batch.length > 0) await engine.recordMany(batch);
    if ((clock.now() - options.startMs) % everyMs === 0) {
      const taken = new Map(await Promise.all(instances.map(async (s) => [s, await s.refresh()] as const)));
      for (const { snapshots, evaluator } of evaluators) await evaluator.evaluate(taken.get(snapshots));
      evaluations++;
    }
  }
  await engine.close();
  return { notifications, evaluations, outcomes, wallMs: performance.now() - wallStart };
}
