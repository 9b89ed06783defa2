// Decisions explain themselves (real stats engine and health snapshot, memory store, virtual time): a cold
// start, the best channel passed over for its open breaker or for an operator's override, and bounded labels.
import { afterEach, describe, expect, it } from 'vitest';
import { DecisionCounts } from '../../src/routing/decisionCounts.js';
import { createStack, outcomes, type Stack } from './stack.js';

const stacks: Stack[] = [];
afterEach(async () => {
  while (stacks.length) await stacks.pop()!.close();
});

function stack(): Stack {
  const s = createStack({ scoring: 'mean', exploration: 0, breaker: { minSamples: 20 } });
  stacks.push(s);
  return s;
}

describe('decision reasons', () => {
  it('says cold-start while no candidate has an outcome, best once one has', async () => {
    const s = stack();
    expect((await s.routing.route({ candidates: ['a', 'b'] })).reason).toBe('cold-start');
    await s.record([...outcomes('a', 30, 0, s.clock.now()), ...outcomes('b', 20, 10, s.clock.now())]);
    await s.routing.refresh();
    expect(await s.routing.route({ candidates: ['a', 'b'] })).toMatchObject({ channel: 'a', reason: 'best' });
  });

  it('names the best-scoring channel its open breaker passed over', async () => {
    const s = stack();
    await s.record([...outcomes('a', 0, 40, s.clock.now()), ...outcomes('b', 30, 10, s.clock.now())]);
    await s.routing.refresh();
    expect(s.routing.stateOf('a')).toBe('open');
    // a recovers (its outcomes come from elsewhere) while its breaker still waits: it scores best, stays out.
    s.clock.advance(5_000);
    await s.record(outcomes('a', 200, 0, s.clock.now()));
    await s.routing.refresh();
    const d = await s.routing.route({ candidates: ['a', 'b'] });
    expect(d.ranked.find((r) => r.channel === 'a')!.score).toBeGreaterThan(d.ranked.find((r) => r.channel === 'b')!.score);
    expect(d).toMatchObject({ channel: 'b', reason: 'breaker-open:a' });
  });

  it('names the channel an operator forced open', async () => {
    const s = stack();
    await s.record([...outcomes('a', 38, 2, s.clock.now()), ...outcomes('b', 30, 10, s.clock.now())]);
    await s.routing.breaker('a').setMode('force-open');
    await s.routing.refresh();
    expect(await s.routing.route({ candidates: ['a', 'b'] })).toMatchObject({ channel: 'b', reason: 'override:a' });
    expect([...s.routing.decisionsByChannel.entries()]).toContainEqual(['b', 'override:a', 1]);
  });

  it('counts reasons naming a channel past the limit under one label', () => {
    const counts = new DecisionCounts();
    for (let i = 0; i < 1_001; i++) counts.note('b', `breaker-open:ch${i}`);
    const reasons = [...counts.entries()].map(([, reason]) => reason);
    expect(reasons).toHaveLength(1_001);
    expect(reasons).toContain('breaker-open:_other');
    expect(reasons).not.toContain('breaker-open:ch1000');
  });
});
