// A break outlives the window that showed it (real stats engine and health snapshot, memory store, virtual
// time): once a down channel gets no more traffic its newest window drains, and the older windows — minutes of
// successes from before, beside a handful of failures — must not win it back the ranking.
import { afterEach, describe, expect, it } from 'vitest';
import { EvidenceTracker } from '../../src/routing/evidence.js';
import type { Outcome } from '../../src/types.js';
import { createStack, outcomes, type Stack } from './stack.js';

const stacks: Stack[] = [];
afterEach(async () => {
  while (stacks.length) await stacks.pop()!.close();
});

const card = { method: 'card' };
const wallet = { method: 'wallet' };

/** An hour of history, one batch a minute from 2 minutes ago back: a at 98 %, b at 85 %. */
function history(now: number, aDims: Record<string, string>): Outcome[] {
  const out: Outcome[] = [];
  for (let m = 2; m <= 59; m++) {
    out.push(...outcomes('a', 60, 1, now - m * 60_000, { dims: aDims }), ...outcomes('b', 51, 9, now - m * 60_000, { dims: card }));
  }
  return out;
}

function firstFor(s: Stack, dims: Record<string, string>): string {
  return s.routing.decide({ candidates: ['a', 'b'], dims }).decision.channel;
}

describe('break memory', () => {
  it('keeps a channel that went down behind once its newest window has drained', async () => {
    const s = createStack({ scoring: 'mean', exploration: 0 });
    stacks.push(s);
    const start = s.clock.now();
    await s.record(history(start, card));
    firstFor(s, card);
    await s.routing.refresh();
    expect(firstFor(s, card)).toBe('a');
    // a goes down: a dozen failures, too few for its breaker (100 calls), enough for the score.
    await s.record([...outcomes('a', 0, 12, start, { dims: card }), ...outcomes('b', 51, 9, start, { dims: card })]);
    await s.routing.refresh();
    expect(firstFor(s, card)).toBe('b');
    // The router sends nothing more to a but a look now and then (one per 0.5 % of its candidacies: one here);
    // b keeps working. After a minute a's newest window holds nothing.
    let looks = 0;
    for (let second = 1; second <= 90; second++) {
      s.clock.advance(1000);
      if (second % 10 === 0) await s.record(outcomes('b', 9, 1, s.clock.now(), { dims: card }));
      await s.routing.refresh();
      const d = s.routing.decide({ candidates: ['a', 'b'], dims: card }).decision;
      if (d.explored) {
        looks++;
        // The look fails: one failure in a's drained windows must not let the minutes before the outage back in.
        await s.record(outcomes('a', 0, 1, s.clock.now(), { dims: card }));
      } else expect(d.channel).toBe('b');
    }
    expect(looks).toBe(1);
    // a's last minute holds nothing but the look.
    expect((await s.engine.rate('a', { window: '1m', dims: card })).total).toBe(1);
    expect(s.routing.breakers.view('a').state).toBe('closed');
  });

  it('gives a recovered channel back the rate it had before its break once a few outcomes say it is back', async () => {
    const down = async (s: Stack) => {
      const start = s.clock.now();
      await s.record(history(start, card));
      firstFor(s, card);
      await s.routing.refresh();
      await s.record([...outcomes('a', 0, 12, start, { dims: card }), ...outcomes('b', 51, 9, start, { dims: card })]);
      await s.routing.refresh();
      for (let second = 1; second <= 30; second++) {
        s.clock.advance(1000);
        if (second % 10 === 0) await s.record(outcomes('b', 9, 1, s.clock.now(), { dims: card }));
        await s.routing.refresh();
      }
      expect(firstFor(s, card)).toBe('b');
    };
    const back = createStack({ scoring: 'mean', exploration: 0 });
    const lower = createStack({ scoring: 'mean', exploration: 0 });
    stacks.push(back, lower);
    await down(back);
    await down(lower);
    // Three successes (a look, a probe): against a dozen failures in a row, a is back — at its old 98 %,
    // which beats b's 85 % at once, without waiting for minutes of new evidence.
    await back.record(outcomes('a', 3, 0, back.clock.now(), { dims: card }));
    await back.routing.refresh();
    expect(firstFor(back, card)).toBe('a');
    const rateOfA = (s: Stack) => s.routing.decide({ candidates: ['a', 'b'], dims: card }).decision.ranked.find((r) => r.channel === 'a')!.rate;
    // The rate it had (98 %), not three successes shrunk towards the fleet's.
    expect(rateOfA(back)).toBeGreaterThan(0.95);
    // Back at half its old rate is not the old channel: the evidence from before stays out.
    await lower.record(outcomes('a', 4, 4, lower.clock.now(), { dims: card }));
    await lower.routing.refresh();
    expect(firstFor(lower, card)).toBe('b');
  });

  it('does not give a channel that flaps its old rate back a second time', async () => {
    const s = createStack({ scoring: 'mean', exploration: 0 });
    stacks.push(s);
    const start = s.clock.now();
    await s.record(history(start, card));
    firstFor(s, card);
    await s.routing.refresh();
    const fall = async () => {
      await s.record([...outcomes('a', 0, 12, s.clock.now(), { dims: card }), ...outcomes('b', 9, 1, s.clock.now(), { dims: card })]);
      for (let second = 1; second <= 20; second++) {
        s.clock.advance(1000);
        // A look meets the dead channel once the successes before the fall have left the newest window.
        if (second === 12) await s.record(outcomes('a', 0, 1, s.clock.now(), { dims: card }));
        await s.routing.refresh();
      }
      expect(firstFor(s, card)).toBe('b');
    };
    const comeBack = async () => {
      await s.record(outcomes('a', 3, 0, s.clock.now(), { dims: card }));
      await s.routing.refresh();
      return firstFor(s, card);
    };
    await fall();
    expect(await comeBack()).toBe('a');
    // Traffic flows again for 20 s (60 payments): a is back, not just through a probe or two.
    for (let second = 1; second <= 20; second++) {
      s.clock.advance(1000);
      await s.record(outcomes('a', 3, 0, s.clock.now(), { dims: card }));
      await s.routing.refresh();
    }
    await fall();
    // Back once and down again: three successes no longer recall the old rate; a relearns on its own evidence.
    expect(await comeBack()).toBe('b');
  });

  it('lets a dims series with nothing recent lean on its channel when the channel broke', async () => {
    const s = createStack({ scoring: 'mean', exploration: 0 });
    stacks.push(s);
    const now = s.clock.now();
    // a's card history is minutes old; what a did in the last minute — wallet payments — all failed.
    await s.record([...history(now, card), ...outcomes('a', 0, 12, now, { dims: wallet }), ...outcomes('b', 51, 9, now, { dims: card })]);
    firstFor(s, card);
    firstFor(s, wallet);
    await s.routing.refresh();
    const d = s.routing.decide({ candidates: ['a', 'b'], dims: card }).decision;
    expect(d.channel).toBe('b');
    expect(d.ranked.find((r) => r.channel === 'a')!.rate).toBeLessThan(0.6);
  });
});

describe('absorbing many channels', () => {
  it('absorbs a snapshot in slices, pausing between them, to the evidence it absorbs in one go', async () => {
    const s = createStack({ scoring: 'mean', exploration: 0 });
    stacks.push(s);
    const now = s.clock.now();
    const many: Outcome[] = [];
    for (let i = 0; i < 2_500; i++) many.push(...outcomes(`ch${String(i).padStart(4, '0')}`, 1, 0, now - 1_000));
    // Named to come last in the snapshot, in the third slice: both are absorbed only if every slice is.
    await s.record([...many, ...outcomes('zz-good', 60, 0, now - 1_000), ...outcomes('zz-bad', 20, 40, now - 1_000)]);
    const snapshot = (await s.snapshots.refresh())!;
    const windows = { score: ['1m', '5m'], breaker: '1m' };
    const steps = new EvidenceTracker(windows).absorbing(snapshot, 1_000);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(pauses).toBe(2);
    expect(step.value).toEqual(new EvidenceTracker(windows).absorb(snapshot));
    expect(step.value.channels.size).toBe(2_502);
    // Routing absorbs it so too, and decides on the last slice's channels.
    await s.routing.refresh();
    expect(s.routing.decide({ candidates: ['zz-bad', 'zz-good'] }).decision.channel).toBe('zz-good');
  });
});
