// Turns each health snapshot into what routing decides on, once per snapshot rather than once per decision:
// per channel and dims series, recency-blended counts with excused failures taken out, and the breaker
// window's counts. Failures whose code is not the channel's fault are recorded a second time in an
// "excused" twin of each series, so subtracting the twin leaves the channel's own failures. The tracker
// remembers, per series, the evidence at its last detected break, so a break outlives the newest window
// that showed it (docs/routing.md, "How a decision is made").
import type { HealthSnapshot, SeriesHealth } from '../stats/healthSnapshot.js';
import type { Rate } from '../types.js';
import type { WindowEvidence } from './breakerMachine.js';
import type { Evidence } from './scoring.js';
import { HalfLifeChooser, shiftStatistic, shiftThreshold, sliceAgesSec, sliceWeights } from './discount.js';
import { parseWindow } from '../stats/windows.js';

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
}

/** The evidence a series held when its older windows last disagreed with its newer ones. */
interface Break {
  at: number;
  s: number;
  f: number;
  /** What the older windows held when the break was first seen: the rate the series had before it. */
  before: { s: number; f: number };
  /** Recalled with traffic behind it: the channel was back, not only a probe or two. */
  back?: boolean;
  /** Times it was back and fell again: a channel that flaps does not get its old rate back. */
  falls?: number;
}

interface Blended {
  s: number;
  f: number;
  /** The newer windows disagreed with an older one: a break seen in this series' own recent outcomes. */
  broke: boolean;
  /** Raw counts of the slices that joined (the evidence since the break, when there is one). */
  rawS: number;
  rawF: number;
  /** Counts of the slices past the break, weighted relative to the first of them. */
  restS: number;
  restF: number;
}

function counts(r: Rate | undefined): { success: number; failure: number } {
  return r ? { success: r.success, failure: r.failure } : { success: 0, failure: 0 };
}

/** Per-slice counts, newest first: what window k holds beyond window k-1. */
function slices(success: number[], failure: number[]): { ds: number[]; df: number[] } {
  const ds: number[] = [];
  const df: number[] = [];
  let prevS = 0;
  let prevF = 0;
  for (let k = 0; k < success.length; k++) {
    ds.push(Math.max(0, success[k]! - prevS));
    df.push(Math.max(0, failure[k]! - prevF));
    prevS = Math.max(prevS, success[k]!);
    prevF = Math.max(prevF, failure[k]!);
  }
  return { ds, df };
}

/**
 * Σ weight_k × slice k, newest first, the weights those of the half-life the series chose — but an older slice
 * joins only while a likelihood-ratio test finds no shift between it and the newer slices. Without that stop,
 * an hour of successes outweighs the few failures a channel gets in the minute it goes down (the router stops
 * sending, so there are only few). When the newer slices hold nothing — the router stopped sending, so they
 * drained — the evidence at the last break is what the older slices must agree with; disagreeing, it stands.
 */
function blend(ds: number[], df: number[], weights: number[], held: Break | undefined): Blended {
  let s = 0;
  let f = 0;
  let rawS = 0;
  let rawF = 0;
  // Weighted relative to the first slice past the break, so the rate before it counts as what it was then.
  const rest = (from: number) => {
    let restS = 0;
    let restF = 0;
    for (let k = from; k < ds.length; k++) {
      restS += (weights[k]! / weights[from]!) * ds[k]!;
      restF += (weights[k]! / weights[from]!) * df[k]!;
    }
    return { restS, restF };
  };
  // Once the newer slices were empty and the next one agreed with the break, the break keeps speaking for them:
  // a look's single failure must not let the minutes before the outage join behind it.
  let leaning = false;
  for (let k = 0; k < ds.length; k++) {
    const n = ds[k]! + df[k]!;
    if (n > 0 && rawS + rawF > 0 && !leaning && shiftStatistic(rawS, rawF, ds[k]!, df[k]!) > shiftThreshold) return { s, f, broke: true, rawS, rawF, ...rest(k) };
    if (k > 0 && n > 0 && (rawS + rawF === 0 || leaning) && held) {
      if (shiftStatistic(held.s + rawS, held.f + rawF, ds[k]!, df[k]!) > shiftThreshold) return { s: s + held.s, f: f + held.f, broke: false, rawS, rawF, restS: 0, restF: 0 };
      leaning = true;
    }
    s += weights[k]! * ds[k]!;
    f += weights[k]! * df[k]!;
    rawS += ds[k]!;
    rawF += df[k]!;
  }
  return { s, f, broke: false, rawS, rawF, restS: 0, restF: 0 };
}

/** A rate from counts, kept off 0 and 1 so its logarithms stay finite. */
const rateOf = (s: number, f: number) => (s + 0.5) / (s + f + 1);

/**
 * Log-likelihood ratio of the outcomes since a break under the rate before it against the break's rate: how
 * strongly they say the series is back. Wald's bound at 1/20 (3.0): one success after a 0 % outage of 50
 * failures; seven in a row after a 60 % one.
 */
export function recoveryEvidence(sinceS: number, sinceF: number, before: { s: number; f: number }, broken: { s: number; f: number }): number {
  const pb = rateOf(before.s, before.f);
  const po = rateOf(broken.s, broken.f);
  return sinceS * Math.log(pb / po) + sinceF * Math.log((1 - pb) / (1 - po));
}
const recoveredAt = Math.log(20);
/**
 * The pre-break evidence rejoins a recovered series as at most this many outcomes: enough to rank it where it
 * stood before, few enough that a channel back at a lower rate than before shows it within a second of traffic.
 */
const recalledStrength = 50;
/** Outcomes since a recall that say traffic flowed again: a fall after that is a flap. */
const backAfter = 20;
/** A fall counts as a flap when it goes below this rate. */
const flapBelow = 0.5;

const none: Evidence = { success: 0, failure: 0, recentTotal: 0 };
const recentWindowSec = 60;
/** The traffic a breaker's probe rounds are sized by is taken over the first score window of at least this. */
const trafficWindowSec = 300;

export class EvidenceTracker {
  private breaks = new Map<string, Break>();
  /** A break is forgotten once the longest score window lies wholly after it. */
  private readonly rememberMs: number;

  private readonly weights: number[][];
  private readonly halfLives: HalfLifeChooser;
  /**
   * The window "recent" means (exploration's sample count, a drained series): the first of at least a minute,
   * so a 10 s window that sharpens the score does not also make every channel look short of samples.
   */
  private readonly recentIndex: number;
  private readonly windowsMs: number[];
  private readonly trafficIndex: number;
  private readonly trafficSec: number;

  constructor(private readonly w: EvidenceWindows) {
    this.rememberMs = parseWindow(w.score.at(-1)!) * 1000;
    this.weights = sliceWeights(sliceAgesSec(w.score.map(parseWindow)));
    this.halfLives = new HalfLifeChooser(this.weights);
    const recent = w.score.findIndex((label) => parseWindow(label) >= recentWindowSec);
    this.recentIndex = recent < 0 ? w.score.length - 1 : recent;
    this.windowsMs = w.score.map((label) => parseWindow(label) * 1000);
    const traffic = w.score.findIndex((label) => parseWindow(label) >= trafficWindowSec);
    this.trafficIndex = traffic < 0 ? w.score.length - 1 : traffic;
    this.trafficSec = parseWindow(w.score[this.trafficIndex]!);
  }

  /** The evidence of a snapshot; breaks of series absent from it are dropped, so memory follows the snapshot. */
  absorb(snapshot: HealthSnapshot): RoutingEvidence {
    const steps = this.absorbing(snapshot);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `absorb` in slices: pauses after every `sliceChannels` channels so the caller can give the event loop a
   * turn (10,000 channels in one go were one long task, docs/decisions/067-long-tasks-yield.md). Breaks are
   * replaced only at the end, so one absorption at a time.
   */
  *absorbing(snapshot: HealthSnapshot, sliceChannels = 1_000): Generator<void, RoutingEvidence> {
    const next = new Map<string, Break>();
    const channels = new Map<string, ChannelEvidence>();
    let pooledSuccess = 0;
    let pooledTotal = 0;
    let seen = 0;
    for (const [name, health] of snapshot.channels) {
      if (++seen % sliceChannels === 0) yield;
      const byId = new Map<string, SeriesHealth>();
      for (const s of health.series) if (s.id !== undefined) byId.set(s.id, s);
      const series = new Map<string, SeriesEvidence>();
      const own = this.seriesEvidence(`${name}\n`, health, byId.get(excusedSeriesId('')), snapshot.asOf, next, false);
      series.set('', own);
      const channelBroken = next.has(`${name}\n`);
      for (const [id, s] of byId) {
        if (!isExcusedSeries(id)) series.set(id, this.seriesEvidence(`${name}\n${id}`, s, byId.get(excusedSeriesId(id)), snapshot.asOf, next, channelBroken));
      }
      channels.set(name, { series });
      pooledSuccess += own.score.success;
      pooledTotal += own.score.success + own.score.failure;
    }
    this.breaks = next;
    this.halfLives.settle();
    // Before any outcome, a coin: every channel equally unknown.
    const pooledMean = pooledTotal > 0 ? pooledSuccess / pooledTotal : 0.5;
    return { asOf: snapshot.asOf, channels, pooledMean };
  }

  /** How many of the shortest windows lie wholly within the last `ms`. */
  private slicesAfter(ms: number): number {
    let k = 0;
    while (k < this.windowsMs.length && this.windowsMs[k]! <= ms) k++;
    return k;
  }

  /**
   * One series' evidence. `channelBroken`: the channel's own series holds a break; a dims series with nothing
   * recent and no break of its own then has only pre-break outcomes, and leans on the channel instead.
   */
  private seriesEvidence(key: string, own: SeriesHealth, excused: SeriesHealth | undefined, now: number, next: Map<string, Break>, channelBroken: boolean): SeriesEvidence {
    const w = this.w;
    const of = (h: SeriesHealth | undefined, field: 'success' | 'failure') => w.score.map((label) => counts(h?.rates[label])[field]);
    const xFailure = of(excused, 'failure');
    // The channel's own failures: every window's count less its excused ones.
    const failure = of(own, 'failure').map((v, i) => Math.max(0, v - xFailure[i]!));
    const success = of(own, 'success');
    const recentTotal = success[this.recentIndex]! + failure[this.recentIndex]!;
    const previous = this.breaks.get(key);
    const held = previous && now - previous.at < this.rememberMs ? previous : undefined;
    const { ds, df } = slices(success, failure);
    const blended = blend(ds, df, this.weights[this.halfLives.choose(key, ds, df)]!, held);
    let s = blended.s;
    let f = blended.f;
    let couldBe: number | undefined;
    let recalled = false;
    let backNow = false;
    if (held && rateOf(held.before.s, held.before.f) > rateOf(held.s, held.f)) {
      // Below what it was before its break: back once the outcomes since the break was last seen say so and
      // agree with the old rate — then the old evidence rejoins, so a recovered channel ranks where it stood
      // without a minute of relearning. Since: the slices of the windows that lie wholly after it.
      // Until a window lies wholly after it, the newest slice stands in (it may hold a few of the outage's).
      const after = Math.max(1, this.slicesAfter(now - held.at));
      const sinceS = ds.slice(0, after).reduce((a, b) => a + b, 0);
      const sinceF = df.slice(0, after).reduce((a, b) => a + b, 0);
      // A flapper (back, then down again) is not recalled twice; the newest slice must agree too, as a fall
      // right after a recovery is news the longer since-window would bury.
      recalled =
        !held.falls &&
        recoveryEvidence(sinceS, sinceF, held.before, held) >= recoveredAt &&
        shiftStatistic(sinceS, sinceF, held.before.s, held.before.f) <= shiftThreshold &&
        shiftStatistic(ds[0]!, df[0]!, held.before.s, held.before.f) <= shiftThreshold;
      if (recalled && sinceS + sinceF >= backAfter) backNow = true;
      if (recalled) {
        const weights = this.weights[this.halfLives.chosen(key)]!;
        s = 0;
        f = 0;
        for (let k = 0; k < after; k++) {
          s += weights[k]! * ds[k]!;
          f += weights[k]! * df[k]!;
        }
        const scale = Math.min(1, recalledStrength / Math.max(1, held.before.s + held.before.f));
        s += held.before.s * scale;
        f += held.before.f * scale;
      } else couldBe = rateOf(held.before.s, held.before.f);
    }
    if (blended.broke && !recalled) {
      if (held && couldBe !== undefined) {
        // An outage is remembered until the series shows it is back. The newest slice agreeing with it: still
        // down, seen now. A deeper fall replaces its evidence, keeping the rate from before. Anything else is
        // the outage aging into older windows, or a recovery not yet shown: the outage stays as it was.
        const stillDown = ds[0]! + df[0]! > 0 && shiftStatistic(ds[0]!, df[0]!, held.s, held.f) <= shiftThreshold;
        // Only a fall to a failed channel's rate (below one half) counts as a flap: drifts move by points.
        const flapped = held.back && rateOf(held.s, held.f) < flapBelow ? 1 : 0;
        if (stillDown) next.set(key, { ...held, at: now, back: false, falls: (held.falls ?? 0) + flapped });
        else if (rateOf(blended.rawS, blended.rawF) < rateOf(held.s, held.f)) next.set(key, { at: now, s: blended.s, f: blended.f, before: held.before });
        else next.set(key, held);
      } else next.set(key, { at: now, s: blended.s, f: blended.f, before: { s: blended.restS, f: blended.restF } });
    } else if (held) next.set(key, backNow && !held.back ? { ...held, back: true } : held);
    const brk = counts(own.rates[w.breaker]);
    const xBreaker = counts(excused?.rates[w.breaker]).failure;
    const stalePastBreak = channelBroken && !held && !blended.broke && recentTotal === 0;
    return {
      score: stalePastBreak ? none : { success: s, failure: f, recentTotal, ...(couldBe === undefined ? {} : { couldBe }) },
      breaker: { success: brk.success, failure: Math.max(0, brk.failure - xBreaker), callsPerSec: (success[this.trafficIndex]! + failure[this.trafficIndex]!) / this.trafficSec },
    };
  }
}
