// A channel the router drained: its windows stop describing it. The router moves a failing channel's payments
// within seconds, so its windows hold minutes of healthy outcomes from before and a handful of failures — too
// diluted to fire on — and then empty, which would resolve the alert while the channel still fails. While the
// router keeps traffic away, the channel's newest outcomes (the last ones before the drain, then the probes,
// exploration and whatever it still carries) judge it instead: one store read per drained channel's rate
// alert per evaluation, the channels routine routing never drains (a share that was small) costing nothing.
import { confidentRank, decidedOn, type Observation, type Rank } from './decision.js';
import type { ChannelRule, AlertRules } from './rules.js';
import type { AlertState } from './state.js';
import type { Rate } from '../types.js';
import { z95 } from '../stats/wilson.js';

/** The newest outcomes of a series (the pulse's `lastN`). */
export type RecentReader = (channel: string, query: { n: number; dims?: Record<string, string> }) => Promise<Rate>;

/**
 * Outcomes that may fire an alert on a drained channel: the failures that made the router move are among them.
 * They are judged at `confidenceZ` + 1 because they are picked, not sampled: the router leaves a healthy channel
 * right after its worst run, so its newest outcomes are that run (at 30 outcomes and z 4, two acquirers at 97 %
 * trading the lead paged 4 times in 24 simulated hours; at 60 and z 4, once; at 60 and z 5, never).
 */
export const detectSamples = 60;
const pickedZ = 1;
/**
 * Outcomes that may end it, at 95 %: the newest ten, so the failing minutes are forgotten as soon as ten new
 * outcomes arrive; a channel still at 30 % shows the 9 or 10 successes that clears once in 7,000 sets.
 */
export const recoverySamples = 10;

function ranked(rate: Rate, rule: ChannelRule, floor: number, z: number): Rank {
  return confidentRank(rate, { minSamples: floor, thresholds: rule.thresholds }, z);
}

/**
 * The observation of a rate alert whose channel the router drains. Not firing: it fires on the newest
 * `detectSamples` outcomes as well as on its windows. Firing: the newest `recoverySamples` decide — calm ends it
 * at once (the next evaluations would re-read the same few outcomes, so waiting for `consecutive` of them adds
 * time, not evidence); a level or too few outcomes hold it where it is: an emptied window is no evidence of
 * health, and thin evidence no reason to de-escalate.
 */
export async function drainedObservation(read: RecentReader, channel: string, dims: Record<string, string> | undefined,
  windows: Observation, previous: AlertState, rule: ChannelRule, rules: AlertRules): Promise<Observation> {
  const query = (n: number) => read(channel, { n, ...(dims ? { dims } : {}) });
  if (previous.rank === 0) {
    const newest = await query(detectSamples);
    const z = rules.confidenceZ + pickedZ;
    const fast = ranked(newest, rule, detectSamples, z);
    if (fast <= windows.fast) return { ...windows, drained: true };
    return { fast, slow: windows.slow, basis: decidedOn({ ...newest, window: `last ${newest.total}` }, z)!, drained: true };
  }
  const newest = await query(recoverySamples);
  const basis = decidedOn({ ...newest, window: `last ${newest.total}` }, z95)!;
  const level = newest.total < recoverySamples ? previous.rank : ranked(newest, rule, recoverySamples, z95);
  if (level === 0) return { fast: 0, slow: 0, basis, drained: true, settled: true };
  const held = Math.max(windows.fast, previous.rank) as Rank;
  return { fast: held, slow: previous.rank, basis, drained: true };
}
