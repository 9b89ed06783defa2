// `npm run bench:routing`: the scenario battery. Every scenario of scenarios.ts, on every seed, routed by
// static weights, a last-N policy, decision-engine's published scheme, PayPulse's router (the real code on
// virtual time) and the oracle, on the same payments and luck. Prints one table a scenario and the bars, and
// writes bench/routing/results/battery.json. Never part of `npm test`.
// BENCH_ROUTING_SEEDS=1,2,3 picks seeds; BENCH_ROUTING_SCENARIOS=0,3,14 picks scenarios by index;
// BENCH_ROUTING_OPTIONS='{"exploration":0.02}' tries routing settings on the PayPulse rows;
// BENCH_ROUTING_TIMING=0 skips the decision latency; BENCH_ROUTING_RESULTS=<file> writes elsewhere, BENCH_ROUTING_MERGE=<file>,<file> tabulates saved runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { seededRandom } from '../../../src/sim/random.js';
import type { RoutingOptions } from '../../../src/routing/types.js';
import { decisionEngine, lastNGreedy, oracle, staticWeights, type Policy } from '../baselines.js';
import { measureDecisionLatency } from '../latency.js';
import { paypulsePolicy } from '../paypulsePolicy.js';
import { runScenario, type ScenarioResult } from './measure.js';
import { scenarios } from './scenarios.js';
import { ScenarioWorld } from './world.js';
import { barsTable, scenarioTables } from './report.js';

const seeds = (process.env.BENCH_ROUTING_SEEDS ?? '1,2,3').split(',').filter(Boolean).map(Number);
const picked = process.env.BENCH_ROUTING_SCENARIOS?.split(',').filter(Boolean).map(Number);
const extra = JSON.parse(process.env.BENCH_ROUTING_OPTIONS ?? '{}') as RoutingOptions;
const resultsFile = process.env.BENCH_ROUTING_RESULTS ?? new URL('../results/battery.json', import.meta.url).pathname;
const merge = (process.env.BENCH_ROUTING_MERGE ?? '').split(',').filter(Boolean);

type Factory = (world: ScenarioWorld) => Policy & { close?: () => Promise<void> };

const policies: Factory[] = [
  (w) => staticWeights(seededRandom(w.seed * 31 + 2), w.def.channels),
  (w) => lastNGreedy(seededRandom(w.seed * 31 + 3)),
  (w) => decisionEngine(seededRandom(w.seed * 31 + 4)),
  (w) => paypulsePolicy('PayPulse', w.startMs, seededRandom(w.seed * 31 + 5), { ...extra }, w.def.channels),
  (w) => oracle(w, seededRandom(w.seed * 31 + 9)),
];

async function runAll(): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const [i, [name, build]] of scenarios.entries()) {
    if (picked && !picked.includes(i)) continue;
    for (const seed of seeds) {
      const world = new ScenarioWorld(build(seed));
      for (const make of policies) {
        const policy = make(world);
        const r = await runScenario(world, policy);
        await policy.close?.();
        results.push(r);
      }
      const wall = results.filter((r) => r.scenario === name && r.seed === seed).reduce((s, r) => s + r.wallMs, 0);
      process.stderr.write(`${i} ${name} seed ${seed}: ${(wall / 1000).toFixed(1)} s\n`);
    }
  }
  return results;
}

const results = merge.length > 0 ? merge.flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { results: ScenarioResult[] }).results) : await runAll();
console.log(scenarioTables(results));
console.log(`\nBars (PayPulse against decision-engine's scheme and the oracle):\n\n${barsTable(results)}`);
const latency = process.env.BENCH_ROUTING_TIMING === '0' ? undefined : await measureDecisionLatency();
if (latency) console.log(`\nIn-process decision (Routing.decide), 4 candidates, dims {method}: p50 ${latency.p50Us.toFixed(2)} µs, p99 ${latency.p99Us.toFixed(2)} µs, p99.9 ${latency.p999Us.toFixed(2)} µs`);
if (merge.length === 0) writeFileSync(resultsFile, JSON.stringify({ at: new Date().toISOString(), seeds, options: extra, results, latency }, null, 2));
