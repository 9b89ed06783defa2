import type { WindowCounts } from '../store/ports/stats.js';
import type { Rate } from '../types.js';
import { wilson } from './wilson.js';

export function toRate(
  channel: string,
  dims: Record<string, string> | undefined,
  window: string,
  counts: WindowCounts,
  minSamples: number,
  asOf: number,
  stale = false,
): Rate {
  const total = counts.success + counts.failure;
  const { low, high } = wilson(counts.success, total);
  return {
    channel,
    ...(dims && Object.keys(dims).length > 0 ? { dims } : {}),
    window,
    total,
    success: counts.success,
    failure: counts.failure,
    rate: total === 0 ? null : counts.success / total,
    low,
    high,
    sufficient: total >= minSamples,
    started: counts.started,
    pending: counts.pending,
    stale,
    asOf,
  };
}
