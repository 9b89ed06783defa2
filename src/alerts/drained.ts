// A channel the router drained: its windows stop describing it. The router moves a failing channel's payments
// within seconds, so its windows hold minutes of healthy outcomes from before and a handful of failures — too
// diluted to fire on — and then empty, which would resolve the alert while the channel still fails; and when
// the router gives the traffic back, its long window still holds the drained minutes, which would keep the
// alert firing (or fire it again) on outcomes the channel no longer produces. While the router keeps traffic
// away, and for as long as the long window reaches back to that time, the channel's newest outcomes (the last
// ones before the drain, then the probes, exploration and whatever it carries) judge it instead: two store
// reads per such series' rate alert per evaluation, the channels routine routing never drains costing nothing.
import { confidentRank, decidedOn, type Observation, type Rank } from './decision.js';
import { windowSecOf, type ChannelRule, type AlertRules } from './rules.js';
import type { AlertState } from './state.js';
import type { Rate } from '../types.js';
import { z95 } from '../stats/wilson.js';

/** The newest outcomes of a series (the pulse's `lastN`). */
export type RecentReader = (channel: string, query: { n: number; dims?: Record<string, string> }) => Promise<Rate>;

/**
 * Outcomes that may fire an alert on a drained channel: the failures that made the router move are among them.
 * Two sizes, because the router may move after a dozen failures (at 40 %, the newest 60 then hold 45 healthy
 * outcomes from before and stay above the levels until exploration adds failures a minute later) or after many.
 * They are judged at `confidenceZ` + 1 because they are picked, not sampled: the router leaves a healthy channel
 * right after its worst run, so its newest outcomes are that run (at 30 outcomes and z 4, two acquirers at 97 %
 * trading the lead paged 4 times in 24 simulated hours; at 60 and z 4, once; at 60 and z 5, never).
 */
export const detectSamples = [20, 60] as const;
const pickedZ = 1;
/**
 * Outcomes that may end it, at 95 %, in two sizes. The newest 20 showing no level (18 successes or more) end it
 * as soon as the router gives the channel traffic again: a channel still at 40 % shows that once in 200,000
 * sets. While only exploration reaches it (6 payments a minute at 600/min), the newest 10 must all be
 * successes — 9 of 10 ended an alert on a channel still at 40 % (the last lucky outcomes before the drain and
 * two from exploration); 10 of 10 happens there once in 10,000 sets.
 */
export const recoverySamples = { many: 20, few: 10 } as const;

function ranked(rate: Rate, rule: ChannelRule, floor: number, z: number): Rank {
  return confidentRank(rate, { minSamples: floor, thresholds: rule.thresholds }, z);
}

/**
 * Whether the short window may still hold failures the alert resolved past: a drained series' alert resolves on
 * its newest outcomes while its short window still holds the outage, and that window alone would fire it again at
 * the next evaluation, then the newest outcomes resolve it, every evaluation until the outage's minute has passed.
 */
function shortWindowReachesResolution(previous: AlertState, rules: AlertRules, nowMs: number): boolean {
  if (previous.resolvedAt === undefined || rules.shortWindow === null) return false;
  return nowMs - previous.resolvedAt < windowSecOf(rules.shortWindow) * 1000;
}

const newestBasis = (rate: Rate, z: number) => decidedOn({ ...rate, window: `last ${rate.total}` }, z)!;

/**
 * The observation of a rate alert judged on its newest outcomes. Not firing: it fires on the newest
 * `detectSamples` outcomes or on its short window, never on its long window's `consecutive` rule (that window
 * holds the drained minutes); within a short window's length of a resolution, nothing fires it unless the
 * newest `recoverySamples.few` breach at the ordinary z: the short window and the newest 60 still hold the
 * failures it resolved past, while a channel failing again fills its newest 10 first (in a second at 600/min).
 * Firing: fresh calm evidence ends it at once (the next evaluations would re-read the same few outcomes, so
 * waiting for `consecutive` of them adds time, not evidence); otherwise it is held
 * where it is, or raised by the short window: an emptied window is no evidence of health, and thin evidence no
 * reason to de-escalate. `drained`: the router keeps traffic away now (not only in the long window's memory).
 */
export async function drainedObservation(read: RecentReader, channel: string, dims: Record<string, string> | undefined,
  windows: Observation, previous: AlertState, rule: ChannelRule, rules: AlertRules, nowMs: number, drained = true): Promise<Observation> {
  const query = (n: number) => read(channel, { n, ...(dims ? { dims } : {}) });
  const flag = drained ? { drained: true } : {};
  if (previous.rank === 0) {
    if (shortWindowReachesResolution(previous, rules, nowMs)) {
      const freshest = await query(recoverySamples.few);
      if (ranked(freshest, rule, recoverySamples.few, rules.confidenceZ) === 0) return { fast: 0, slow: 0, ...(windows.basis ? { basis: windows.basis } : {}), ...flag };
    }
    const z = rules.confidenceZ + pickedZ;
    const newest = await Promise.all(detectSamples.map(query));
    let fast: Rank = 0;
    let basis = newest.at(-1)!;
    newest.forEach((rate, i) => {
      const rank = ranked(rate, rule, detectSamples[i]!, z);
      if (rank > fast) [fast, basis] = [rank, rate];
    });
    if (fast <= windows.fast) return { fast: windows.fast, slow: 0, ...(windows.basis ? { basis: windows.basis } : {}), ...flag };
    return { fast, slow: 0, basis: newestBasis(basis, z), ...flag };
  }
  const [many, few] = await Promise.all([query(recoverySamples.many), query(recoverySamples.few)]);
  const calmMany = many.total >= recoverySamples.many && ranked(many, rule, recoverySamples.many, z95) === 0;
  const calmFew = !calmMany && few.success >= recoverySamples.few;
  // The interval printed is that of the sample that decided: the few when they ended it, else the many.
  const basis = newestBasis(calmFew ? few : many, z95);
  if (calmMany || calmFew) return { fast: 0, slow: 0, basis, settled: true, ...flag };
  const held = Math.max(windows.fast, previous.rank) as Rank;
  return { fast: held, slow: previous.rank, basis, ...flag };
}
