// `npm run bench:routing:day`: the routing simulator (24 simulated hours per seed, every policy on the same
// traffic) and the decision latency of the real router. Prints Markdown tables and writes
// bench/routing/results/latest.json. Never part of `npm test`.
// BENCH_ROUTING_SEEDS=1,2,3 and BENCH_ROUTING_HOURS=24 change the run; BENCH_ROUTING_POLICIES filters rows.
// Seeds can run in parallel processes: each with BENCH_ROUTING_TIMING=0 (no latency or HTTP measurement) and
// its own BENCH_ROUTING_RESULTS=<file>, then BENCH_ROUTING_MERGE=<file>,<file> tabulates them together and
// measures the timings once.
import { readFileSync, writeFileSync } from 'node:fs';
import { seededRandom } from '../../src/sim/random.js';
import { decisionEngine, lastNGreedy, oracle, roundRobin, staticWeights, type Policy } from './baselines.js';
import { measureRouteHttp, type RouteHttpResult } from './http.js';
import { measureDecisionLatency } from './latency.js';
import { paypulsePolicy } from './paypulsePolicy.js';
import { simulate, type RunResult } from './simulate.js';
import { formatTable } from './table.js';
import type { RoutingOptions } from '../../src/routing/types.js';
import { World } from './world.js';

// BENCH_ROUTING_SEEDS= (empty) skips the simulator and re-measures only the HTTP rates into the last results.
const seeds = (process.env.BENCH_ROUTING_SEEDS ?? '1,2,3,4,5').split(',').filter(Boolean).map(Number);
const hours = Number(process.env.BENCH_ROUTING_HOURS ?? 24);
/** The policy comparison (Thompson, UCB, EV) costs minutes a seed: the default run has the bars' rows. */
const only = (process.env.BENCH_ROUTING_POLICIES ?? 'round-robin,static,last-n,decision-engine,paypulse,oracle').split(',');
const startMs = Date.UTC(2026, 0, 5);
/** Extra routing options for every PayPulse row (trying settings: BENCH_ROUTING_OPTIONS='{"decay":0.5}'). */
const extra = JSON.parse(process.env.BENCH_ROUTING_OPTIONS ?? '{}') as RoutingOptions;
const resultsFile = process.env.BENCH_ROUTING_RESULTS ?? new URL('./results/latest.json', import.meta.url).pathname;
const merge = (process.env.BENCH_ROUTING_MERGE ?? '').split(',').filter(Boolean);
const timing = process.env.BENCH_ROUTING_TIMING !== '0';

type Factory = (world: World, seed: number) => Policy & { close?: () => Promise<void> };

const factories: Array<[string, Factory]> = [
  ['round-robin', () => roundRobin()],
  ['static', (_w, s) => staticWeights(seededRandom(s * 31 + 2))],
  ['last-n', (_w, s) => lastNGreedy(seededRandom(s * 31 + 3))],
  ['decision-engine', (_w, s) => decisionEngine(seededRandom(s * 31 + 4))],
  ['paypulse', (w, s) => paypulsePolicy('PayPulse (defaults)', w.startMs, seededRandom(s * 31 + 5), { ...extra })],
  ['paypulse-thompson', (w, s) => paypulsePolicy('PayPulse (Thompson)', w.startMs, seededRandom(s * 31 + 10), { ...extra, scoring: 'thompson' })],
  ['paypulse-ucb', (w, s) => paypulsePolicy('PayPulse (UCB)', w.startMs, seededRandom(s * 31 + 6), { ...extra, scoring: 'ucb' })],
  ['paypulse-ev', (w, s) => paypulsePolicy('PayPulse (by expected value)', w.startMs, seededRandom(s * 31 + 8), { ...extra, withAmount: true })],
  ['oracle', (w, s) => oracle(w, seededRandom(s * 31 + 9))],
];

const pct = (x: number, digits = 2) => `${(x * 100).toFixed(digits)} %`;

async function httpOnly(): Promise<void> {
  const http = await measureRouteHttp();
  console.log(httpTable(http));
  const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(resultsFile, JSON.stringify({ ...previous, http: { at: new Date().toISOString(), ...http } }, null, 2));
}

function httpTable(http: RouteHttpResult): string {
  return `\nPOST /v1/route against GET /healthz (autocannon, 32 connections, median of ${http.pairs.length} pairs):\n\n${formatTable(
    ['measure', 'value'],
    [
      ['GET /healthz req/s', http.healthzRps.toFixed(0)],
      ['POST /v1/route req/s', http.routeRps.toFixed(0)],
      ['route / healthz', `${(http.ratio * 100).toFixed(0)} %`],
      ['POST /v1/route p99 (ms)', http.routeP99Ms.toFixed(1)],
    ],
  )}`;
}

/** Every policy on every seed, in this process. */
async function simulateAll(): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const seed of seeds) {
    const world = new World(seed, startMs, hours * 3600_000);
    for (const [key, make] of factories) {
      if (!only.includes(key)) continue;
      const policy = make(world, seed);
      const result = await simulate(world, policy);
      await policy.close?.();
      results.push(result);
      process.stderr.write(`seed ${seed} ${result.policy}: ${pct(result.successRate)} in ${(result.wallMs / 1000).toFixed(1)} s\n`);
    }
  }
  return results;
}

function mergedResults(): { results: RunResult[]; hours: number; seeds: number[] } {
  const parts = merge.map((f) => JSON.parse(readFileSync(f, 'utf8')) as { results: RunResult[]; hours: number; seeds: number[] });
  return { results: parts.flatMap((p) => p.results), hours: parts[0]!.hours, seeds: parts.flatMap((p) => p.seeds) };
}

async function main(): Promise<void> {
  if (seeds.length === 0 && merge.length === 0) return httpOnly();
  const run = merge.length > 0 ? mergedResults() : { results: await simulateAll(), hours, seeds };
  const { results } = run;
  const rows: string[][] = [];
  const summary: Array<Record<string, unknown>> = [];
  for (const seed of run.seeds) {
    const ofSeed = results.filter((r) => r.seed === seed);
    const base = ofSeed.find((r) => r.policy === 'static weights');
    const best = ofSeed.find((r) => r.policy === 'oracle');
    for (const r of ofSeed) {
      const uplift = base ? r.successRate - base.successRate : NaN;
      const captured = base && best ? uplift / (best.successRate - base.successRate) : NaN;
      summary.push({ ...r, upliftOverStatic: uplift, oracleUpliftCaptured: captured });
      rows.push([String(seed), r.policy, pct(r.successRate), `${(uplift * 100).toFixed(2)} pp`, Number.isFinite(captured) ? pct(captured, 1) : '–',
        String(r.sentWhileDown), pct(r.downShareAfter30s), r.costPerSuccess.toFixed(3)]);
    }
  }
  const simTable = formatTable(['seed', 'policy', 'success', 'uplift over static', 'oracle uplift captured', 'sent while down', 'down share 30 s after', 'fee per success'], rows);
  console.log(`\n${run.hours} simulated hours per seed, ${results[0]?.payments ?? 0} payments in seed ${run.seeds[0]}\n`);
  console.log(simTable);
  if (!timing) {
    writeFileSync(resultsFile, JSON.stringify({ at: new Date().toISOString(), hours: run.hours, seeds: run.seeds, results: summary }, null, 2));
    return;
  }
  const latency = await measureDecisionLatency();
  const latencyTable = formatTable(['measure', 'value'], [
    ['decisions timed', String(latency.decisions)],
    ['p50 (µs)', latency.p50Us.toFixed(2)],
    ['p99 (µs)', latency.p99Us.toFixed(2)],
    ['p99.9 (µs)', latency.p999Us.toFixed(2)],
  ]);
  console.log(`\nIn-process decision (Routing.decide), 4 candidates, dims {method}, defaults:\n`);
  console.log(latencyTable);
  const http = await measureRouteHttp();
  console.log(httpTable(http));
  const out = { at: new Date().toISOString(), hours: run.hours, seeds: run.seeds, results: summary, latency, http };
  writeFileSync(resultsFile, JSON.stringify(out, null, 2));
}

await main();
