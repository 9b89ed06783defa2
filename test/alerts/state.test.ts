// The alert state machine on its own: every transition, hysteresis both ways, reminders, mutes and the
// evaluation slot that lets a fleet step an alert once per evaluation.
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../src/alerts/decision.js';
import { initialState, stepAlert, type AlertState, type Transition } from '../../src/alerts/state.js';

const rules = { consecutive: 3, repeatEveryMs: 30 * 60_000 };
const everyMs = 5_000;

/** Runs observations one evaluation apart and returns the transitions seen, with the evaluation index. */
function run(observations: Observation[], start: AlertState = initialState, muted: (i: number) => boolean = () => false) {
  let state = start;
  const seen: Array<[number, Transition, number]> = [];
  observations.forEach((o, i) => {
    const slot = start.slot + 1 + i;
    const step = stepAlert(state, o, { nowMs: slot * everyMs, slot, muted: muted(i) }, rules);
    state = step.state;
    if (step.transition) seen.push([i, step.transition, state.rank]);
  });
  return { state, seen };
}

const o = (fast: 0 | 1 | 2 | 3, slow: 0 | 1 | 2 | 3 = 0): Observation => ({ fast, slow });

describe('alert state', () => {
  it('fires at once on a fast breach, escalates, de-escalates and resolves only after `consecutive` calmer evaluations', () => {
    const { seen, state } = run([o(0), o(1), o(3), o(3), o(1), o(1), o(1), o(0), o(0), o(0)]);
    expect(seen).toEqual([
      [1, 'firing', 1],
      [2, 'escalated', 3],
      [6, 'de-escalated', 1],
      [9, 'resolved', 0],
    ]);
    expect(state.since).toBeNull();
  });

  it('needs `consecutive` slow breaches in a row, and the level they all share', () => {
    const interrupted = run([o(0, 2), o(0, 2), o(0, 0), o(0, 2), o(0, 2)]);
    expect(interrupted.seen).toEqual([]);
    const held = run([o(0, 2), o(0, 1), o(0, 2), o(0, 3), o(0, 3)]);
    expect(held.seen).toEqual([[2, 'firing', 1], [4, 'escalated', 2]]);
  });

  it('does not resolve on one healthy evaluation inside a burst (hysteresis)', () => {
    const { seen } = run([o(2), o(0), o(2), o(0), o(0), o(2)]);
    expect(seen).toEqual([[0, 'firing', 2]]);
  });

  it('reminds every repeatEvery while firing, not while muted, and at once when a mute ends', () => {
    const minutes = (n: number) => (n * 60_000) / everyMs;
    const firing = Array.from({ length: minutes(61) }, () => o(2));
    const { seen } = run(firing);
    expect(seen.map(([i, t]) => [i, t])).toEqual([[0, 'firing'], [minutes(30), 'reminder'], [minutes(60), 'reminder']]);
    const muted = run(firing.slice(0, minutes(10)), initialState, (i) => i < minutes(5));
    expect(muted.seen.map(([i, t]) => [i, t])).toEqual([[0, 'firing'], [minutes(5), 'reminder']]);
  });

  it('applies each evaluation slot once: a second instance stepping the same slot changes nothing', () => {
    const first = stepAlert(initialState, o(3), { nowMs: 5_000, slot: 1, muted: false }, rules);
    expect(first.transition).toBe('firing');
    const again = stepAlert(first.state, o(3), { nowMs: 5_100, slot: 1, muted: false }, rules);
    expect(again).toEqual({ state: first.state, changed: false });
  });

  it('writes nothing for a channel that stays quiet', () => {
    const step = stepAlert(initialState, o(0), { nowMs: 5_000, slot: 1, muted: false }, rules);
    expect(step.changed).toBe(false);
    const pending = stepAlert(initialState, o(0, 1), { nowMs: 5_000, slot: 1, muted: false }, rules);
    expect(pending.changed).toBe(true);
  });
});
