// One degradation switch per process, fed by the store calls it sees succeed or fail (docs/architecture.md):
//   level 0  normal
//   level 1  failed calls ≥ 5 % in every second for 10 s: the record path goes straight to the spill, reads
//            come from the last known values and history
//   level 2  failed calls ≥ 20 % in every second for 30 s: non-essential work pauses as well
// Back to 0 only after failures stay under 1 % for 60 s, so a flapping Redis does not flip the process back
// and forth. Seconds without store calls carry no evidence either way and neither break nor extend a run; while
// the level is above 0, degradationProbe.ts makes one call a second so there is evidence to return on.
import type { Clock } from '../clock.js';

export type DegradationLevel = 0 | 1 | 2;

export interface DegradationThresholds {
  /** Failed share of a second's store calls that counts towards level 1. Default 0.05. */
  level1FailureRatio: number;
  /** Seconds in a row at or above it before level 1. Default 10. */
  level1ForSec: number;
  level2FailureRatio: number;
  level2ForSec: number;
  /** Failed share under which a second counts as healthy. Default 0.01. */
  recoverFailureRatio: number;
  /** Healthy seconds in a row before level 0. Default 60. */
  recoverForSec: number;
}

export const defaultDegradationThresholds: DegradationThresholds = {
  level1FailureRatio: 0.05,
  level1ForSec: 10,
  level2FailureRatio: 0.2,
  level2ForSec: 30,
  recoverFailureRatio: 0.01,
  recoverForSec: 60,
};

export interface DegradationChange {
  level: DegradationLevel;
  previous: DegradationLevel;
  /** Failed share of the second that decided it. */
  failureRatio: number;
  at: number;
}

export class DegradationSwitch {
  private current: DegradationLevel = 0;
  private second = -1;
  private calls = 0;
  private failures = 0;
  /** Seconds in a row that met each condition (only seconds with calls count). */
  private runLevel1 = 0;
  private runLevel2 = 0;
  private runHealthy = 0;
  private readonly thresholds: DegradationThresholds;

  constructor(
    private readonly clock: Clock,
    thresholds: Partial<DegradationThresholds> = {},
    private readonly onChange?: (change: DegradationChange) => void,
  ) {
    this.thresholds = { ...defaultDegradationThresholds, ...thresholds };
    const t = this.thresholds;
    if (!(t.recoverFailureRatio <= t.level1FailureRatio && t.level1FailureRatio <= t.level2FailureRatio)) {
      throw new RangeError('degradation thresholds must rise: recoverFailureRatio ≤ level1FailureRatio ≤ level2FailureRatio');
    }
  }

  /** The level as of now (a second that ended since the last call is taken into account). */
  get level(): DegradationLevel {
    this.roll(Math.floor(this.clock.now() / 1000));
    return this.current;
  }

  /** One store call: `failed` when it errored or timed out. */
  observe(failed: boolean): void {
    this.roll(Math.floor(this.clock.now() / 1000));
    this.calls++;
    if (failed) this.failures++;
  }

  private roll(second: number): void {
    if (second === this.second) return;
    if (this.second >= 0 && this.calls > 0) this.judge(this.failures / this.calls, (this.second + 1) * 1000);
    this.second = second;
    this.calls = 0;
    this.failures = 0;
  }

  private judge(ratio: number, at: number): void {
    const t = this.thresholds;
    this.runLevel1 = ratio >= t.level1FailureRatio ? this.runLevel1 + 1 : 0;
    this.runLevel2 = ratio >= t.level2FailureRatio ? this.runLevel2 + 1 : 0;
    this.runHealthy = ratio < t.recoverFailureRatio ? this.runHealthy + 1 : 0;
    let next = this.current;
    if (this.runLevel2 >= t.level2ForSec) next = 2;
    else if (this.runLevel1 >= t.level1ForSec && this.current < 1) next = 1;
    else if (this.runHealthy >= t.recoverForSec) next = 0;
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    this.onChange?.({ level: next, previous, failureRatio: ratio, at });
  }
}
