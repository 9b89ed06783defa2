// Alert rules as configured (`alerts` in the config file, `createPulse({ alerts })`), checked once at start:
// every bad field is reported with its path (`alerts.channels.bank-x.thresholds.warn`) and the reason.
// The levels are the service's `thresholds`, so the dashboard colours and the alerts never disagree.
import { ValidationError, type FieldIssue } from '../errors.js';
import { defaultThresholds, type Thresholds } from '../stats/severity.js';
import { maxWindowSec, minWindowSec, parseWindow } from '../stats/windows.js';
import { longWindowSec } from './longWindows.js';
import { ownEntry } from '../ownEntry.js';

export type Level = 'warn' | 'major' | 'critical';
/** Ordered from mild to severe; the index + 1 is the level's rank (0 = no level). */
export const levels: readonly Level[] = ['warn', 'major', 'critical'];

export interface ChannelRule {
  thresholds: Thresholds;
  minSamples: number;
  /** false: the channel raises no alerts at all. */
  enabled: boolean;
}

export interface BurnRatePair {
  /** Window labels understood by the engine (≤ 2 h today). */
  long: string;
  short: string;
  factor: number;
  level: Level;
}

export interface WebhookReceiverConfig {
  url: string;
  secret?: string;
  format: 'json' | 'slack';
  timeoutMs: number;
  retries: number;
}

export interface AlertmanagerReceiverConfig {
  url: string;
  timeoutMs: number;
  retries: number;
  /** How often a firing alert is re-sent so Alertmanager never resolves it on its own (Prometheus: 1 m). */
  resendEveryMs: number;
}

export interface AlertRules {
  /** The long window: breaches of it must repeat `consecutive` times. */
  window: string;
  /** The short window: a breach on it is believed at once because its interval already lies below the level; null: none. */
  shortWindow: string | null;
  evaluateEveryMs: number;
  consecutive: number;
  repeatEveryMs: number;
  /** z of the Wilson bound a breach must clear (4 ≈ one false breach in 30,000 at the level itself). */
  confidenceZ: number;
  defaults: ChannelRule;
  channels: Record<string, Partial<ChannelRule> & { thresholds?: Thresholds }>;
  /** Evaluate each configured dimension set's series too, not only the channel. */
  perDimensions: boolean;
  silent: { enabled: boolean; share: number; baseline: string };
  burnRate?: { target: number; pairs: BurnRatePair[] };
  webhooks: WebhookReceiverConfig[];
  alertmanager?: AlertmanagerReceiverConfig;
  /** Base URL of the dashboard, for the link in every notification. */
  dashboardUrl: string;
  /** Log every notification through the pulse's logger. */
  log: boolean;
}

/** What a caller may write; everything has a default but the levels, which come from `thresholds`. */
export interface AlertRulesInput {
  window?: string;
  /** false turns the fast path off (the plain `consecutive` rule on the long window only). */
  shortWindow?: string | false;
  evaluateEvery?: string;
  minSamples?: number;
  consecutive?: number;
  repeatEvery?: string;
  confidenceZ?: number;
  channels?: Record<string, { thresholds?: Thresholds; minSamples?: number; enabled?: boolean }>;
  perDimensions?: boolean;
  silent?: false | { share?: number; baseline?: string };
  burnRate?: { target: number; pairs: Array<[string, string, number] | [string, string, number, Level]> };
  webhooks?: Array<{ url: string; secret?: string; format?: 'json' | 'slack'; timeoutMs?: number; retries?: number }>;
  alertmanager?: { url: string; timeoutMs?: number; retries?: number; resendEvery?: string };
  dashboardUrl?: string;
  log?: boolean;
}

const defaultShortWindowSec = 60;

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250ms`, `5s`, `30m`, `1h`, `1d` → milliseconds; NaN when it does not look like one. */
export function parseDurationMs(text: unknown): number {
  const match = typeof text === 'string' ? /^(\d{1,6})(ms|s|m|h|d)$/.exec(text) : null;
  return match ? Number(match[1]) * unitMs[match[2]!]! : NaN;
}

/** Seconds of a window label; NaN when the label is not one. */
export function windowSecOf(label: string): number {
  try {
    return parseWindow(label);
  } catch {
    return NaN;
  }
}

class Checker {
  readonly issues: FieldIssue[] = [];
  fail(field: string, reason: string): void {
    this.issues.push({ index: 0, field, reason });
  }
  duration(field: string, value: unknown, fallback: string, minMs: number, maxMs: number): number {
    const ms = parseDurationMs(value ?? fallback);
    if (!(ms >= minMs && ms <= maxMs)) this.fail(field, `must be a duration like 5s, 30m or 1h from ${minMs / 1000}s to ${maxMs / 1000}s, got ${JSON.stringify(value)}`);
    return ms;
  }
  window(field: string, value: unknown, fallback: string): string {
    const label = (value ?? fallback) as string;
    try {
      parseWindow(label);
    } catch {
      this.fail(field, `must be a window from ${minWindowSec}s to ${maxWindowSec / 3600}h the engine answers (like 1m, 5m, 1h), got ${JSON.stringify(value)}`);
    }
    return label;
  }
  /** A burn-rate window: one the engine answers, or a longer one (≤ 24 h) summed from minute counts. */
  burnWindow(field: string, value: unknown, fallback: string): string {
    const label = (value ?? fallback) as string;
    if (Number.isNaN(windowSecOf(label)) && Number.isNaN(longWindowSec(label))) {
      this.fail(field, `must be a window from ${minWindowSec}s to 24h (like 5m, 1h, 6h), got ${JSON.stringify(value)}`);
    }
    return label;
  }
  int(field: string, value: unknown, fallback: number, min: number, max: number): number {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) this.fail(field, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
    return v as number;
  }
  number(field: string, value: unknown, fallback: number, min: number, max: number): number {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !(v >= min && v <= max)) this.fail(field, `must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    return v as number;
  }
  url(field: string, value: unknown): string {
    try {
      const url = new URL(String(value));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      this.fail(field, `must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
    }
    return String(value);
  }
  keys(field: string, value: object, allowed: string[]): void {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) this.fail(`${field}.${key}`, 'is not a known setting');
  }
  /** `fill`: the levels a block leaves out (a channel's block names only the level it changes). */
  thresholds(field: string, value: unknown, fill?: Thresholds): Thresholds {
    if (typeof value !== 'object' || value === null) {
      this.fail(field, 'must be an object { warn, major, critical }');
      return defaultThresholds;
    }
    const t = value as Record<string, unknown>;
    this.keys(field, t, ['warn', 'major', 'critical']);
    const filled = Object.fromEntries(levels.map((level) => [level, t[level] ?? fill?.[level]]));
    for (const level of levels) {
      const v = filled[level];
      if (typeof v !== 'number' || !(v > 0 && v <= 1)) this.fail(`${field}.${level}`, `must be a number in (0, 1], got ${JSON.stringify(v)}`);
    }
    const { warn, major, critical } = filled as unknown as Thresholds;
    if (!(critical < major && major < warn)) this.fail(field, 'must satisfy critical < major < warn');
    return { warn, major, critical };
  }
}

const topKeys = ['window', 'shortWindow', 'evaluateEvery', 'minSamples', 'consecutive', 'repeatEvery', 'confidenceZ', 'channels',
  'perDimensions', 'silent', 'burnRate', 'webhooks', 'alertmanager', 'dashboardUrl', 'log'];

function checkChannels(c: Checker, input: AlertRulesInput['channels'], defaults: ChannelRule): AlertRules['channels'] {
  // Built from entries, so a channel named `__proto__` is an entry, not the object's prototype.
  const out: [string, AlertRules['channels'][string]][] = [];
  for (const [name, rule] of Object.entries(input ?? {})) {
    const field = `alerts.channels.${name}`;
    if (typeof rule !== 'object' || rule === null) {
      c.fail(field, 'must be an object');
      continue;
    }
    c.keys(field, rule, ['thresholds', 'minSamples', 'enabled']);
    out.push([name, {
      ...(rule.thresholds !== undefined ? { thresholds: c.thresholds(`${field}.thresholds`, rule.thresholds, defaults.thresholds) } : {}),
      ...(rule.minSamples !== undefined ? { minSamples: c.int(`${field}.minSamples`, rule.minSamples, defaults.minSamples, 1, 1_000_000) } : {}),
      ...(rule.enabled !== undefined ? { enabled: rule.enabled !== false } : {}),
    }]);
  }
  return Object.fromEntries(out);
}

function checkBurnRate(c: Checker, input: AlertRulesInput['burnRate']): AlertRules['burnRate'] {
  if (input === undefined) return undefined;
  const target = c.number('alerts.burnRate.target', input.target, NaN, 0.5, 0.99999);
  if (!Array.isArray(input.pairs) || input.pairs.length === 0 || input.pairs.length > 8) {
    c.fail('alerts.burnRate.pairs', 'must list 1 to 8 pairs [longWindow, shortWindow, factor]');
    return undefined;
  }
  const pairs = input.pairs.map((pair, i) => {
    const field = `alerts.burnRate.pairs[${i}]`;
    if (!Array.isArray(pair) || pair.length < 3 || pair.length > 4) {
      c.fail(field, 'must be [longWindow, shortWindow, factor] or [longWindow, shortWindow, factor, level]');
      return { long: '1h', short: '5m', factor: 1, level: 'critical' as Level };
    }
    const long = c.burnWindow(`${field}[0]`, pair[0], '1h');
    const short = c.burnWindow(`${field}[1]`, pair[1], '5m');
    if (anyWindowSec(short) >= anyWindowSec(long)) c.fail(`${field}[1]`, 'the short window must be shorter than the long one');
    const factor = c.number(`${field}[2]`, pair[2], 1, 1, 1 / (1 - target || 1));
    const level = (pair[3] ?? 'critical') as Level;
    if (!levels.includes(level)) c.fail(`${field}[3]`, `must be one of ${levels.join(', ')}`);
    return { long, short, factor, level };
  });
  return { target, pairs };
}

function checkReceivers(c: Checker, input: AlertRulesInput): Pick<AlertRules, 'webhooks' | 'alertmanager'> {
  if (input.webhooks !== undefined && (!Array.isArray(input.webhooks) || input.webhooks.length > 16)) c.fail('alerts.webhooks', 'must be a list of at most 16 webhooks');
  const webhooks = (Array.isArray(input.webhooks) ? input.webhooks : []).map((hook, i) => {
    const field = `alerts.webhooks[${i}]`;
    c.keys(field, hook ?? {}, ['url', 'secret', 'format', 'timeoutMs', 'retries']);
    const format = hook?.format ?? 'json';
    if (format !== 'json' && format !== 'slack') c.fail(`${field}.format`, `must be json or slack, got ${JSON.stringify(format)}`);
    if (hook?.secret !== undefined && (typeof hook.secret !== 'string' || hook.secret.length === 0)) c.fail(`${field}.secret`, 'must be a non-empty string');
    return {
      url: c.url(`${field}.url`, hook?.url),
      ...(hook?.secret ? { secret: hook.secret } : {}),
      format,
      timeoutMs: c.int(`${field}.timeoutMs`, hook?.timeoutMs, 5_000, 10, 60_000),
      retries: c.int(`${field}.retries`, hook?.retries, 3, 0, 10),
    };
  });
  const am = input.alertmanager;
  if (am === undefined) return { webhooks };
  c.keys('alerts.alertmanager', am, ['url', 'timeoutMs', 'retries', 'resendEvery']);
  return {
    webhooks,
    alertmanager: {
      url: c.url('alerts.alertmanager.url', am.url),
      timeoutMs: c.int('alerts.alertmanager.timeoutMs', am.timeoutMs, 5_000, 10, 60_000),
      retries: c.int('alerts.alertmanager.retries', am.retries, 3, 0, 10),
      resendEveryMs: c.duration('alerts.alertmanager.resendEvery', am.resendEvery, '1m', 1_000, 3_600_000),
    },
  };
}

/**
 * The short window nobody set: 1m, or under a shorter `window` a fifth of it (the defaults' 1m : 5m), and no
 * fast path when that fifth is below the engine's shortest window (the window is then itself short).
 */
function defaultShortWindow(window: string): string | null {
  const windowSec = windowSecOf(window);
  if (!(windowSec < defaultShortWindowSec)) return `${defaultShortWindowSec / 60}m`;
  const fifthSec = Math.floor(windowSec / 5);
  return fifthSec >= minWindowSec ? `${fifthSec}s` : null;
}

/** Checks and completes the rules; throws one ValidationError listing every bad field. */
export function resolveAlertRules(input: AlertRulesInput = {}, thresholds: Thresholds = defaultThresholds, minSamples = 100): AlertRules {
  const c = new Checker();
  if (typeof input !== 'object' || input === null) throw new ValidationError([{ index: 0, field: 'alerts', reason: 'must be an object' }]);
  c.keys('alerts', input, topKeys);
  const window = c.window('alerts.window', input.window, '5m');
  const shortWindow = input.shortWindow === false ? null : input.shortWindow === undefined ? defaultShortWindow(window) : c.window('alerts.shortWindow', input.shortWindow, '1m');
  if (shortWindow && windowSecOf(shortWindow) > windowSecOf(window)) c.fail('alerts.shortWindow', `must not be longer than alerts.window (${window})`);
  const defaults: ChannelRule = {
    thresholds: c.thresholds('thresholds', thresholds),
    minSamples: c.int('alerts.minSamples', input.minSamples, minSamples, 1, 1_000_000),
    enabled: true,
  };
  const silentInput = input.silent === false ? undefined : (input.silent ?? {});
  const rules: AlertRules = {
    window,
    shortWindow,
    evaluateEveryMs: c.duration('alerts.evaluateEvery', input.evaluateEvery, '5s', 1_000, 600_000),
    consecutive: c.int('alerts.consecutive', input.consecutive, 3, 1, 20),
    repeatEveryMs: c.duration('alerts.repeatEvery', input.repeatEvery, '30m', 60_000, 7 * 86_400_000),
    confidenceZ: c.number('alerts.confidenceZ', input.confidenceZ, 4, 1, 8),
    defaults,
    channels: checkChannels(c, input.channels, defaults),
    perDimensions: input.perDimensions ?? true,
    silent: {
      enabled: silentInput !== undefined,
      share: c.number('alerts.silent.share', silentInput?.share, 0.2, 0.01, 0.9),
      baseline: c.window('alerts.silent.baseline', silentInput?.baseline, '1h'),
    },
    burnRate: checkBurnRate(c, input.burnRate),
    ...checkReceivers(c, input),
    dashboardUrl: input.dashboardUrl ?? 'http://127.0.0.1:8080/',
    log: input.log ?? true,
  };
  if (rules.silent.enabled && windowSecOf(rules.silent.baseline) <= windowSecOf(window)) {
    c.fail('alerts.silent.baseline', `must be longer than alerts.window (${window})`);
  }
  if (c.issues.length > 0) throw new ValidationError(c.issues);
  return rules;
}

/** The rule of one channel: its overrides over the defaults. */
export function ruleFor(rules: AlertRules, channel: string): ChannelRule {
  const own = ownEntry(rules.channels, channel);
  return own ? { ...rules.defaults, ...own } : rules.defaults;
}

/** Seconds of an engine window or a long one. */
export function anyWindowSec(label: string): number {
  const sec = windowSecOf(label);
  return Number.isNaN(sec) ? longWindowSec(label) : sec;
}

/** Every window the evaluator reads from the health snapshot. */
export function windowsNeeded(rules: AlertRules): string[] {
  const wanted = [rules.window, ...(rules.shortWindow ? [rules.shortWindow] : [])];
  if (rules.silent.enabled) wanted.push(rules.silent.baseline);
  for (const pair of rules.burnRate?.pairs ?? []) wanted.push(pair.long, pair.short);
  return [...new Set(wanted)].filter((w) => !Number.isNaN(windowSecOf(w)));
}

/** Burn-rate windows past what the engine answers, summed from minute counts (longWindows.ts). */
export function longWindowsNeeded(rules: AlertRules): string[] {
  const wanted = (rules.burnRate?.pairs ?? []).flatMap((p) => [p.long, p.short]);
  return [...new Set(wanted)].filter((w) => Number.isNaN(windowSecOf(w)));
}
