// The battery's tables: one per scenario (each policy, each seed's value in seed order) and the bars
// (PayPulse against decision-engine's scheme and the oracle, scenario by scenario).
import { formatTable } from '../table.js';
import type { ScenarioResult } from './measure.js';

export const pp = 'PayPulse';
export const de = 'decision-engine scheme';
const order = ['static weights', 'last-100, no exploration', de, pp, 'oracle'];

const pct = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}`;

/** Share of the oracle's uplift over static weights a result captured, on its own seed. */
export function upliftCaptured(r: ScenarioResult, all: ScenarioResult[]): number {
  const same = all.filter((o) => o.scenario === r.scenario && o.seed === r.seed);
  const base = same.find((o) => o.policy === 'static weights')!.successRate;
  const best = same.find((o) => o.policy === 'oracle')!.successRate;
  return (r.successRate - base) / (best - base);
}

function regainText(s: number | null): string {
  if (s === null) return '–';
  return Number.isFinite(s) ? String(s) : 'never';
}

function worst<T>(values: T[], rank: (v: T) => number): T {
  return values.reduce((a, b) => (rank(b) > rank(a) ? b : a));
}

function scenarioNames(results: ScenarioResult[]): string[] {
  return [...new Set(results.map((r) => r.scenario))];
}

export function scenarioTables(results: ScenarioResult[]): string {
  const out: string[] = [];
  for (const scenario of scenarioNames(results)) {
    const rows: string[][] = [];
    for (const policy of order) {
      const rs = results.filter((r) => r.scenario === scenario && r.policy === policy).sort((a, b) => a.seed - b.seed);
      if (rs.length === 0) continue;
      const shares = rs.map((r) => r.failedShare).filter((s): s is number => s !== null);
      const regains = rs.map((r) => r.regainSec).filter((s): s is number => s !== null);
      rows.push([
        policy,
        rs.map((r) => pct(r.successRate, 2)).join(' / '),
        rs.map((r) => pct(upliftCaptured(r, results), 0)).join(' / '),
        shares.length ? `${pct(Math.max(...shares), 2)} %` : '–',
        regains.length ? regainText(worst(regains, (s) => s)) : '–',
      ]);
    }
    const seeds = [...new Set(results.filter((r) => r.scenario === scenario).map((r) => r.seed))].sort((a, b) => a - b);
    out.push(`\n**${scenario}** (seeds ${seeds.join(', ')})\n\n${formatTable(['policy', 'success %', 'uplift captured %', 'failed share, worst', 'regain s, worst'], rows)}`);
  }
  return out.join('\n');
}

export function barsTable(results: ScenarioResult[]): string {
  const rows: string[][] = [];
  const means: number[] = [];
  for (const scenario of scenarioNames(results)) {
    const mine = results.filter((r) => r.scenario === scenario && r.policy === pp).sort((a, b) => a.seed - b.seed);
    const theirs = results.filter((r) => r.scenario === scenario && r.policy === de);
    const gaps = mine.map((r) => r.successRate - theirs.find((o) => o.seed === r.seed)!.successRate);
    const captured = mine.map((r) => upliftCaptured(r, results));
    const mean = captured.reduce((s, x) => s + x, 0) / captured.length;
    means.push(mean);
    const shares = mine.map((r) => r.failedShare).filter((s): s is number => s !== null);
    const regains = mine.map((r) => r.regainSec).filter((s): s is number => s !== null);
    rows.push([
      scenario,
      gaps.map((g) => (g * 100).toFixed(2)).join(' / '),
      gaps.every((g) => g >= 0) ? 'yes' : 'NO',
      pct(mean, 0),
      pct(Math.min(...captured), 0),
      shares.length ? `${pct(Math.max(...shares), 2)} %` : '–',
      regains.length ? regainText(Math.max(...regains)) : '–',
    ]);
  }
  const avg = means.reduce((s, x) => s + x, 0) / Math.max(1, means.length);
  rows.push(['**mean over the battery**', '', '', pct(avg, 0), '', '', '']);
  return formatTable(['scenario', 'PayPulse − DE, points (per seed)', '≥ DE every seed', 'uplift captured, mean %', 'min %', 'failed share, worst', 'regain s, worst'], rows);
}
