// Public shapes of routing: what `route()` takes and answers, the breaker's state, and the options of
// `createPulse({ routing })` (docs/routing.md).

export type BreakerState = 'closed' | 'open' | 'half-open';
/**
 * Why a decision chose its channel: the best score, exploration, a half-open probe, every candidate open, the
 * static arm, no candidate with any outcome yet (`cold-start`), or the best-scoring candidate passed over because
 * its breaker is open (`breaker-open:<that channel>`) or forced open by an operator (`override:<that channel>`).
 */
export type DecisionReason = 'best' | 'explored' | 'probe' | 'fail-open' | 'static' | 'cold-start' | `breaker-open:${string}` | `override:${string}`;
export type BreakerMode = 'auto' | 'force-open' | 'force-closed';
export const breakerModes: readonly BreakerMode[] = ['auto', 'force-open', 'force-closed'];

/**
 * How a channel's posterior becomes a ranking value: its mean (the default: in the simulator it kept 92–93 %
 * of the oracle's uplift against Thompson sampling's 80 %, see docs/routing.md), a posterior draw, or a 90 %
 * upper bound.
 */
export type ScoringPolicy = 'thompson' | 'ucb' | 'mean';

export interface RouteRequest {
  candidates: string[];
  dims?: Record<string, string>;
  /** Payment amount: with it, channels rank by expected value (success probability × (amount − cost)). */
  amount?: number;
  /** Ties the decision to the outcome recorded later (probe leases, experiment arms). */
  requestId?: string;
}

export interface RankedChannel {
  channel: string;
  /** The value the ranking sorts by: a sampled or bounded success probability, or an expected value with `amount`. */
  score: number;
  /** Posterior mean success probability for the payment's dims. */
  rate: number;
  state: BreakerState;
}

export interface RouteDecision {
  channel: string;
  /** Failover order for retries: the chosen channel first, open breakers last. */
  ranked: RankedChannel[];
  /** The choice was an exploration (a candidate short of samples) or a half-open probe. */
  explored: boolean;
  /** Every candidate's breaker is open: `channel` is the least bad of them. */
  failOpen: boolean;
  /** The store could not be read at the last refresh: the answer comes from the last known health. */
  stale: boolean;
  /** This payment is one of the half-open channel's fleet-wide probes. */
  probe: boolean;
  /** Experiment arm of the decision: 'router', or 'static' when routed by the static weights. */
  arm: 'router' | 'static';
  /** Why `channel` was chosen (see DecisionReason). */
  reason: DecisionReason;
}

export interface ChannelRouting {
  /** Share of traffic in the static-weights arm (and the static baseline). Default 1. */
  weight?: number;
  /** Breaks exact score ties before the random tie-break; higher wins. Default 0. */
  priority?: number;
  /** Fixed cost per payment, in the amount's currency. Default 0. */
  fixedFee?: number;
  /** Cost as a share of the amount (0.029 = 2.9 %). Default 0. */
  percentFee?: number;
}

export interface BreakerOptions {
  /** Failure rate that opens the breaker. Default 0.5. */
  failureThreshold?: number;
  /** Calls its window needs before it may open. Default 100. */
  minSamples?: number;
  /** Window the failure rate is taken over. Default '30s'. */
  window?: string;
  /** The shortest wait before a round of probes; the wait is sized by the channel's traffic. Default 2 s. */
  openMs?: number;
  /** The longest wait before a round of probes (a quiet channel's). Default 40 s (at least openMs). */
  openMaxMs?: number;
  /** Probe payments in flight fleet-wide while half-open, at most: one at first, doubling while they succeed. Default 5. */
  probes?: number;
  /** A probe whose outcome never arrives frees its lease after this long. Default 30 s. */
  probeTtlMs?: number;
  /** Dimension sets with a breaker of their own besides the channel's, e.g. [['method']]. */
  dims?: string[][];
}

export interface RoutingOptions {
  scoring?: ScoringPolicy;
  /** Share of decisions spent exploring closed candidates short of recent samples. Default 0.01, at most 0.05. */
  exploration?: number;
  channels?: Record<string, ChannelRouting>;
  /**
   * Windows a score reads, shortest first. Each slice (what a window holds beyond the shorter one) counts by its
   * age under the half-life the series' own data chose, and older slices are dropped past a detected shift.
   * Default ['10s', '1m', '5m', '15m', '1h'].
   */
  scoreWindows?: string[];
  /** Pseudo-samples of the coarser series' rate a finer series starts from. Default 20. */
  priorStrength?: number;
  breaker?: BreakerOptions;
  /** Failure codes that are not the channel's fault: they count for neither score nor breaker. */
  excusedCodes?: string[];
  experiment?: { share?: number };
  /** Random source in [0, 1); seeded in the simulator. Default Math.random. */
  random?: () => number;
}
