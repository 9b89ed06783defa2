/** Every time-dependent part takes a Clock, so tests and the simulator can run on virtual time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told: 24 simulated hours run in seconds and no test sleeps. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): number {
    this.current += ms;
    return this.current;
  }
}
