import type { WindowCounts } from '../store/ports/stats.js';
import type { Rate } from '../types.js';
import { wilson } from './wilson.js';

/**
 * A count as a Rate may show it: never below zero, never NaN. The engines keep counts non-negative (a
 * correction takes back only what was counted); this guard keeps one bad count in a store from turning into
 * a rate above 1, a NaN bound or a 500 for every reader.
 */
function countOf(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

export function toRate(
  channel: string,
  dims: Record<string, string> | undefined,
  window: string,
  counts: WindowCounts,
  minSamples: number,
  asOf: number,
  stale = false,
): Rate {
  const [success, failure] = [countOf(counts.success), countOf(counts.failure)];
  const total = success + failure;
  const { low, high } = wilson(success, total);
  return {
    channel,
    ...(dims && Object.keys(dims).length > 0 ? { dims } : {}),
    window,
    total,
    success,
    failure,
    rate: total === 0 ? null : success / total,
    low,
    high,
    sufficient: total >= minSamples,
    started: countOf(counts.started),
    pending: countOf(counts.pending),
    stale,
    asOf,
  };
}
