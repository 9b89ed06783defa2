// What the router did for a channel, as the alerts read it: its share of the decisions now and before, its breaker
// and any manual override. A channel the router drained completes few payments because of the router, not because
// it went quiet or got well: an alert must neither call it `silent` nor resolve on its emptied window.
import { TrafficShares, type DecisionCountsSource } from './trafficShares.js';
import { percent } from './percent.js';

export interface BreakerFacts {
  state: 'closed' | 'open' | 'half-open';
  mode: 'auto' | 'force-open' | 'force-closed';
  since: number;
}

export interface RoutingContext {
  /** Share of the router's decisions over the last 10 s; null when it made none. */
  shareNow: number | null;
  /** Share over the 5 minutes that ended a minute before the alert fired (or before now). */
  shareBefore: number | null;
  breaker: BreakerFacts | null;
  /** A manual breaker mode (`force-open`, `force-closed`) is set. */
  override: boolean;
  /** The router keeps traffic away from the channel: its breaker is not closed, or its share fell below half. */
  drained: boolean;
}

export interface RoutingLens {
  /**
   * Undefined when the router neither routes for the channel nor holds a breaker for it. "Before" is the
   * `beforeSpanMs` (5 minutes unless given) that ended a minute before `sinceMs` (the alert fired) or before now.
   */
  contextOf(channel: string, sinceMs: number | null, nowMs: number, beforeSpanMs?: number): RoutingContext | undefined;
  /** Decisions the router made for the channel in [fromMs, toMs); undefined when it does not route for it. */
  decisionsFor(channel: string, fromMs: number, toMs: number): number | undefined;
}

/** Short: the router moves a failing channel's traffic within seconds, and the alert should know it at once. */
const nowSpanMs = 10_000;
const defaultBeforeSpanMs = 5 * 60_000;
const beforeGapMs = 60_000;
/** Decisions the recent span needs before a fallen share is believed (a quiet gateway routes little). */
const minRecentDecisions = 20;
/** A share this small before is not a share the router could have taken away. */
const minShareBefore = 0.05;

export function createRoutingLens(shares: TrafficShares, breakerOf: (channel: string) => BreakerFacts | undefined): RoutingLens {
  return {
    contextOf(channel, sinceMs, nowMs, beforeSpanMs = defaultBeforeSpanMs) {
      const breaker = breakerOf(channel) ?? null;
      if (!shares.routes(channel) && !breaker) return undefined;
      const now = shares.share(channel, nowMs - nowSpanMs, nowMs + 1);
      const beforeEnd = Math.min(sinceMs ?? nowMs, nowMs) - beforeGapMs;
      // A process younger than the gap has no share that far back: it compares with the span just before now.
      const gapped = shares.share(channel, beforeEnd - beforeSpanMs, beforeEnd);
      const before = gapped.share !== null ? gapped : shares.share(channel, nowMs - nowSpanMs - beforeSpanMs, nowMs - nowSpanMs);
      const fell = before.share !== null && before.share >= minShareBefore && now.decisions >= minRecentDecisions && (now.share ?? 0) < before.share / 2;
      const held = breaker !== null && (breaker.state !== 'closed' || breaker.mode === 'force-open');
      return {
        shareNow: now.share,
        shareBefore: before.share,
        breaker,
        override: breaker !== null && breaker.mode !== 'auto',
        drained: fell || held,
      };
    },
    decisionsFor: (channel, fromMs, toMs) => (shares.routes(channel) ? shares.decisionsOf(channel, fromMs, toMs) : undefined),
  };
}

/** `routed away: share 2.0 % (was 48.0 %), breaker open since 10:02:05Z (force-open)`. */
export function routingText(r: RoutingContext): string {
  const parts: string[] = [];
  if (r.shareNow !== null || r.shareBefore !== null) parts.push(`share ${percent(r.shareNow)} (was ${percent(r.shareBefore)})`);
  if (r.breaker) {
    const since = new Date(r.breaker.since).toISOString().slice(11, 19);
    parts.push(`breaker ${r.breaker.state} since ${since}Z${r.override ? ` (${r.breaker.mode})` : ''}`);
  }
  return `${r.drained ? 'routed away' : 'still routed'}: ${parts.join(', ')}`;
}

/** What the alerts need of the router: its decision counts and the breaker this instance knows for a channel. */
export interface RoutingSource {
  decisionsByChannel: DecisionCountsSource;
  breakerView(channel: string): BreakerFacts & { version: number };
}

/**
 * Follows the router from each health snapshot on: the share history sampled first, so an evaluation of the same
 * snapshot reads it. A breaker never written (version 0) is no news and is left out.
 */
export function followRouting(source: RoutingSource, onSnapshot: (listener: (s: { asOf: number }) => void) => unknown): { shares: TrafficShares; lens: RoutingLens } {
  const shares = new TrafficShares(source.decisionsByChannel);
  onSnapshot((s) => shares.sample(s.asOf));
  const lens = createRoutingLens(shares, (channel) => {
    const { state, mode, since, version } = source.breakerView(channel);
    return version > 0 ? { state, mode, since } : undefined;
  });
  return { shares, lens };
}
