// `npm run bench:alerts`: the detection benchmark, on virtual time with the simulator.
//  - detection: a channel at 97 % with 600 outcomes/min drops to 60 %, 40 % or 10 % (several seeds each):
//    seconds from the drop to the first notification (bar: 40 % within 20 s at evaluateEvery 5 s);
//  - noise: 24 healthy hours at 97 % with 30, 100, 300 and 3,000 outcomes/min: false notifications (bar: 0);
//  - silent: a channel that stops completing payments: seconds to the `silent` alert;
//  - fleet: 4 instances evaluating the same drop: notifications per transition (bar: exactly one).
// The chosen rule (Wilson bound at z 4, fast on 1 m, `consecutive` on 5 m) runs beside the rules it
// replaces — the plain threshold on the 5 m rate 3 times in a row, and a plain threshold on the 1 m rate —
// on the same snapshots. Prints a table and writes bench/alerts/results/latest.json (only the latest is kept).
// `-- --routed-seeds N` runs the router-in-the-loop rows on N seeds (default: BENCH_SEEDS); `--routed-only`
// runs those rows alone, with the healthy routed day, into results/routed.json (latest.json keeps the full run).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { dropAt, type SteadyChannel } from '../../src/sim/steadyTraffic.js';
import { runSimulation, type Variant } from './simulation.js';
import { routedDrop, routedHealthy, type RoutedRow } from './routed.js';

const hourMs = 3_600_000;
const startMs = Date.UTC(2026, 3, 6, 0, 0, 0);
const hours = Number(process.env.BENCH_NOISE_HOURS ?? 24);
const seeds = Number(process.env.BENCH_SEEDS ?? 5);
const { values: args } = parseArgs({ options: { 'routed-seeds': { type: 'string' }, 'routed-only': { type: 'boolean', default: false } } });
const routedSeeds = args['routed-seeds'] === undefined ? seeds : Number(args['routed-seeds']);
if (!Number.isInteger(routedSeeds) || routedSeeds < 1) throw new TypeError(`--routed-seeds: a whole number of seeds of at least 1, not ${args['routed-seeds']}`);

const chosen = resolveAlertRules({ silent: {} });
const variants: Variant[] = [
  { name: 'chosen: z4 1m fast + 5m×3', rules: chosen },
  { name: 'z3 1m fast + 5m×3', rules: { ...chosen, confidenceZ: 3 } },
  { name: 'plain 5m rate ×3', rules: { ...chosen, shortWindow: null, confidenceZ: 0 } },
  { name: 'plain 1m rate', rules: { ...chosen, window: '1m', consecutive: 1, shortWindow: null, confidenceZ: 0 } },
];

interface Row {
  scenario: string;
  variant: string;
  /** Seconds to the first notification per seed (null: none within the run). */
  seconds?: Array<number | null>;
  falseNotifications?: number;
  perTransition?: { notifications: number; transitions: number };
  evaluations: number;
}

const channel = (perMinute: number, successAt: SteadyChannel['successAt']): SteadyChannel => ({ name: 'acq', perMinute, successAt });

async function detection(to: number, rows: Row[]): Promise<void> {
  const dropMs = startMs + 70 * 60_000;
  const perVariant = new Map<string, Array<number | null>>();
  let evaluations = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const result = await runSimulation({ variants, channels: [channel(600, dropAt(dropMs, to))], startMs, durationMs: 75 * 60_000, seed: seed * 101 + Math.round(to * 100) });
    evaluations += result.evaluations;
    for (const [name, list] of result.notifications) {
      const first = list.find((n) => n.at >= dropMs);
      const early = list.filter((n) => n.at < dropMs).length;
      const value = early > 0 ? -early : first ? (first.at - dropMs) / 1000 : null;
      perVariant.set(name, [...(perVariant.get(name) ?? []), value]);
    }
  }
  for (const [variant, seconds] of perVariant) rows.push({ scenario: `97 % → ${to * 100} % at 600/min`, variant, seconds, evaluations });
}

async function noise(perMinute: number, rows: Row[]): Promise<void> {
  const result = await runSimulation({ variants, channels: [channel(perMinute, () => 0.97)], startMs, durationMs: hours * hourMs, seed: perMinute });
  for (const [variant, list] of result.notifications) {
    rows.push({ scenario: `${hours} h healthy at 97 %, ${perMinute}/min`, variant, falseNotifications: list.length, evaluations: result.evaluations });
  }
  console.error(`  noise ${perMinute}/min: ${result.outcomes} outcomes, ${result.evaluations} evaluations, ${(result.wallMs / 1000).toFixed(1)} s`);
}

async function silent(perMinute: number, rows: Row[]): Promise<void> {
  const stopMs = startMs + 70 * 60_000;
  const result = await runSimulation({ variants: variants.slice(0, 1), channels: [channel(perMinute, (at) => (at >= stopMs ? null : 0.97))], startMs, durationMs: 80 * 60_000, seed: 7 });
  const list = result.notifications.get(variants[0]!.name)!;
  const first = list.find((n) => n.rule === 'silent' && n.at >= stopMs);
  rows.push({ scenario: `silent after 70 min at ${perMinute}/min`, variant: variants[0]!.name, seconds: [first ? (first.at - stopMs) / 1000 : null], evaluations: result.evaluations });
}

/** The 40 % drop and recovery evaluated by 4 instances: notifications sent per transition that happened. */
async function fleet(rows: Row[]): Promise<void> {
  const dropMs = startMs + 70 * 60_000;
  const result = await runSimulation({
    variants: variants.slice(0, 1), instances: 4, startMs, durationMs: 90 * 60_000, seed: 404,
    channels: [channel(600, dropAt(dropMs, 0.4, 0.97, dropMs + 5 * 60_000))],
  });
  const list = result.notifications.get(variants[0]!.name)!;
  const distinct = new Set(list.map((n) => `${n.id} ${n.transition} ${n.level} ${n.at}`)).size;
  rows.push({ scenario: '4 instances, 40 % drop and recovery', variant: variants[0]!.name, perTransition: { notifications: list.length, transitions: distinct }, evaluations: result.evaluations });
}

function cell(row: Row & Partial<RoutedRow>): string {
  if (row.namedRouting !== undefined) return `${spreadText(row.seconds ?? [])}; routing said in ${row.namedRouting} of ${row.seconds?.length}, the drain already in ${row.namedDrain}`;
  if (row.wrongBy !== undefined) {
    const w = row.wrongBy;
    return `${spreadText(row.seconds ?? [])}; ${row.wrong} wrong (${w.resolvedWhileFailing} resolved while failing, ${w.silent} silent, ${w.aboutHealthy} about acq-b)`;
  }
  if (row.perTransition) return `${row.perTransition.notifications} notifications for ${row.perTransition.transitions} transitions`;
  if (row.falseNotifications !== undefined) return `${row.falseNotifications} false${row.falseSeeds?.length ? ` (seeds ${row.falseSeeds.join(', ')})` : ''}`;
  return secondsText(row.seconds ?? []);
}

function secondsText(s: Array<number | null>): string {
  if (s.some((v) => v !== null && v < 0)) return `false alarm before the drop`;
  const found = s.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (found.length === 0) return 'not detected';
  const median = found[Math.floor(found.length / 2)]!;
  return `${median} s median, ${found.at(-1)} s worst${found.length < s.length ? `, ${s.length - found.length} missed` : ''}`;
}

/** Median, 95th percentile and worst over the seeds (nearest rank), and how many had nothing. */
function spreadText(s: Array<number | null>): string {
  const found = s.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (found.length === 0) return 'none';
  const rank = (q: number) => found[Math.min(found.length - 1, Math.ceil(q * found.length) - 1)]!;
  return `${rank(0.5)} / ${rank(0.95)} / ${found.at(-1)} s (median / p95 / worst of ${s.length})${found.length < s.length ? `, ${s.length - found.length} none` : ''}`;
}

/** Seeds past a bar, printed so they can be replayed (and pinned in test/alerts/routedSeeds.test.ts). */
function reportSlow(row: RoutedRow, barSeconds: number): void {
  const slow = (row.seconds ?? []).flatMap((v, i) => (v === null || v > barSeconds ? [`${row.seeds![i]}: ${v ?? 'none'}`] : []));
  if (slow.length > 0) console.error(`  ${row.scenario} past ${barSeconds} s — seed: seconds — ${slow.join(', ')}`);
  if (row.wrongSeeds?.length) console.error(`  ${row.scenario}: wrong notifications on seeds ${row.wrongSeeds.join(', ')}`);
}

async function routedRows(rows: Row[]): Promise<void> {
  const routed: RoutedRow[] = [];
  for (const [to, minutes] of [[0.4, 3], [0.3, 10], [0.6, 3]] as const) routed.push(...(await routedDrop(to, minutes, routedSeeds, startMs)));
  for (const row of routed) reportSlow(row, row.namedRouting !== undefined ? 20 : 90);
  // 600/min, the outages' volume, on up to 13 seeds: one seed says little about a page a day.
  for (const perMinute of [30, 300, 600, 3000]) routed.push(await routedHealthy(hours, perMinute, startMs, perMinute === 600 ? Math.min(13, routedSeeds) : 1));
  rows.push(...routed.map((r) => ({ ...r, variant: variants[0]!.name })));
  console.error('  router in the loop done');
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  if (!args['routed-only']) {
    for (const to of [0.6, 0.4, 0.1]) await detection(to, rows);
    console.error('  detection done');
    // 100/min is the hardest case for the fast path: its 1 m window barely holds minSamples.
    for (const perMinute of [30, 100, 300, 3000]) await noise(perMinute, rows);
    for (const perMinute of [30, 600, 3000]) await silent(perMinute, rows);
    await fleet(rows);
  }
  await routedRows(rows);
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  const names = variants.map((v) => v.name);
  const lines = [`| scenario | ${names.join(' | ')} |`, `| --- | ${names.map(() => '---').join(' | ')} |`];
  for (const scenario of scenarios) {
    const cells = names.map((name) => {
      const row = rows.find((r) => r.scenario === scenario && r.variant === name);
      return row ? cell(row) : '—';
    });
    lines.push(`| ${scenario} | ${cells.join(' | ')} |`);
  }
  console.log(lines.join('\n'));
  const file = fileURLToPath(new URL(args['routed-only'] ? './results/routed.json' : './results/latest.json', import.meta.url));
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), seeds, routedSeeds, routedOnly: args['routed-only'], noiseHours: hours, defaults: { window: chosen.window, shortWindow: chosen.shortWindow, evaluateEveryMs: chosen.evaluateEveryMs, consecutive: chosen.consecutive, confidenceZ: chosen.confidenceZ, minSamples: chosen.defaults.minSamples }, rows }, null, 2)}\n`);
  console.error(`  wrote ${file}`);
}

await main();
