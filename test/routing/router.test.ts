// The router on a real stats engine and health snapshot (memory store, virtual time): dims fallback, bounded
// exploration, random tie-breaks, cost ranking, excused codes, probes, fail-open, the experiment, bad input.
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import type { RoutingOptions } from '../../src/routing/types.js';
import { createStack, outcomes, type Stack } from './stack.js';

const stacks: Stack[] = [];
afterEach(async () => {
  while (stacks.length) await stacks.pop()!.close();
});

function stack(options: RoutingOptions = {}): Stack {
  const s = createStack({ scoring: 'mean', exploration: 0, ...options });
  stacks.push(s);
  return s;
}

const card = { method: 'card' };

describe('router scores', () => {
  it('falls back from a dims series without outcomes to its channel, and uses the series once it has them', async () => {
    const s = stack();
    const now = s.clock.now();
    await s.record([
      ...outcomes('a', 200, 0, now, { dims: { method: 'wallet', currency: 'EUR' } }),
      ...outcomes('b', 160, 40, now, { dims: { method: 'card', currency: 'EUR' } }),
    ]);
    // A first decision names the series routing needs; the next snapshot reads them.
    s.routing.decide({ candidates: ['a', 'b'], dims: { ...card, currency: 'EUR' } });
    await s.routing.refresh();
    let d = s.routing.decide({ candidates: ['a', 'b'], dims: { ...card, currency: 'EUR' } }).decision;
    expect(d.channel).toBe('a');
    expect(d.ranked[0]!.rate).toBeGreaterThan(0.95);
    expect(d.ranked[1]!.rate).toBeCloseTo(0.8, 1);
    await s.record(outcomes('a', 0, 60, now, { dims: { method: 'card', currency: 'EUR' } }));
    s.routing.decide({ candidates: ['a', 'b'], dims: { method: 'wallet' } });
    await s.routing.refresh();
    d = s.routing.decide({ candidates: ['a', 'b'], dims: { ...card, currency: 'EUR' } }).decision;
    expect(d.channel).toBe('b');
    // The wallet payments of `a` still score on their own series.
    expect(s.routing.decide({ candidates: ['a', 'b'], dims: { method: 'wallet' } }).decision.channel).toBe('a');
  });

  it('breaks exact ties at random, after priority', async () => {
    const s = stack();
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const c = s.routing.decide({ candidates: ['a', 'b', 'c', 'd'] }).decision.channel;
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    for (const c of ['a', 'b', 'c', 'd']) expect(counts.get(c)).toBeGreaterThan(850);
    const p = stack({ channels: { c: { priority: 1 } } });
    for (let i = 0; i < 200; i++) expect(p.routing.decide({ candidates: ['a', 'b', 'c', 'd'] }).decision.channel).toBe('c');
  });

  it('ranks by expected value with an amount, so the cheaper of two equal channels wins', async () => {
    const s = stack({ channels: { dear: { fixedFee: 0.3, percentFee: 0.029 }, cheap: { fixedFee: 0.1, percentFee: 0.015 }, best: { fixedFee: 0.5, percentFee: 0.03 } } });
    const now = s.clock.now();
    await s.record([...outcomes('dear', 180, 20, now), ...outcomes('cheap', 180, 20, now), ...outcomes('best', 198, 2, now)]);
    await s.routing.refresh();
    for (let i = 0; i < 100; i++) expect(s.routing.decide({ candidates: ['dear', 'cheap'], amount: 40 }).decision.channel).toBe('cheap');
    const d = s.routing.decide({ candidates: ['dear', 'cheap'], amount: 40 }).decision;
    expect(d.ranked[0]!.score).toBeCloseTo(d.ranked[0]!.rate * (40 - 0.1 - 0.6), 6);
    // Nine points of success rate are worth more than 1.3 % of 40.
    expect(s.routing.decide({ candidates: ['dear', 'cheap', 'best'], amount: 40 }).decision.channel).toBe('best');
  });

  it('spends at most the exploration share, only on closed candidates short of recent samples', async () => {
    const s = stack({ exploration: 0.05 });
    const now = s.clock.now();
    await s.record([...outcomes('a', 950, 50, now), ...outcomes('b', 4, 1, now), ...outcomes('c', 2, 1, now)]);
    await s.routing.refresh();
    let explored = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const d = s.routing.decide({ candidates: ['a', 'b', 'c'] }).decision;
      if (d.explored) {
        explored++;
        expect(['b', 'c']).toContain(d.channel);
      } else expect(d.channel).toBe('a');
    }
    // Binomial(20000, 0.05): mean 1000, sd ≈ 31.
    expect(explored).toBeGreaterThan(850);
    expect(explored).toBeLessThan(1150);
    const none = stack({ exploration: 0 });
    await none.record([...outcomes('a', 950, 50, now), ...outcomes('b', 4, 1, now)]);
    await none.routing.refresh();
    for (let i = 0; i < 2000; i++) expect(none.routing.decide({ candidates: ['a', 'b'] }).decision.explored).toBe(false);
  });
});

describe('recovery', () => {
  /** Ten minutes of history, a at `aBefore` and b at 90 %; then a fails twelve in a row. */
  const brokenAfter = async (aBefore: number) => {
    const s = stack({ exploration: 0 });
    const start = s.clock.now();
    for (let m = 1; m <= 10; m++) {
      await s.record([...outcomes('a', Math.round(aBefore * 100), 100 - Math.round(aBefore * 100), start - m * 60_000), ...outcomes('b', 90, 10, start - m * 60_000)]);
    }
    await s.record(outcomes('a', 0, 12, start));
    await s.routing.refresh();
    return s;
  };

  it('looks at a channel below the leader that was better before its break, at 0.5 % of its candidacies', async () => {
    const looksAt = async (aBefore: number) => {
      const s = await brokenAfter(aBefore);
      let looks = 0;
      // 20 decisions a second for a minute: one look every 1 / (0.005 × 20) = 10 s once the rate is known.
      for (let second = 0; second < 60; second++) {
        for (let i = 0; i < 20; i++) {
          const d = s.routing.decide({ candidates: ['a', 'b'] }).decision;
          if (d.explored) {
            looks++;
            expect(d.channel).toBe('a');
          } else expect(d.channel).toBe('b');
        }
        s.clock.advance(1000);
        await s.record(outcomes('b', 18, 2, s.clock.now()));
        await s.routing.refresh();
      }
      return looks;
    };
    const looks = await looksAt(0.98);
    expect(looks).toBeGreaterThanOrEqual(4);
    expect(looks).toBeLessThanOrEqual(6);
    // At 85 % before, a could not beat b's 90 % even if it came back: no look is worth its cost.
    expect(await looksAt(0.85)).toBe(0);
  });

  it('looks up to four times as often while the looked-at channel succeeds, at the budget while it fails', async () => {
    const looksWhen = async (lookSucceeds: boolean) => {
      const s = await brokenAfter(0.98);
      let looks = 0;
      for (let second = 0; second < 60; second++) {
        for (let i = 0; i < 20; i++) {
          const d = s.routing.decide({ candidates: ['a', 'b'] }).decision;
          if (!d.explored) continue;
          looks++;
          // The look's outcome reaches the router as a recorded outcome does; the score's windows do not see it,
          // so a's break stands and only the looks' pace can change.
          await s.routing.noteOutcomes(outcomes('a', lookSucceeds ? 1 : 0, lookSucceeds ? 0 : 1, s.clock.now()));
        }
        s.clock.advance(1000);
        await s.record(outcomes('b', 18, 2, s.clock.now()));
        await s.routing.refresh();
      }
      return looks;
    };
    // Failing looks: one every 10 s, the budget's pace (as above). Succeeding ones: 10 s, 5 s, then every 2.5 s.
    const failing = await looksWhen(false);
    expect(failing).toBeGreaterThanOrEqual(4);
    expect(failing).toBeLessThanOrEqual(6);
    const succeeding = await looksWhen(true);
    expect(succeeding).toBeGreaterThanOrEqual(15);
    expect(succeeding).toBeLessThanOrEqual(4 * failing);
  });

  it('notices a recovered channel through exploration and moves traffic back to it', async () => {
    const { seededRandom } = await import('../../src/sim/random.js');
    const luck = seededRandom(7);
    const s = stack({ exploration: 0.01, random: seededRandom(8) });
    // a was down until a minute ago; it works again now, better than b.
    await s.record([...outcomes('a', 0, 200, s.clock.now() - 60_000), ...outcomes('b', 850, 150, s.clock.now() - 60_000)]);
    const trueRate: Record<string, number> = { a: 0.99, b: 0.85 };
    const share: number[] = [];
    for (let second = 0; second < 900; second++) {
      s.clock.advance(1000);
      await s.routing.refresh();
      let toA = 0;
      const batch = [];
      for (let i = 0; i < 20; i++) {
        const d = s.routing.decide({ candidates: ['a', 'b'] }).decision;
        if (d.channel === 'a') toA++;
        const ok = luck() < trueRate[d.channel]!;
        batch.push(...outcomes(d.channel, ok ? 1 : 0, ok ? 0 : 1, s.clock.now()));
      }
      await s.record(batch);
      share.push(toA / 20);
    }
    const lastMinute = share.slice(-60).reduce((x, y) => x + y, 0) / 60;
    // Before any new evidence a scores its failures; an explored success is then strong evidence of change.
    expect(share[0]).toBeLessThan(0.1);
    const back = share.findIndex((x) => x > 0.5);
    expect(back).toBeGreaterThan(0);
    expect(back).toBeLessThan(120);
    expect(lastMinute).toBeGreaterThan(0.9);
    const without = stack({ exploration: 0 });
    await without.record([...outcomes('a', 0, 200, without.clock.now() - 60_000), ...outcomes('b', 850, 150, without.clock.now() - 60_000)]);
    without.clock.advance(1000);
    await without.routing.refresh();
    for (let i = 0; i < 500; i++) expect(without.routing.decide({ candidates: ['a', 'b'] }).decision.channel).toBe('b');
  });
});

describe('excused codes', () => {
  it('count for neither score nor breaker but stay in the plain rate', async () => {
    const s = stack({ excusedCodes: ['insufficient_funds'], breaker: { minSamples: 50 } });
    const now = s.clock.now();
    await s.record([
      ...outcomes('a', 60, 0, now, { dims: card }),
      ...outcomes('a', 0, 60, now, { dims: card, code: 'insufficient_funds' }),
      ...outcomes('b', 60, 0, now, { dims: card }),
      ...outcomes('b', 0, 60, now, { dims: card, code: 'do_not_honor' }),
    ]);
    s.routing.decide({ candidates: ['a', 'b'], dims: card });
    await s.routing.refresh();
    expect((await s.engine.rate('a', { window: '1m' })).rate).toBeCloseTo(0.5, 6);
    const d = s.routing.decide({ candidates: ['a', 'b'], dims: card }).decision;
    expect(d.channel).toBe('a');
    expect(d.ranked.find((r) => r.channel === 'a')!.rate).toBeGreaterThan(0.95);
    expect(d.ranked.find((r) => r.channel === 'a')!.state).toBe('closed');
    expect(d.ranked.find((r) => r.channel === 'b')!.state).toBe('open');
  });
});

describe('breakers in decisions', () => {
  it('sends a half-open channel one probe, then more while they succeed, and closes it on their successes', async () => {
    const s = stack({ breaker: { minSamples: 20, probes: 3 } });
    const now = s.clock.now();
    await s.record([...outcomes('a', 0, 40, now), ...outcomes('b', 30, 10, now)]);
    await s.routing.refresh();
    expect(s.routing.stateOf('a')).toBe('open');
    // 40 calls over 5 minutes are too few to size the wait: it is the longest, openMaxMs.
    s.clock.advance(39_000);
    await s.routing.refresh();
    expect(s.routing.stateOf('a')).toBe('open');
    s.clock.advance(1_000);
    await s.routing.refresh();
    expect(s.routing.stateOf('a')).toBe('half-open');
    const rounds: number[] = [];
    for (let round = 0; round < 5 && s.routing.stateOf('a') === 'half-open'; round++) {
      const decisions = [];
      for (let i = 0; i < 10; i++) decisions.push(await s.routing.route({ candidates: ['a', 'b'], requestId: `q${round}-${i}` }));
      const probes = decisions.filter((d) => d.probe);
      expect(probes.every((d) => d.channel === 'a')).toBe(true);
      expect(decisions.filter((d) => !d.probe).every((d) => d.channel === 'b')).toBe(true);
      rounds.push(probes.length);
      s.clock.advance(1_000);
      const at = s.clock.now();
      await s.record(decisions.flatMap((d, i) => (d.probe ? [{ channel: 'a', requestId: `q${round}-${i}`, status: 'success' as const, at }] : [])));
    }
    expect(rounds).toEqual([1, 2, 3]);
    expect((await s.routing.breaker('a').state()).state).toBe('closed');
  });

  it('opens a dims breaker for the failing method only', async () => {
    const s = stack({ breaker: { minSamples: 20, dims: [['method']] } });
    const now = s.clock.now();
    await s.record([
      ...outcomes('a', 0, 30, now, { dims: card }),
      ...outcomes('a', 200, 0, now, { dims: { method: 'wallet' } }),
      ...outcomes('b', 50, 10, now, { dims: card }),
      ...outcomes('b', 50, 10, now, { dims: { method: 'wallet' } }),
    ]);
    s.routing.decide({ candidates: ['a', 'b'], dims: card });
    s.routing.decide({ candidates: ['a', 'b'], dims: { method: 'wallet' } });
    await s.routing.refresh();
    await s.routing.refresh();
    expect(s.routing.breakers.view('a', 'method=card').state).toBe('open');
    expect(s.routing.stateOf('a')).toBe('closed');
    const forCard = s.routing.decide({ candidates: ['a', 'b'], dims: card }).decision;
    expect(forCard.channel).toBe('b');
    expect(forCard.ranked.find((r) => r.channel === 'a')!.state).toBe('open');
    const forWallet = s.routing.decide({ candidates: ['a', 'b'], dims: { method: 'wallet' } }).decision;
    expect(forWallet.ranked.find((r) => r.channel === 'a')!.state).toBe('closed');
    expect(forWallet.channel).toBe('a');
  });

  it('answers with the least bad channel and failOpen when every candidate is open', async () => {
    const s = stack();
    const now = s.clock.now();
    await s.record([...outcomes('a', 10, 30, now), ...outcomes('b', 30, 10, now)]);
    await s.routing.breaker('a').setMode('force-open');
    await s.routing.breaker('b').setMode('force-open');
    await s.routing.refresh();
    const d = await s.routing.route({ candidates: ['a', 'b'] });
    expect(d).toMatchObject({ channel: 'b', failOpen: true });
    expect(d.ranked.map((r) => r.state)).toEqual(['open', 'open']);
    await s.routing.breaker('b').setMode('auto');
    await s.routing.refresh();
    expect(await s.routing.route({ candidates: ['a', 'b'] })).toMatchObject({ channel: 'b', failOpen: false });
  });
});

describe('experiment', () => {
  it('routes its share by static weights and credits each outcome to the arm of its decision', async () => {
    const s = stack({ experiment: { share: 0.3 }, channels: { a: { weight: 1 }, b: { weight: 3 } } });
    const now = s.clock.now();
    await s.record([...outcomes('a', 95, 5, now), ...outcomes('b', 70, 30, now)]);
    await s.routing.refresh();
    const arms = { router: { s: 0, f: 0 }, static: { s: 0, f: 0 } };
    const staticChoice = { a: 0, b: 0 };
    const recorded = [];
    for (let i = 0; i < 2000; i++) {
      const d = await s.routing.route({ candidates: ['a', 'b'], requestId: `x${i}` });
      if (d.arm === 'static') staticChoice[d.channel as 'a' | 'b']++;
      else expect(d.channel).toBe('a');
      const ok = i % 3 !== 0;
      arms[d.arm][ok ? 's' : 'f']++;
      recorded.push({ channel: d.channel, requestId: `x${i}`, status: ok ? ('success' as const) : ('failure' as const), at: now });
    }
    await s.record(recorded);
    const report = await s.routing.experimentReport();
    expect(report.arms.router).toMatchObject({ success: arms.router.s, failure: arms.router.f });
    expect(report.arms.static).toMatchObject({ success: arms.static.s, failure: arms.static.f });
    expect(report.arms.static.decisions).toBeGreaterThan(450);
    expect(report.arms.static.decisions).toBeLessThan(750);
    // Weights 1 : 3.
    expect(staticChoice.b / (staticChoice.a + staticChoice.b)).toBeGreaterThan(0.65);
    expect(report.pValue).not.toBeNull();
    // A second outcome for the same request is not credited twice.
    await s.record([{ channel: 'a', requestId: 'x1', status: 'success', at: now }]);
    const again = await s.routing.experimentReport();
    expect(again.arms.router.success + again.arms.static.success).toBe(arms.router.s + arms.static.s);
  });
});

describe('bad input', () => {
  it('names the field', async () => {
    const s = stack();
    const fieldOf = (req: unknown) => {
      try {
        s.routing.decide(req as never);
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        return (err as ValidationError).issues.map((i) => i.field);
      }
      return [];
    };
    expect(fieldOf({ candidates: [] })).toEqual(['candidates']);
    expect(fieldOf({ candidates: ['a', 'b', 'a'] })).toEqual(['candidates[2]']);
    expect(fieldOf({ candidates: ['a b'] })).toEqual(['candidates[0]']);
    expect(fieldOf({ candidates: ['a'], amount: -1 })).toEqual(['amount']);
    expect(fieldOf({ candidates: ['a'], dims: { method: 'a b' } })).toEqual(['dims.method']);
    expect(fieldOf({ candidates: ['a'], requestId: '' })).toEqual(['requestId']);
    await expect(s.routing.breaker('a').setMode('sideways' as never)).rejects.toThrow(ValidationError);
  });
});
