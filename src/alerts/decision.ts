// The decision rule: what one evaluation of one series says, before any memory of earlier evaluations.
// A healthy channel at 97 % is evaluated 17,280 times a day, so a rule that is wrong once in 10,000 pages
// someone every day. A breach therefore needs the level to lie above the whole Wilson interval at
// `confidenceZ` (4 by default), not only above the point rate:
//   - fast: on the short window (1 m) that alone is believed at once: a drop from 97 % to 40 % at 600/min
//     clears it within 10 s;
//   - slow: on the long window (5 m) it must hold `consecutive` evaluations in a row, which catches smaller
//     drops on channels too quiet for the short window to hold `minSamples`.
// docs/alerts.md has the detection table this was tuned on.
import { verdictRank } from '../stats/verdict.js';
import { wilsonAt, z95 } from '../stats/wilson.js';
import type { Rate } from '../types.js';
import { levels, type AlertRules, type BurnRatePair, type ChannelRule, type Level } from './rules.js';

/** 0 = no level, 1 warn, 2 major, 3 critical. */
export type Rank = 0 | 1 | 2 | 3;

export function rankOf(level: Level | null | undefined): Rank {
  return level ? ((levels.indexOf(level) + 1) as Rank) : 0;
}

export function levelOf(rank: number): Level | null {
  return rank > 0 ? levels[rank - 1]! : null;
}

export interface Observation {
  /** Believed at once. */
  fast: Rank;
  /** Believed after `consecutive` evaluations in a row. */
  slow: Rank;
  /** The numbers the observation rests on (for the notification), with the z of the interval they carry. */
  basis?: Rate & { z: number };
  /** Judged on the newest outcomes because the router keeps traffic away from the channel (drained.ts). */
  drained?: boolean;
  /** Fresh outcomes show the firing series healthy: it resolves now, without `consecutive` calm evaluations. */
  settled?: boolean;
}

export const quiet: Observation = { fast: 0, slow: 0 };

/** The most severe level lying above the whole interval: the verdict the dashboard's rows read too. */
export function confidentRank(rate: Rate | undefined, rule: Pick<ChannelRule, 'minSamples' | 'thresholds'>, z: number): Rank {
  return verdictRank(rate, rule, z);
}

/** The rate with the interval the level was decided on, so a notification never prints another one. */
export function decidedOn(rate: Rate | undefined, z: number): (Rate & { z: number }) | undefined {
  return rate ? { ...rate, ...wilsonAt(rate.success, rate.total, z), z } : undefined;
}

export function observeRate(rates: Record<string, Rate>, rule: ChannelRule, rules: AlertRules): Observation {
  const short = rules.shortWindow ? rates[rules.shortWindow] : undefined;
  const long = rates[rules.window];
  const fast = confidentRank(short, rule, rules.confidenceZ);
  const slow = confidentRank(long, rule, rules.confidenceZ);
  const basis = decidedOn(fast >= slow && fast > 0 ? short : long, rules.confidenceZ);
  return { fast, slow, ...(basis ? { basis } : {}) };
}

/**
 * Silent: completed outcomes in a window fell below `share` of what the channel usually completes in as long
 * (its rate over the rest of the baseline window). The shortest window where the usual count reaches
 * `minSamples` decides, so a busy channel is caught within a minute and a quiet one is not paged on Poisson
 * noise: with 100 expected, fewer than 20 happens by chance about once in 10^19.
 */
export function observeSilent(rates: Record<string, Rate>, rule: ChannelRule, rules: AlertRules, windowSec: (w: string) => number): Observation {
  if (!rules.silent.enabled) return quiet;
  const baseline = rates[rules.silent.baseline];
  if (!baseline) return quiet;
  const baselineSec = windowSec(rules.silent.baseline);
  for (const label of rules.shortWindow ? [rules.shortWindow, rules.window] : [rules.window]) {
    const recent = rates[label];
    if (!recent) continue;
    const recentSec = windowSec(label);
    const usualPerSec = (baseline.total - recent.total) / (baselineSec - recentSec);
    const expected = usualPerSec * recentSec;
    if (expected < rule.minSamples) continue;
    const basis = { ...recent, z: z95 };
    return recent.total < rules.silent.share * expected ? { fast: 3, slow: 0, basis } : { fast: 0, slow: 0, basis };
  }
  return quiet;
}

/**
 * A burn-rate pair (multi-window burn-rate alerting, docs/alerts.md): both windows spend the error budget faster
 * than `factor`. The long window stands in for `for:`; the short one makes the alert end soon after the burn.
 */
export function observeBurn(rates: Record<string, Rate>, rule: ChannelRule, pair: BurnRatePair, target: number): Observation {
  const long = rates[pair.long];
  const short = rates[pair.short];
  if (!long || !short || long.total < rule.minSamples || short.total < rule.minSamples) return quiet;
  const budget = 1 - target;
  const burning = (r: Rate) => r.failure / r.total / budget > pair.factor;
  const basis = { ...short, z: z95 };
  return burning(long) && burning(short) ? { fast: rankOf(pair.level), slow: 0, basis } : { fast: 0, slow: 0, basis };
}
