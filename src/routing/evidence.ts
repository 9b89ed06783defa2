// Turns one health snapshot into what routing decides on, once per snapshot rather than once per decision:
// per channel and dims series, recency-blended counts with excused failures taken out, and the breaker
// window's counts. Failures whose code is not the channel's fault are recorded a second time in an
// "excused" twin of each series, so subtracting the twin leaves the channel's own failures (docs/routing.md).
import type { HealthSnapshot, SeriesHealth } from '../stats/healthSnapshot.js';
import type { Rate } from '../types.js';
import type { WindowEvidence } from './breakerMachine.js';
import type { Evidence } from './scoring.js';

/** Marks an excused twin; `!` cannot occur in a dims series id, so no real series collides with one. */
export const excusedMark = '!excused';

export function excusedSeriesId(seriesId: string): string {
  return `${seriesId}${excusedMark}`;
}

export function isExcusedSeries(seriesId: string): boolean {
  return seriesId.endsWith(excusedMark);
}

export interface SeriesEvidence {
  score: Evidence;
  breaker: WindowEvidence;
}

export interface ChannelEvidence {
  /** By series id; '' is the channel itself. */
  series: Map<string, SeriesEvidence>;
}

export interface RoutingEvidence {
  asOf: number;
  channels: Map<string, ChannelEvidence>;
  /** Success share over every channel's recent window: where a channel without outcomes starts. */
  pooledMean: number;
}

export interface EvidenceWindows {
  /** Shortest first. */
  score: string[];
  breaker: string;
  /** Weight of the k-th window's outcomes beyond the (k-1)-th: decay^k. */
  decay: number;
}

function counts(r: Rate | undefined): { success: number; failure: number } {
  return r ? { success: r.success, failure: r.failure } : { success: 0, failure: 0 };
}

/** Σ decay^k × (what window k holds beyond window k-1). */
function blend(values: number[], decay: number): number {
  let sum = 0;
  let weight = 1;
  let previous = 0;
  for (const v of values) {
    sum += weight * Math.max(0, v - previous);
    previous = Math.max(previous, v);
    weight *= decay;
  }
  return sum;
}

function seriesEvidence(own: SeriesHealth, excused: SeriesHealth | undefined, w: EvidenceWindows): SeriesEvidence {
  const of = (h: SeriesHealth | undefined, field: 'success' | 'failure') => w.score.map((label) => counts(h?.rates[label])[field]);
  const failures = Math.max(0, blend(of(own, 'failure'), w.decay) - blend(of(excused, 'failure'), w.decay));
  const recent = counts(own.rates[w.score[0]!]);
  const brk = counts(own.rates[w.breaker]);
  const xRecent = counts(excused?.rates[w.score[0]!]).failure;
  const xBreaker = counts(excused?.rates[w.breaker]).failure;
  return {
    score: { success: blend(of(own, 'success'), w.decay), failure: failures, recentTotal: recent.success + recent.failure - xRecent },
    breaker: { success: brk.success, failure: Math.max(0, brk.failure - xBreaker) },
  };
}

export function evidenceFromSnapshot(snapshot: HealthSnapshot, w: EvidenceWindows): RoutingEvidence {
  const channels = new Map<string, ChannelEvidence>();
  let pooledSuccess = 0;
  let pooledTotal = 0;
  for (const [name, health] of snapshot.channels) {
    const byId = new Map<string, SeriesHealth>();
    for (const s of health.series) if (s.id !== undefined) byId.set(s.id, s);
    const series = new Map<string, SeriesEvidence>();
    series.set('', seriesEvidence(health, byId.get(excusedSeriesId('')), w));
    for (const [id, s] of byId) if (!isExcusedSeries(id)) series.set(id, seriesEvidence(s, byId.get(excusedSeriesId(id)), w));
    channels.set(name, { series });
    const own = series.get('')!.score;
    pooledSuccess += own.success;
    pooledTotal += own.success + own.failure;
  }
  // Before any outcome, a coin: every channel equally unknown.
  const pooledMean = pooledTotal > 0 ? pooledSuccess / pooledTotal : 0.5;
  return { asOf: snapshot.asOf, channels, pooledMean };
}
