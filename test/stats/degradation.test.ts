// The degradation switch on virtual time: level 1 after 10 s of ≥ 5 % failed store calls, level 2 after 30 s
// of ≥ 20 %, back to 0 only after 60 s under 1 %; quiet seconds neither break nor extend a run.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DegradationSwitch, type DegradationChange } from '../../src/stats/degradation.js';

const t0 = Date.UTC(2026, 11, 1, 9, 0);

function harness(thresholds = {}) {
  const clock = new ManualClock(t0);
  const changes: DegradationChange[] = [];
  const degradation = new DegradationSwitch(clock, thresholds, (c) => changes.push(c));
  /** `seconds` seconds of `calls` store calls each, `failed` of them failing. */
  const run = (seconds: number, calls: number, failed: number) => {
    for (let s = 0; s < seconds; s++) {
      for (let i = 0; i < calls; i++) degradation.observe(i < failed);
      clock.advance(1000);
    }
    return degradation.level;
  };
  return { clock, changes, degradation, run };
}

describe('degradation switch', () => {
  it('rises to level 1 after ten seconds of 5 % failures, not nine, and not on one bad second', () => {
    const { run, changes } = harness();
    // A second is judged as soon as it is over: each run() ends on the next second's start.
    expect(run(1, 100, 100)).toBe(0);
    expect(run(8, 100, 5)).toBe(0);
    expect(run(1, 100, 4)).toBe(0); // 4 % breaks the run
    expect(run(9, 100, 5)).toBe(0);
    expect(run(1, 100, 5)).toBe(1);
    expect(changes.map((c) => [c.previous, c.level])).toEqual([[0, 1]]);
  });

  it('rises to level 2 after thirty seconds of 20 %, and recovers only after sixty healthy seconds', () => {
    const { run, changes } = harness();
    expect(run(9, 50, 50)).toBe(0);
    expect(run(1, 50, 50)).toBe(1);
    expect(run(19, 50, 50)).toBe(1);
    expect(run(1, 50, 50)).toBe(2);
    expect(run(59, 50, 0)).toBe(2);
    expect(run(1, 50, 1)).toBe(2); // 2 % breaks the healthy run
    expect(run(59, 100, 0)).toBe(2);
    expect(run(1, 100, 0)).toBe(0);
    expect(changes.map((c) => c.level)).toEqual([1, 2, 0]);
  });

  it('does not count quiet seconds, and takes its thresholds from options', () => {
    const { run, clock } = harness({ level1FailureRatio: 0.5, level1ForSec: 3, level2FailureRatio: 0.9 });
    expect(run(2, 10, 5)).toBe(0);
    clock.advance(3600_000); // an hour without store calls: no evidence either way
    expect(run(1, 10, 5)).toBe(1);
    expect(() => harness({ recoverFailureRatio: 0.3 })).toThrow(/must rise/);
  });
});
