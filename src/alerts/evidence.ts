// The evidence of a firing alert: the newest failed request ids and their codes (one store read per firing
// or escalation, through the pulse's `failures()`), and where the failures concentrate, taken from the dims
// series already in the health snapshot, so it costs no read at all.
import type { ChannelHealth } from '../stats/healthSnapshot.js';
import type { FailedRequest } from '../types.js';
import type { Concentration, Evidence } from './notification.js';

export const maxFailedIds = 10;
/** Failures read to rank codes: enough that the top code of a real incident is clear. */
export const failuresForCodes = 200;
const maxConcentrations = 3;
const maxCodes = 5;
/** Below this many outcomes a series' rate is too noisy to point at. */
const minSeriesSamples = 20;

export type FailuresReader = (channel: string, query: { window: string; limit: number }) => Promise<FailedRequest[]>;

export function topCodes(failures: FailedRequest[]): Evidence['topCodes'] {
  const counts = new Map<string, number>();
  for (const f of failures) counts.set(f.code ?? 'unknown', (counts.get(f.code ?? 'unknown') ?? 0) + 1);
  return [...counts].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)).slice(0, maxCodes);
}

/**
 * Series of the channel ranked by how far their rate over `window` fell below their own rate over
 * `reference` (the baseline window), or below the channel's rate when the baseline is not in the snapshot.
 */
export function concentrationOf(health: ChannelHealth | undefined, window: string, reference: string | undefined): Concentration[] {
  if (!health) return [];
  const channelRate = health.rates[window]?.rate ?? null;
  const found: Concentration[] = [];
  for (const series of health.series) {
    const now = series.rates[window];
    if (!series.dims || !now || now.total < minSeriesSamples || now.rate === null) continue;
    const before = reference ? series.rates[reference]?.rate ?? null : null;
    const ref = before ?? channelRate;
    if (ref === null) continue;
    const drop = ref - now.rate;
    if (drop > 0) found.push({ dims: series.dims, rate: now.rate, total: now.total, failure: now.failure, drop });
  }
  return found.sort((a, b) => b.drop - a.drop || b.failure - a.failure).slice(0, maxConcentrations);
}

/** Gathers the evidence; a store that cannot answer leaves the ids out rather than holding the alert back. */
export async function gatherEvidence(
  read: FailuresReader | undefined,
  health: ChannelHealth | undefined,
  channel: string,
  window: string,
  reference: string | undefined,
): Promise<Evidence> {
  let failures: FailedRequest[] = [];
  if (read) {
    try {
      failures = await read(channel, { window, limit: failuresForCodes });
    } catch {
      failures = [];
    }
  }
  return {
    failedRequests: failures.slice(0, maxFailedIds),
    topCodes: topCodes(failures),
    concentration: concentrationOf(health, window, reference),
  };
}
