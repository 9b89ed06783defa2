// One verdict on a channel's health, read by the alert evaluator and by the dashboard's rows, so a row never
// says OK beside an alert for its channel. A level is given when it lies above the whole Wilson interval of
// the rate at `z`: the alerts decide at their `confidenceZ` (4: a healthy channel is evaluated 17,280 times a
// day), and at z = 0 the interval is the point rate itself, the plain grade of a service without alerts.
import type { Rate } from '../types.js';
import type { ChannelState, Thresholds } from './severity.js';
import { wilsonAt } from './wilson.js';

/** 0 = no level, 1 warn, 2 major, 3 critical. */
export type VerdictRank = 0 | 1 | 2 | 3;

/** The graded levels, mild to severe: a rank is an index + 1. */
const rankedLevels = ['warn', 'major', 'critical'] as const;
export type VerdictLevel = (typeof rankedLevels)[number];

export interface VerdictRule {
  thresholds: Thresholds;
  /** Fewer outcomes than this give no level at all: a handful of failures must not page nor paint a row. */
  minSamples: number;
}

/** The most severe level lying above the whole interval at `z`, among those the sample is large enough for. */
export function verdictRank(rate: Pick<Rate, 'success' | 'total'> | undefined, rule: VerdictRule, z: number): VerdictRank {
  if (!rate || rate.total < rule.minSamples) return 0;
  const high = z === 0 ? rate.success / rate.total : wilsonAt(rate.success, rate.total, z).high!;
  let rank: VerdictRank = 0;
  rankedLevels.forEach((level, i) => {
    if (high < rule.thresholds[level]) rank = (i + 1) as VerdictRank;
  });
  return rank;
}

export interface ChannelVerdict {
  state: ChannelState;
  /** The rate that decided it (for ordering within a state), null without one. */
  rate: number | null;
  /** The window whose rate decided it; absent when an alert or no window did. */
  window?: string;
  /** The state is the level of the channel's firing alert. */
  alerted?: true;
}

/**
 * A channel's state. While an alert fires for the channel, its level: the alert holds through a recovery
 * not yet confirmed and through a drain by the router, when the channel's own windows are empty or healthy.
 * Otherwise the verdict on the shortest window (`windows` shortest first) with `minSamples` outcomes — the
 * freshest number that can be trusted; then `few` (outcomes, too few to trust), or `none` (no outcomes).
 */
export function channelVerdict(rates: Record<string, Rate>, windows: readonly string[], rule: VerdictRule, z: number, alertLevel: VerdictLevel | null): ChannelVerdict {
  // Loops rather than map/find: the stream ranks every channel each second, 10,000 of them at the limit.
  let trusted: Rate | undefined;
  for (const w of windows) {
    const r = rates[w];
    if (r && r.total >= rule.minSamples && r.rate !== null) {
      trusted = r;
      break;
    }
  }
  if (alertLevel) return { state: alertLevel, rate: trusted?.rate ?? null, alerted: true };
  if (trusted) {
    const rank = verdictRank(trusted, rule, z);
    return { state: rank === 0 ? 'ok' : rankedLevels[rank - 1]!, rate: trusted.rate, window: trusted.window };
  }
  for (const w of windows) {
    const r = rates[w];
    if (r && r.total > 0) return { state: 'few', rate: r.rate };
  }
  return { state: 'none', rate: null };
}
