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
  recent: string;
  older: string;
  breaker: string;
  /** Weight of the older window's outcomes beyond the recent ones. */
  olderWeight: number;
}

function counts(r: Rate | undefined): { success: number; failure: number } {
  return r ? { success: r.success, failure: r.failure } : { success: 0, failure: 0 };
}

function seriesEvidence(own: SeriesHealth, excused: SeriesHealth | undefined, w: EvidenceWindows): SeriesEvidence {
  const recent = counts(own.rates[w.recent]);
  const older = counts(own.rates[w.older]);
  const brk = counts(own.rates[w.breaker]);
  const xRecent = counts(excused?.rates[w.recent]).failure;
  const xOlder = counts(excused?.rates[w.older]).failure;
  const xBreaker = counts(excused?.rates[w.breaker]).failure;
  const blend = (r: number, o: number) => r + w.olderWeight * Math.max(0, o - r);
  const failure = Math.max(0, blend(recent.failure, older.failure) - blend(xRecent, xOlder));
  return {
    score: { success: blend(recent.success, older.success), failure, recentTotal: recent.success + recent.failure - xRecent },
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
