// Windows longer than the engine answers (its windows stop at 2 h, its per-minute counts are kept about
// 2 h): summed from per-minute counts, the newest from the live store (`pulse.minutes`) and the older ones
// from the history store's minute snapshots, which the snapshot job copies there. Used by burn-rate pairs
// such as 6 h / 30 m. A long window moves by whole minutes, so each channel's sums are read once a minute:
// one store call and one SQL query per channel per minute, whatever `evaluateEvery` is (docs/alerts.md).
import type { ChannelHealth, HealthSnapshot } from '../stats/healthSnapshot.js';
import { toRate } from '../stats/rate.js';
import type { WindowCounts } from '../store/ports/stats.js';
import type { MinuteCounts, Rate } from '../types.js';

export type MinuteReader = (channel: string, range: { from: number; to: number }) => Promise<MinuteCounts[]>;

export const maxLongWindowSec = 24 * 3600;

/** `3h`, `6h`, `720m` → seconds; NaN past a day or when it is not one. */
export function longWindowSec(label: string): number {
  const match = /^(\d{1,5})([mh])$/.exec(label);
  const sec = match ? Number(match[1]) * (match[2] === 'h' ? 3600 : 60) : NaN;
  return sec > 0 && sec <= maxLongWindowSec ? sec : NaN;
}

export interface LongWindowsOptions {
  live: MinuteReader;
  /** Older minutes; without it a long window covers only what the live store keeps. */
  history?: MinuteReader;
  /** How far back the live store keeps minutes (its retention). */
  liveRetentionMs: number;
  minSamples: number;
}

export interface LongWindows {
  /** The snapshot with each channel's long-window rates added beside the engine's windows. */
  extend(snapshot: HealthSnapshot, labels: string[]): Promise<HealthSnapshot>;
}

function sum(minutes: MinuteCounts[], fromMs: number, toMs: number, into: WindowCounts): void {
  for (const m of minutes) {
    if (m.minute < fromMs || m.minute > toMs) continue;
    into.success += m.success;
    into.failure += m.failure;
    into.started += m.started;
  }
}

export function createLongWindows(options: LongWindowsOptions): LongWindows {
  const cache = new Map<string, { minute: number; rates: Record<string, Rate> }>();

  async function ratesOf(channel: string, labels: string[], asOf: number): Promise<Record<string, Rate>> {
    const minute = Math.floor(asOf / 60_000) * 60_000;
    const hit = cache.get(channel);
    if (hit && hit.minute === minute) return hit.rates;
    const longestMs = Math.max(...labels.map(longWindowSec)) * 1000;
    // Minutes the live store is sure to hold; the minute at its edge may be partly expired, so history has it.
    const liveFrom = minute - options.liveRetentionMs + 2 * 60_000;
    const [live, old] = await Promise.all([
      options.live(channel, { from: Math.max(liveFrom, minute - longestMs + 60_000), to: minute }),
      options.history && minute - longestMs + 60_000 < liveFrom
        ? options.history(channel, { from: minute - longestMs + 60_000, to: liveFrom - 60_000 })
        : Promise.resolve([]),
    ]);
    const rates: Record<string, Rate> = {};
    for (const label of labels) {
      const fromMs = minute - longWindowSec(label) * 1000 + 60_000;
      const counts: WindowCounts = { success: 0, failure: 0, started: 0, pending: 0 };
      sum(old, fromMs, liveFrom - 60_000, counts);
      sum(live, Math.max(fromMs, liveFrom), minute, counts);
      rates[label] = toRate(channel, undefined, label, counts, options.minSamples, asOf);
    }
    cache.set(channel, { minute, rates });
    return rates;
  }

  return {
    async extend(snapshot, labels) {
      if (labels.length === 0) return snapshot;
      const healths = await Promise.all([...snapshot.channels.values()].map(async (health): Promise<ChannelHealth> => (
        { ...health, rates: { ...health.rates, ...(await ratesOf(health.channel, labels, snapshot.asOf)) } })));
      const channels = new Map(healths.map((h) => [h.channel, h]));
      for (const name of cache.keys()) if (!snapshot.channels.has(name)) cache.delete(name);
      return { ...snapshot, channels };
    },
  };
}
