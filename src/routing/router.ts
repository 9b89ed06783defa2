// One routing decision, in process and synchronous: scores every candidate from the cached evidence and breaker
// views, ranks them (closed first, then half-open, then open; by score, priority, then a random draw), and
// spends at most the exploration share on a candidate short of recent samples. No store call happens here;
// a half-open probe's lease is the caller's one asynchronous step (docs/routing.md).
import { dimsOfSeriesId, SeriesPlan } from '../stats/series.js';
import type { RoutingEvidence } from './evidence.js';
import { expectedValue, posteriorMean, posteriorOf, scoreProbability, type Evidence } from './scoring.js';
import { defaultChannelRouting, type RoutingSettings } from './settings.js';
import type { BreakerMode, BreakerState, RankedChannel, RouteDecision, RouteRequest } from './types.js';
import { reasonOf, type ReasonContext } from './decisionCounts.js';
import { probeBudget } from './breakerMachine.js';

export interface BreakerLookup {
  /** The state this process knows for a channel's breaker in `scope` ('' for the channel's own). */
  stateOf(channel: string, scope: string): BreakerState;
  /** The breaker's mode: a forced one is an operator's override. */
  modeOf(channel: string, scope: string): BreakerMode;
}

export interface SeriesNotes {
  note(channel: string, id: string, dims: () => Record<string, string>): void;
}

interface Scored extends RankedChannel {
  priority: number;
  weight: number;
  tie: number;
  recentTotal: number;
  /** Some series of the channel holds an outcome. */
  evidenced: boolean;
  /** Forced open by an operator in one of the payment's scopes. */
  forcedOpen: boolean;
  /** Its evidence holds a break it has not shown it is back from: the rate it had before. */
  couldBe: number | undefined;
}

/** What `decide` answers: the decision, and the half-open candidate it would probe if a lease is granted. */
export interface Draft {
  decision: RouteDecision;
  probe?: { channel: string; scopes: string[] };
}

const stateOrder: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };
const worse = (a: BreakerState, b: BreakerState): BreakerState => (stateOrder[a] >= stateOrder[b] ? a : b);

function byRank(a: Scored, b: Scored): number {
  return stateOrder[a.state] - stateOrder[b.state] || b.score - a.score || b.priority - a.priority || a.tie - b.tie;
}

/**
 * A channel looked at while below its old rate: its last look (or when it was first seen broken), the wait its
 * candidacies then set for the next, and its outcomes' successes in a row since its last failure.
 */
interface Looking {
  lookedAt: number;
  waitMs: number;
  streak: number;
}

/**
 * Looks come up to this many times as often as `probeBudget` allows, the wait halved for each success in the
 * channel's streak. A recovered channel reaches it after two successes — at 600 payments a minute a look every
 * 5 s, with exploration ~18 outcomes a minute: what its drained alert needs to end within 90 s of the recovery,
 * where a look every 20 s left it to luck. A failing one pays little: at 30 % its looks cost ~1.2 times the
 * budget (docs/decisions/170-looks-grow-while-they-succeed.md).
 */
export const lookGrowth = 4;
/**
 * A failure takes back this many successes: Wald's weights for "back at 97 %" against "failing at 50 %" (a
 * success +0.66, a failure −2.81). So a 3 % failure after a recovery's first successes slows the looks only
 * for a moment, while a channel at 60 % or below drifts back to the budget's pace. At most `maxStreak` are
 * kept, so two failures always bring it back.
 */
const failureWeight = 4;
const maxStreak = 8;

/** Channels whose candidacies are counted: bounded like the routed channels. */
const maxCountedChannels = 1000;
/** Each settle keeps this share of the previous rate estimate. */
const rateMemory = 0.8;

function finestWithOutcomes(levels: ReadonlyArray<Evidence | undefined>): Evidence | undefined {
  for (let i = levels.length - 1; i >= 0; i--) {
    const l = levels[i];
    if (l && l.success + l.failure > 0) return l;
  }
  return undefined;
}

export class Router {
  private readonly plan: SeriesPlan;
  private readonly breakerPlan: SeriesPlan;
  /** Decisions this instance made with the channel among the candidates, since the last settle. */
  private readonly candidacies = new Map<string, number>();
  /** Candidacies a second, smoothed over settles. */
  private readonly candidacyRate = new Map<string, number>();
  private readonly looking = new Map<string, Looking>();
  private settledAt: number | undefined;

  constructor(
    private readonly settings: RoutingSettings,
    dimensionSets: string[][],
    private readonly breakers: BreakerLookup,
    private readonly notes: SeriesNotes,
    /** Samples a series' recent window needs before the candidate no longer counts as short of samples. */
    private readonly minSamples: number,
  ) {
    this.plan = new SeriesPlan(dimensionSets);
    this.breakerPlan = new SeriesPlan(settings.breaker.dims);
  }

  /** Series of the payment's dims, coarsest first; breaker scopes besides the channel's own. */
  private levelsOf(dims: Record<string, string> | undefined): { series: string[]; scopes: string[] } {
    if (!dims) return { series: [''], scopes: [''] };
    const series = this.plan.seriesOf(dims).sort((a, b) => (a.match(/=/g)?.length ?? 0) - (b.match(/=/g)?.length ?? 0));
    return { series, scopes: this.breakerPlan.seriesOf(dims) };
  }

  private scoreOne(channel: string, req: RouteRequest, series: string[], scopes: string[], ev: RoutingEvidence | undefined): Scored {
    const { random, scoring, priorStrength } = this.settings;
    const known = ev?.channels.get(channel)?.series;
    const levels: Array<Evidence | undefined> = [];
    for (const id of series) {
      levels.push(known?.get(id)?.score);
      if (id !== '') this.notes.note(channel, id, () => dimsOfSeriesId(id));
    }
    const post = posteriorOf(levels, ev?.pooledMean ?? 0.5, priorStrength);
    const probability = scoreProbability(scoring, post, random);
    const cfg = this.settings.channels.get(channel) ?? defaultChannelRouting;
    let state: BreakerState = 'closed';
    let forcedOpen = false;
    for (const scope of scopes) {
      state = worse(state, this.breakers.stateOf(channel, scope));
      forcedOpen ||= this.breakers.modeOf(channel, scope) === 'force-open';
    }
    return {
      channel,
      score: req.amount === undefined ? probability : expectedValue(probability, req.amount, cfg.fixedFee, cfg.percentFee),
      rate: posteriorMean(post),
      state,
      priority: cfg.priority,
      weight: cfg.weight,
      tie: random(),
      recentTotal: levels.at(-1)?.recentTotal ?? 0,
      evidenced: levels.some((l) => l !== undefined && l.success + l.failure > 0),
      forcedOpen,
      couldBe: finestWithOutcomes(levels)?.couldBe,
    };
  }

  /** Turns the candidacies counted since the last call into rates a second; called once a snapshot. */
  settle(now: number): void {
    const elapsedSec = this.settledAt === undefined ? 0 : (now - this.settledAt) / 1000;
    this.settledAt = now;
    if (elapsedSec <= 0) return;
    for (const [channel, n] of this.candidacies) {
      const before = this.candidacyRate.get(channel);
      this.candidacyRate.set(channel, before === undefined ? n / elapsedSec : rateMemory * before + (1 - rateMemory) * (n / elapsedSec));
    }
    for (const channel of this.candidacyRate.keys()) if (!this.candidacies.has(channel)) this.candidacyRate.delete(channel);
    this.candidacies.clear();
    for (const channel of this.looking.keys()) if (!this.candidacyRate.has(channel)) this.looking.delete(channel);
  }

  private countCandidacies(candidates: string[]): void {
    for (const c of candidates) {
      const n = this.candidacies.get(c);
      if (n !== undefined) this.candidacies.set(c, n + 1);
      else if (this.candidacies.size < maxCountedChannels) this.candidacies.set(c, 1);
    }
  }

  /**
   * A closed candidate below the leader whose evidence holds a break, and whose rate before it would beat the
   * leader: one look every time its candidacies here make `probeBudget` of them (the breaker's probe rounds'
   * share), up to `lookGrowth` times as often while its outcomes succeed in a row — so a channel that came back
   * is seen within seconds and a dead one costs about half a percent.
   */
  private lookAt(closed: Scored[], now: number): Scored | undefined {
    const leader = closed[0];
    if (!leader) return undefined;
    // A channel that leads or has no break to come back from starts afresh at its next break.
    this.looking.delete(leader.channel);
    for (const c of closed) {
      if (c === leader) continue;
      if (c.couldBe === undefined || c.couldBe <= leader.rate) {
        this.looking.delete(c.channel);
        continue;
      }
      const rate = this.candidacyRate.get(c.channel);
      if (!rate) continue;
      const looking = this.looking.get(c.channel);
      const waitMs = 1000 / (probeBudget * rate);
      // The first look waits an interval too: right after the break its failures are news enough.
      if (looking === undefined) {
        this.looking.set(c.channel, { lookedAt: now, waitMs, streak: 0 });
        continue;
      }
      if (now < looking.lookedAt + looking.waitMs / Math.min(lookGrowth, 2 ** looking.streak)) continue;
      looking.lookedAt = now;
      looking.waitMs = waitMs;
      return c;
    }
    return undefined;
  }

  /** An outcome of a channel being looked at, from any decision: successes in a row make its looks come faster. */
  noteOutcome(channel: string, success: boolean): void {
    const looking = this.looking.get(channel);
    if (looking) looking.streak = success ? Math.min(maxStreak, looking.streak + 1) : Math.max(0, looking.streak - failureWeight);
  }

  decide(req: RouteRequest, ev: RoutingEvidence | undefined, stale: boolean, now: number): Draft {
    const { series, scopes } = this.levelsOf(req.dims);
    this.countCandidacies(req.candidates);
    const scored = req.candidates.map((c) => this.scoreOne(c, req, series, scopes, ev));
    scored.sort(byRank);
    const { random, experimentShare, exploration } = this.settings;
    let arm: RouteDecision['arm'] = 'router';
    let explored = false;
    const closed = scored.filter((s) => s.state === 'closed');
    let look: Scored | undefined;
    if (experimentShare > 0 && random() < experimentShare) {
      arm = 'static';
      this.promote(scored, this.byWeight(closed));
    } else if ((look = this.lookAt(closed, now))) {
      explored = true;
      this.promote(scored, look);
    } else if (exploration > 0 && random() < exploration) {
      const short = closed.filter((s) => s.recentTotal < this.minSamples && s !== closed[0]);
      if (short.length > 0) {
        explored = true;
        this.promote(scored, short[Math.floor(random() * short.length)]);
      }
    }
    const halfOpen = scored.find((s) => s.state === 'half-open');
    const failOpen = closed.length === 0;
    const decision: RouteDecision = {
      channel: scored[0]!.channel,
      ranked: scored.map(({ channel, score, rate, state }) => ({ channel, score, rate, state })),
      explored,
      failOpen,
      stale,
      probe: false,
      arm,
      reason: reasonOf({ arm, probe: false, failOpen, explored }, this.contextOf(scored)),
    };
    return halfOpen ? { decision, probe: { channel: halfOpen.channel, scopes } } : { decision };
  }

  /** The best-scoring candidate when its breaker kept it from first place, and whether any candidate has outcomes. */
  private contextOf(ranked: Scored[]): ReasonContext {
    const top = ranked.reduce((a, b) => (b.score > a.score ? b : a));
    const passedOver = top !== ranked[0] && top.state === 'open' ? { channel: top.channel, forced: top.forcedOpen } : undefined;
    return { passedOver, coldStart: !ranked.some((s) => s.evidenced) };
  }

  /** Weighted draw among the closed candidates (the static arm); undefined when none has weight. */
  private byWeight(closed: Scored[]): Scored | undefined {
    const total = closed.reduce((sum, s) => sum + s.weight, 0);
    if (total <= 0) return undefined;
    let r = this.settings.random() * total;
    for (const s of closed) {
      r -= s.weight;
      if (r < 0) return s;
    }
    return closed.at(-1);
  }

  private promote(scored: Scored[], chosen: Scored | undefined): void {
    if (!chosen || scored[0] === chosen) return;
    scored.splice(scored.indexOf(chosen), 1);
    scored.unshift(chosen);
  }
}

/** The draft turned into a probe decision: the half-open channel first, flagged as probe and exploration. */
export function asProbe(draft: Draft): RouteDecision {
  const d = draft.decision;
  const channel = draft.probe!.channel;
  const first = d.ranked.find((r) => r.channel === channel)!;
  return { ...d, channel, ranked: [first, ...d.ranked.filter((r) => r !== first)], explored: true, probe: true, failOpen: false, reason: 'probe' };
}
