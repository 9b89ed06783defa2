// The share-of-traffic history the alerts and the dashboard read, kept from the router's real decision counts.
import { describe, expect, it } from 'vitest';
import { bucketMs, TrafficShares } from '../../src/alerts/trafficShares.js';
import { createRoutingLens, routingText } from '../../src/alerts/routingLens.js';
import { DecisionCounts } from '../../src/routing/decisionCounts.js';

const t0 = Date.UTC(2026, 0, 1, 12);

/** `n` decisions a second for `seconds`, split by `split`, sampled each second as the snapshot would. */
function route(counts: DecisionCounts, shares: TrafficShares, from: number, seconds: number, split: Record<string, number>): number {
  let at = from;
  for (let s = 0; s < seconds; s++) {
    for (const [channel, n] of Object.entries(split)) for (let i = 0; i < n; i++) counts.note(channel, 'best');
    at += 1_000;
    shares.sample(at);
  }
  return at;
}

describe('traffic shares', () => {
  it('measures each channel share over a span, notes leader changes, and says when the router drained a channel', () => {
    const counts = new DecisionCounts();
    const shares = new TrafficShares(counts);
    let at = route(counts, shares, t0, 600, { a: 9, b: 1 });
    expect(shares.share('a', t0, at).share).toBeCloseTo(0.9, 5);
    const moved = at;
    at = route(counts, shares, at, 60, { a: 0, b: 10 });
    expect(shares.share('a', at - 10_000, at).share).toBe(0);
    expect(shares.share('b', moved, at).decisions).toBe(600);
    expect(shares.leaderChanges().map((c) => [c.from, c.to])).toEqual([[null, 'a'], ['a', 'b']]);
    expect(shares.leaderChanges()[1]!.at - moved).toBeLessThanOrEqual(bucketMs);
    expect(shares.history(at - 60_000).slice(0, -1).map((b) => b.total)).toEqual(Array(12).fill(10 * bucketMs / 1000));

    const lens = createRoutingLens(shares, () => undefined);
    const context = lens.contextOf('a', null, at)!;
    expect(context).toMatchObject({ shareNow: 0, drained: true, breaker: null, override: false });
    expect(context.shareBefore).toBeCloseTo(0.9, 5);
    expect(routingText(context)).toBe('routed away: share 0.0 % (was 90.0 %)');
    expect(lens.contextOf('b', null, at)!.drained).toBe(false);
    expect(lens.contextOf('never-routed', null, at)).toBeUndefined();
  });

  it('counts an open breaker or a forced one as drained, and keeps an hour at most', () => {
    const counts = new DecisionCounts();
    const shares = new TrafficShares(counts);
    const at = route(counts, shares, t0, 2 * 3600, { a: 1, b: 1 });
    expect(shares.history().length).toBe(3600_000 / bucketMs);
    const open = createRoutingLens(shares, (c) => (c === 'a' ? { state: 'open', mode: 'auto', since: at - 5_000 } : { state: 'closed', mode: 'force-closed', since: t0 }));
    expect(open.contextOf('a', null, at)!.drained).toBe(true);
    expect(open.contextOf('b', null, at)).toMatchObject({ drained: false, override: true });
    expect(routingText(open.contextOf('b', null, at)!)).toContain('breaker closed since 12:00:00Z (force-closed)');
  });
});
