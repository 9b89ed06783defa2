// Decisions counted by the channel answered and why, for the traffic share a dashboard or an alert reads.
// Bounded like every channel-keyed map a client can grow: channels past the limit count under `_other`.
import type { DecisionReason, RouteDecision } from './types.js';

const maxCountedChannels = 1_000;

/** Why a decision chose its channel, most specific first. */
export function reasonOf(decision: Pick<RouteDecision, 'probe' | 'failOpen' | 'explored' | 'arm'>): DecisionReason {
  if (decision.arm === 'static') return 'static';
  if (decision.probe) return 'probe';
  if (decision.failOpen) return 'fail-open';
  if (decision.explored) return 'explored';
  return 'best';
}

export class DecisionCounts {
  private readonly byChannel = new Map<string, Map<DecisionReason, number>>();

  note(channel: string, reason: DecisionReason): void {
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
