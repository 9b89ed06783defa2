// Turns the success-rate part of PulseOptions into checked settings: defaults (their reasons in
// docs/configuration.md), one clear message per bad option.
import { PayPulseError } from '../errors.js';
import type { EngineSettings } from '../store/ports/stats.js';
import type { Strategy } from '../types.js';
import { namespacePattern } from '../store/keys/index.js';
import { isDimensionName } from './validate.js';
import { parseWindow } from './windows.js';

export const defaultWindows = ['1m', '5m', '15m', '1h'];
/** The most outcomes a last-N read covers (and the most kept per channel for it); the HTTP schema says the same. */
export const lastNMax = 2_000;
/** The Redis engine's strategies (docs/storage.md). */
export const strategies = ['buckets', 'zset'] as const satisfies readonly Strategy[];

/** Why `value` is no strategy, and what to use instead; undefined for a strategy. */
export function strategyProblem(value: unknown): string | undefined {
  if ((strategies as readonly unknown[]).includes(value)) return undefined;
  // Dominated by buckets on memory, Redis CPU and ingest in every benchmark (docs/decisions/080-one-script-per-operation.md).
  if (value === 'zset-sharded') return "must be 'buckets' or 'zset': 'zset-sharded' was removed, use 'buckets' (the default), or 'zset' for the classic sorted sets";
  return `must be one of ${strategies.join(', ')}, got ${String(value)}`;
}

export interface ResolvedSettings extends EngineSettings {
  windows: string[];
  windowsSec: number[];
  minSamples: number;
  dimensions: string[][];
  restrictDims: boolean;
  recordTimeoutMs: number;
  bufferLimit: number;
  maxBatch: number;
  /** Failure codes that are not the channel's fault (routing's attribution): counted again in excused twins. */
  excusedCodes: string[];
  /** Last known rates kept for reads during a store outage (LRU). */
  lastKnownLimit: number;
  maxChannels: number;
  maxDimensionValues: number;
}

/**
 * The options this file reads, by the names PulseOptions (src/options.ts) gives and documents them; declared
 * here by shape because the options sit above stats, naming every feature's settings.
 */
export type StatsOptions = Partial<{
  namespace: string;
  strategy: Strategy;
  windows: string[];
  minSamples: number;
  dimensions: string[][];
  restrictDims: boolean;
  pendingTimeoutMs: number;
  skewToleranceMs: number;
  recordTimeoutMs: number;
  bufferLimit: number;
  maxBatch: number;
  excusedCodes: string[];
  routing: { excusedCodes?: string[] };
  lastKnownLimit: number;
  maxChannels: number;
  maxDimensionValues: number;
}>;

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new PayPulseError('PP_ERR_CONFIG', `${name} must be a positive integer, got ${value}`);
  return v;
}

export function resolveSettings(options: StatsOptions): ResolvedSettings {
  const windows = options.windows ?? defaultWindows;
  if (windows.length === 0) throw new PayPulseError('PP_ERR_CONFIG', 'windows must name at least one window');
  let windowsSec: number[];
  try {
    windowsSec = windows.map(parseWindow);
  } catch (err) {
    throw new PayPulseError('PP_ERR_CONFIG', `windows: ${(err as Error).message}`);
  }
  const strategy = options.strategy ?? 'buckets';
  const problem = strategyProblem(strategy);
  if (problem) throw new PayPulseError('PP_ERR_CONFIG', `strategy ${problem}`, { field: 'strategy' });
  // The dedup horizon: the longest window plus 10 minutes of late callbacks (docs/architecture.md).
  const horizonMs = Math.max(...windowsSec) * 1000 + 10 * 60_000;
  const pendingTimeoutMs = positiveInt('pendingTimeoutMs', options.pendingTimeoutMs, 5 * 60_000);
  if (pendingTimeoutMs >= horizonMs) {
    throw new PayPulseError('PP_ERR_CONFIG', `pendingTimeoutMs must be shorter than the dedup horizon (${horizonMs} ms)`);
  }
  // A ledger state keeps its time within 37 hours of the reader's (ledgerState in layouts.ts); an
  // entry lives a few periods of horizon + skew at most.
  const skewToleranceMs = positiveInt('skewToleranceMs', options.skewToleranceMs, 60_000);
  if (skewToleranceMs > 3600_000) throw new PayPulseError('PP_ERR_CONFIG', `skewToleranceMs must be at most 3600000 (an hour), got ${skewToleranceMs}`);
  const dimensions = options.dimensions ?? [];
  for (const set of dimensions) {
    if (!Array.isArray(set) || set.length === 0 || set.some((d) => !isDimensionName(d))) {
      throw new PayPulseError('PP_ERR_CONFIG', `dimensions: each set must be a non-empty list of names, got ${JSON.stringify(set)}`);
    }
  }
  const namespace = options.namespace ?? 'paypulse';
  if (!namespacePattern.test(namespace)) {
    throw new PayPulseError('PP_ERR_CONFIG', `namespace must be 1–32 chars of [A-Za-z0-9._-], got ${JSON.stringify(namespace)}`);
  }
  return {
    namespace,
    strategy,
    windows,
    windowsSec,
    horizonMs,
    pendingTimeoutMs,
    skewToleranceMs,
    // Minute counts are kept at least 2 h (docs/storage.md), longer if the horizon is longer.
    retentionMs: Math.max(horizonMs, 2 * 3600_000) + 60_000,
    lastNMax,
    failuresMax: 2000,
    // Ledger hashes a channel grows to (a power of 4, at most 4^9: ledger.lua). Growth keeps ≈ 16 requests a
    // hash, so a hot channel's claims scan short listpacks; a fixed 16,384 left a long-lived hot channel
    // hundreds a hash (docs/decisions/061-ledger-shards-grow.md).
    ledgerShards: 262144,
    minSamples: positiveInt('minSamples', options.minSamples, 100),
    dimensions,
    restrictDims: options.restrictDims ?? false,
    recordTimeoutMs: positiveInt('recordTimeoutMs', options.recordTimeoutMs, 50),
    bufferLimit: positiveInt('bufferLimit', options.bufferLimit, 100_000),
    maxBatch: positiveInt('maxBatch', options.maxBatch, 5000),
    excusedCodes: [...new Set([...(options.excusedCodes ?? []), ...(options.routing?.excusedCodes ?? [])])],
    // Four windows of 2,500 channels, or fewer channels with their dims series; an evicted entry only
    // means a read during an outage answers 503 instead of a stale value.
    lastKnownLimit: positiveInt('lastKnownLimit', options.lastKnownLimit, 10_000),
    // Twice the 5,000 active channels the scale benchmark keeps fresh on one Redis
    // (docs/decisions/065-snapshot-carried-reads.md).
    maxChannels: positiveInt('maxChannels', options.maxChannels, 10_000),
    maxDimensionValues: positiveInt('maxDimensionValues', options.maxDimensionValues, 1_000),
  };
}
