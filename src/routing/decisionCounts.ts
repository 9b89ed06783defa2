// Decisions counted by the channel answered and why, for the traffic share a dashboard or an alert reads.
// Bounded like every channel-keyed map a client can grow: channels past the limit count under `_other`.
import type { DecisionReason, RouteDecision } from './types.js';

const maxCountedChannels = 1_000;

/** What besides the flags explains a decision the router made on its own. */
export interface ReasonContext {
  /** The best-scoring candidate, passed over for its breaker; `forced` when an operator forced it open. */
  passedOver?: { channel: string; forced: boolean };
  /** No candidate had a single outcome: the choice was a tie-break. */
  coldStart?: boolean;
}

/** Why a decision chose its channel, most specific first. */
export function reasonOf(decision: Pick<RouteDecision, 'probe' | 'failOpen' | 'explored' | 'arm'>, context: ReasonContext = {}): DecisionReason {
  if (decision.arm === 'static') return 'static';
  if (decision.probe) return 'probe';
  if (decision.failOpen) return 'fail-open';
  if (decision.explored) return 'explored';
  if (context.passedOver) return `${context.passedOver.forced ? 'override' : 'breaker-open'}:${context.passedOver.channel}`;
  if (context.coldStart) return 'cold-start';
  return 'best';
}

/** A reason naming a channel past the counted channels is counted under `<kind>:_other`, so labels stay bounded. */
function boundedReason(reason: DecisionReason, named: Set<string>): DecisionReason {
  const colon = reason.indexOf(':');
  if (colon < 0 || named.has(reason)) return reason;
  if (named.size < maxCountedChannels) {
    named.add(reason);
    return reason;
  }
  return `${reason.slice(0, colon)}:_other` as DecisionReason;
}

export class DecisionCounts {
  private readonly byChannel = new Map<string, Map<DecisionReason, number>>();
  private readonly namedReasons = new Set<string>();

  note(channel: string, decided: DecisionReason): void {
    const reason = boundedReason(decided, this.namedReasons);
    const key = this.byChannel.has(channel) || this.byChannel.size < maxCountedChannels ? channel : '_other';
    let reasons = this.byChannel.get(key);
    if (!reasons) this.byChannel.set(key, (reasons = new Map()));
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }

  /** Monotonic totals: [channel, reason, count]. */
  *entries(): Iterable<[string, DecisionReason, number]> {
    for (const [channel, reasons] of this.byChannel) for (const [reason, n] of reasons) yield [channel, reason, n];
  }
}
