// Turns one health snapshot into what routing decides on, once per snapshot rather than once per decision:
// per channel and dims series, recency-blended counts with excused failures taken out, and the breaker
// window's counts. Failures whose code is not the channel's fault are recorded a second time in an
// "excused" twin of each series, so subtracting the twin leaves the channel's own failures (docs/routing.md).
import type { HealthSnapshot, SeriesHealth } from '../stats/healthSnapshot.js';
import type { Rate } from '../types.js';
import type { WindowEvidence } from './breakerMachine.js';
import type { Evidence } from './scoring.js';
import { wilson } from '../stats/wilson.js';

import { excusedSeriesId, isExcusedSeries } from '../stats/series.js';

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

/**
 * Σ decay^k × (what window k holds beyond window k-1), newest first — but an older slice joins only while its
 * rate lies inside the 95 % interval of what the newer ones hold. Without that stop, an hour of successes
 * outweighs the few failures a channel gets in the minute it goes down (the router stops sending, so there
 * are only few), and the router keeps going back to a dead channel once its newest window drains.
 */
function blend(success: number[], failure: number[], decay: number): { s: number; f: number } {
  let s = 0;
  let f = 0;
  let weight = 1;
  let prevS = 0;
  let prevF = 0;
  for (let k = 0; k < success.length; k++) {
    const ds = Math.max(0, success[k]! - prevS);
    const df = Math.max(0, failure[k]! - prevF);
    prevS = Math.max(prevS, success[k]!);
    prevF = Math.max(prevF, failure[k]!);
    if (ds + df > 0 && s + f > 0) {
      const { low, high } = wilson(s, s + f);
      const rate = ds / (ds + df);
      if (rate < low! || rate > high!) break;
    }
    s += weight * ds;
    f += weight * df;
    weight *= decay;
  }
  return { s, f };
}

function seriesEvidence(own: SeriesHealth, excused: SeriesHealth | undefined, w: EvidenceWindows): SeriesEvidence {
  const of = (h: SeriesHealth | undefined, field: 'success' | 'failure') => w.score.map((label) => counts(h?.rates[label])[field]);
  const xFailure = of(excused, 'failure');
  // The channel's own failures: every window's count less its excused ones.
  const failure = of(own, 'failure').map((v, i) => Math.max(0, v - xFailure[i]!));
  const blended = blend(of(own, 'success'), failure, w.decay);
  const recent = counts(own.rates[w.score[0]!]);
  const brk = counts(own.rates[w.breaker]);
  const xBreaker = counts(excused?.rates[w.breaker]).failure;
  return {
    score: { success: blended.s, failure: blended.f, recentTotal: recent.success + failure[0]! },
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
