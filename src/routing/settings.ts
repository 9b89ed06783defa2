// Routing options checked once, with defaults: the breaker's in the spirit of resilience4j (50 % over at least
// 100 calls), its window 30 s, its open wait sized by the channel's traffic within 2–40 s (the battery's choice, docs/routing.md); exploration 1 % of decisions, at most 5 % (docs/routing.md).
import { PayPulseError } from '../errors.js';
import { parseWindow } from '../stats/windows.js';
import { channelPattern, isDimensionName } from '../stats/validate.js';
import type { ChannelRouting, RoutingOptions, ScoringPolicy } from './types.js';

export interface ResolvedChannelRouting {
  weight: number;
  priority: number;
  fixedFee: number;
  percentFee: number;
}

export interface ResolvedBreakerSettings {
  failureThreshold: number;
  minSamples: number;
  window: string;
  openMs: number;
  openMaxMs: number;
  probes: number;
  probeTtlMs: number;
  dims: string[][];
}

export interface RoutingSettings {
  scoring: ScoringPolicy;
  exploration: number;
  channels: ReadonlyMap<string, ResolvedChannelRouting>;
  scoreWindows: string[];
  priorStrength: number;
  breaker: ResolvedBreakerSettings;
  excusedCodes: ReadonlySet<string>;
  experimentShare: number;
  random: () => number;
}

export const defaultChannelRouting: ResolvedChannelRouting = { weight: 1, priority: 0, fixedFee: 0, percentFee: 0 };
const policies: ScoringPolicy[] = ['thompson', 'ucb', 'mean'];
/** Channels with settings of their own: the map is held in memory by every instance. */
const maxConfiguredChannels = 1000;

function fail(field: string, reason: string): never {
  throw new PayPulseError('PP_ERR_CONFIG', `routing.${field} ${reason}`, { field: `routing.${field}`, reason });
}

function numberIn(field: string, value: unknown, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) fail(field, `must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return v;
}

function intIn(field: string, value: unknown, fallback: number, min: number, max: number): number {
  const v = numberIn(field, value, fallback, min, max);
  if (!Number.isSafeInteger(v)) fail(field, `must be an integer, got ${JSON.stringify(value)}`);
  return v;
}

function windowOf(field: string, value: unknown, fallback: string): string {
  const v = value ?? fallback;
  try {
    parseWindow(v as string);
  } catch (err) {
    fail(field, (err as Error).message);
  }
  return v as string;
}

function channelRouting(name: string, c: ChannelRouting | undefined): ResolvedChannelRouting {
  if (!channelPattern.test(name)) fail(`channels`, `has a bad channel name ${JSON.stringify(name)}`);
  if (typeof c !== 'object' || c === null) fail(`channels.${name}`, 'must be an object');
  return {
    weight: numberIn(`channels.${name}.weight`, c.weight, 1, 0, 1e6),
    priority: intIn(`channels.${name}.priority`, c.priority, 0, -1000, 1000),
    fixedFee: numberIn(`channels.${name}.fixedFee`, c.fixedFee, 0, 0, 1e12),
    percentFee: numberIn(`channels.${name}.percentFee`, c.percentFee, 0, 0, 1),
  };
}

function dimSets(field: string, value: unknown): string[][] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(field, 'must be a list of dimension sets');
  return value.map((set, i) => {
    if (!Array.isArray(set) || set.length === 0 || set.some((d) => !isDimensionName(d))) {
      fail(`${field}[${i}]`, `must be a non-empty list of dimension names, got ${JSON.stringify(set)}`);
    }
    return [...new Set(set as string[])].sort();
  });
}

const optionKeys = ['scoring', 'exploration', 'channels', 'scoreWindows', 'priorStrength', 'breaker', 'excusedCodes', 'experiment', 'random'];
const breakerKeys = ['failureThreshold', 'minSamples', 'window', 'openMs', 'openMaxMs', 'probes', 'probeTtlMs', 'dims'];

/** A misspelt or retired option (`decay`) is named, not ignored: a setting that silently does nothing is a trap. */
function refuseUnknown(field: string, value: unknown, known: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  const unknown = Object.keys(value).find((k) => !known.includes(k));
  if (unknown !== undefined) fail(field ? `${field}.${unknown}` : unknown, `is not a routing setting (known: ${known.join(', ')})`);
}

export function resolveRoutingSettings(options: RoutingOptions = {}): RoutingSettings {
  refuseUnknown('', options, optionKeys);
  refuseUnknown('breaker', options.breaker, breakerKeys);
  const scoring = options.scoring ?? 'mean';
  if (!policies.includes(scoring)) fail('scoring', `must be one of ${policies.join(', ')}, got ${JSON.stringify(scoring)}`);
  const entries = Object.entries(options.channels ?? {});
  if (entries.length > maxConfiguredChannels) fail('channels', `may configure at most ${maxConfiguredChannels} channels`);
  const b = options.breaker ?? {};
  const scoreWindows = options.scoreWindows ?? ['10s', '1m', '5m', '15m', '1h'];
  if (!Array.isArray(scoreWindows) || scoreWindows.length === 0 || scoreWindows.length > 6) fail('scoreWindows', 'must list 1 to 6 windows, shortest first');
  scoreWindows.forEach((w, i) => {
    windowOf(`scoreWindows[${i}]`, w, '1m');
    if (i > 0 && parseWindow(w) <= parseWindow(scoreWindows[i - 1]!)) fail(`scoreWindows[${i}]`, 'must be longer than the window before it');
  });
  const codes = options.excusedCodes ?? [];
  if (!Array.isArray(codes) || codes.length > 100 || codes.some((c) => typeof c !== 'string' || c.length === 0 || c.length > 64)) {
    fail('excusedCodes', 'must be a list of at most 100 codes of 1–64 characters');
  }
  const openMs = intIn('breaker.openMs', b.openMs, 2_000, 1000, 24 * 3600_000);
  const random = options.random ?? Math.random;
  if (typeof random !== 'function') fail('random', 'must be a function');
  return {
    scoring,
    exploration: numberIn('exploration', options.exploration, 0.01, 0, 0.05),
    channels: new Map(entries.map(([name, c]) => [name, channelRouting(name, c)])),
    scoreWindows: [...scoreWindows],
    priorStrength: numberIn('priorStrength', options.priorStrength, 20, 0, 1e6),
    breaker: {
      failureThreshold: numberIn('breaker.failureThreshold', b.failureThreshold, 0.5, 0.01, 1),
      minSamples: intIn('breaker.minSamples', b.minSamples, 100, 1, 1e9),
      window: windowOf('breaker.window', b.window, '30s'),
      openMs,
      openMaxMs: intIn('breaker.openMaxMs', b.openMaxMs, Math.max(openMs, 40_000), openMs, 24 * 3600_000),
      probes: intIn('breaker.probes', b.probes, 5, 1, 1000),
      probeTtlMs: intIn('breaker.probeTtlMs', b.probeTtlMs, 30_000, 100, 3600_000),
      dims: dimSets('breaker.dims', b.dims),
    },
    excusedCodes: new Set(codes),
    experimentShare: numberIn('experiment.share', options.experiment?.share, 0, 0, 1),
    random,
  };
}

/** Window labels the health snapshot must hold for routing. */
export function routingWindows(settings: RoutingSettings): string[] {
  return [...new Set([...settings.scoreWindows, settings.breaker.window])];
}

/**
 * Settings read where a decision or a breaker transition is made change while running (a config reload); the
 * others shaped what the snapshot reads, the breakers' series or the experiment's arms when routing started.
 */
const restartOnly = new Set(['scoreWindows', 'excusedCodes', 'experimentShare', 'random']);
const breakerRestartOnly = new Set(['window', 'dims']);

const same = (a: unknown, b: unknown) => JSON.stringify(a instanceof Set || a instanceof Map ? [...a] : a) === JSON.stringify(b instanceof Set || b instanceof Map ? [...b] : b);

/**
 * Takes `next`'s live settings into `live` in place (the router and the breakers read it at use) and returns the
 * changed settings that wait for a restart, named as configured (`routing.breaker.window`).
 */
export function applyRoutingSettings(live: RoutingSettings, next: RoutingSettings): string[] {
  const waiting: string[] = [];
  for (const key of Object.keys(next) as Array<keyof RoutingSettings>) {
    if (key === 'breaker') continue;
    if (!restartOnly.has(key)) Object.assign(live, { [key]: next[key] });
    else if (key !== 'random' && !same(live[key], next[key])) waiting.push(`routing.${key === 'experimentShare' ? 'experiment.share' : key}`);
  }
  for (const key of Object.keys(next.breaker) as Array<keyof ResolvedBreakerSettings>) {
    if (!breakerRestartOnly.has(key)) Object.assign(live.breaker, { [key]: next.breaker[key] });
    else if (!same(live.breaker[key], next.breaker[key])) waiting.push(`routing.breaker.${key}`);
  }
  return waiting;
}
