// `paypulse rules`: the same alert rules as Prometheus recording and alerting rules over our /metrics
// series, for teams that alert in Prometheus. The window gauges (`paypulse_window_outcomes`) are the
// store's de-duplicated counts and every instance reports the same numbers, so they are combined with `max`
// across instances; burn-rate windows longer than the service's windows (6 h) use the ingest counter
// `paypulse_outcomes_received_total`, summed across instances (it counts duplicates and corrections twice, so
// it is slightly pessimistic). The Wilson bound is computed in PromQL, so the levels fire as the service does:
// the short window at once, the long one after `for: consecutive × evaluateEvery`.
import { stringify } from 'yaml';
import type { Thresholds } from '../stats/severity.js';
import { levels, type AlertRules, type Level } from './rules.js';

interface RecordingRule {
  record: string;
  expr: string;
}

interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const outcomes = (w: string) => `paypulse:outcomes:${w}`;
const ratio = (w: string) => `paypulse:success_ratio:${w}`;
const high = (w: string) => `paypulse:success_ratio_wilson_high:${w}`;
const errorRatio = (w: string) => `paypulse:error_ratio_counter:${w}`;

function windowRecords(w: string, z: number): RecordingRule[] {
  const byStatus = (status: string) => `max by (channel, status) (paypulse_window_outcomes{window="${w}", status=${status}})`;
  const n = outcomes(w);
  const p = ratio(w);
  const z2 = z * z;
  return [
    { record: n, expr: `sum by (channel) (${byStatus('~"success|failure"')})` },
    { record: p, expr: `sum by (channel) (${byStatus('"success"')}) / ${n} > -1` },
    {
      record: high(w),
      expr: `(${p} + ${z2} / (2 * ${n}) + ${z} * sqrt(${p} * (1 - ${p}) / ${n} + ${z2} / (4 * ${n} ^ 2))) / (1 + ${z2} / ${n})`,
    },
  ];
}

function counterRecords(w: string): RecordingRule[] {
  const rate = (status: string) => `sum by (channel) (rate(paypulse_outcomes_received_total{status=${status}}[${w}]))`;
  return [{ record: errorRatio(w), expr: `${rate('"failure"')} / ${rate('~"success|failure"')}` }];
}

function durationOf(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}

/** Channels with their own level or sample size get their own clause; everyone else shares the default one. */
function perChannel(rules: AlertRules, clause: (selector: string, thresholds: Thresholds, minSamples: number) => string): string {
  const special = Object.entries(rules.channels);
  const parts: string[] = [];
  const names = special.map(([name]) => name.replace(/[.\\]/g, '\\$&'));
  const others = names.length > 0 ? `{channel!~"${names.join('|')}"}` : '';
  parts.push(clause(others, rules.defaults.thresholds, rules.defaults.minSamples));
  for (const [name, own] of special) {
    if (own.enabled === false) continue;
    parts.push(clause(`{channel="${name}"}`, own.thresholds ?? rules.defaults.thresholds, own.minSamples ?? rules.defaults.minSamples));
  }
  return parts.map((p) => `(${p})`).join(' or ');
}

function levelAlerts(rules: AlertRules, level: Level): AlertingRule[] {
  const windows: Array<[string, string | undefined]> = [[rules.window, durationOf(rules.consecutive * rules.evaluateEveryMs)]];
  if (rules.shortWindow) windows.unshift([rules.shortWindow, undefined]);
  return windows.map(([w, forDuration]) => ({
    alert: 'PayPulseSuccessRateLow',
    expr: perChannel(rules, (sel, t, min) => `${high(w)}${sel} < ${t[level]} and ${outcomes(w)}${sel} >= ${min}`),
    ...(forDuration ? { for: forDuration } : {}),
    labels: { severity: level, window: w, rule: 'rate' },
    annotations: {
      summary: `{{ $labels.channel }}: success rate below the ${level} level on ${w}`,
    },
  }));
}

function windowSec(label: string): number {
  return ({ s: 1, m: 60, h: 3600 } as Record<string, number>)[label.slice(-1)]! * Number(label.slice(0, -1));
}

function silentAlert(rules: AlertRules): AlertingRule[] {
  if (!rules.silent.enabled) return [];
  const w = rules.shortWindow ?? rules.window;
  const b = rules.silent.baseline;
  // What the channel usually completes in `w`: its rate over the rest of the baseline window.
  const expected = (sel: string) => `((${outcomes(b)}${sel} - ${outcomes(w)}${sel}) / ${windowSec(b) - windowSec(w)} * ${windowSec(w)})`;
  return [{
    alert: 'PayPulseChannelSilent',
    expr: perChannel(rules, (sel, _t, min) => `${outcomes(w)}${sel} < ${rules.silent.share} * ${expected(sel)} and ${expected(sel)} >= ${min}`),
    labels: { severity: 'critical', rule: 'silent' },
    annotations: { summary: `{{ $labels.channel }} completes almost no payments (${w} below ${rules.silent.share * 100} % of usual)` },
  }];
}

function burnAlerts(rules: AlertRules, exposed: Set<string>): AlertingRule[] {
  const burn = rules.burnRate;
  if (!burn) return [];
  const budget = Number((1 - burn.target).toFixed(6));
  const err = (w: string) => (exposed.has(w) ? `(1 - ${ratio(w)})` : errorRatio(w));
  return burn.pairs.map((pair) => ({
    alert: 'PayPulseErrorBudgetBurn',
    expr: `${err(pair.long)} > ${pair.factor} * ${budget} and ${err(pair.short)} > ${pair.factor} * ${budget}`,
    labels: { severity: pair.level, rule: `burn:${pair.long}:${pair.short}`, long_window: pair.long, short_window: pair.short },
    annotations: { summary: `{{ $labels.channel }} burns its error budget (target ${burn.target}) faster than ${pair.factor}× over ${pair.long} and ${pair.short}` },
  }));
}

/**
 * The Redis server's health (paypulse_redis_* gauges, sampled from INFO; docs/storage.md): alert before Redis
 * evicts or refuses writes, before clients are refused, and when it slows or its replicas fall behind. Every
 * instance reports the same server, so `max` across them.
 */
export function redisHealthAlerts(): AlertingRule[] {
  const alert = (name: string, expr: string, severity: Level, summary: string): AlertingRule => ({
    alert: name,
    expr,
    labels: { severity, rule: 'redis' },
    annotations: { summary },
  });
  return [
    alert('PayPulseRedisMemoryHigh', 'max(paypulse_redis_memory_used_ratio) > 0.9', 'critical', 'Redis uses {{ $value | humanizePercentage }} of maxmemory (> 90 %)'),
    alert('PayPulseRedisMemoryHigh', 'max(paypulse_redis_memory_used_ratio) > 0.8', 'warn', 'Redis uses {{ $value | humanizePercentage }} of maxmemory (> 80 %)'),
    alert('PayPulseRedisClientsHigh', 'max(paypulse_redis_clients_ratio) > 0.8', 'warn', 'Redis has {{ $value | humanizePercentage }} of maxclients connected (> 80 %)'),
    // Other clients' commands only (our own calls are paypulse_redis_own_slow_calls_per_minute), held 2 minutes:
    // one sample extrapolates a 15 s burst to a minute, which is not yet a Redis that stays slow.
    { ...alert('PayPulseRedisSlowCommands', 'max(paypulse_redis_slow_commands_per_minute) > 10', 'warn', 'Redis logs {{ $value }} slow commands a minute from other clients (> 10 for 2 minutes)'), for: '2m' },
    alert('PayPulseRedisReplicationLag', 'max(paypulse_redis_replication_lag_seconds) > 1', 'major', 'a Redis replica lags {{ $value }} s behind its primary (> 1 s)'),
  ];
}

export interface PromRulesOptions {
  /** The windows the service exposes in /metrics (its `windows` setting). */
  windows: string[];
}

/** The rule file as an object; `promRulesYaml` gives the text `promtool check rules` reads. */
export function promRules(rules: AlertRules, options: PromRulesOptions) {
  const exposed = new Set(options.windows);
  const gaugeWindows = [...new Set([rules.shortWindow, rules.window, rules.silent.enabled ? rules.silent.baseline : null,
    ...(rules.burnRate?.pairs.flatMap((p) => [p.long, p.short]) ?? [])])].filter((w): w is string => !!w && exposed.has(w));
  const counterWindows = [...new Set(rules.burnRate?.pairs.flatMap((p) => [p.long, p.short]) ?? [])].filter((w) => !exposed.has(w));
  const missing = [rules.shortWindow, rules.window, rules.silent.enabled ? rules.silent.baseline : null].filter((w): w is string => !!w && !exposed.has(w));
  if (missing.length > 0) throw new Error(`windows: the service must expose ${missing.join(', ')} in /metrics for these rules (add them to "windows")`);
  return {
    groups: [
      { name: 'paypulse-recording', rules: [...gaugeWindows.flatMap((w) => windowRecords(w, rules.confidenceZ)), ...counterWindows.flatMap(counterRecords)] },
      { name: 'paypulse-alerts', rules: [...[...levels].reverse().flatMap((level) => levelAlerts(rules, level)), ...silentAlert(rules), ...burnAlerts(rules, exposed)] },
      { name: 'paypulse-redis', rules: redisHealthAlerts() },
    ],
  };
}

export function promRulesYaml(rules: AlertRules, options: PromRulesOptions): string {
  return `# Generated by \`paypulse rules\` from the alert rules; do not edit, generate again.\n${stringify(promRules(rules, options), { lineWidth: 0 })}`;
}
