// Per-second counts of one series, with per-minute totals, read the way the Redis `buckets` strategy
// reads them: full minutes from their totals, the partial minutes at a window's edges second by second.

export interface Counts {
  s: number; // successes
  f: number; // failures
  p: number; // started (pending recorded)
  o: number; // still open (pending, not resolved or timed out)
}

export type CountField = keyof Counts;

const empty = (): Counts => ({ s: 0, f: 0, p: 0, o: 0 });

export class SecondCounters {
  private readonly seconds = new Map<number, Counts>();
  private readonly minutes = new Map<number, Counts>();

  add(atMs: number, field: CountField, delta: number): void {
    const sec = Math.floor(atMs / 1000);
    const minute = Math.floor(sec / 60);
    let s = this.seconds.get(sec);
    if (!s) this.seconds.set(sec, (s = empty()));
    let m = this.minutes.get(minute);
    if (!m) this.minutes.set(minute, (m = empty()));
    s[field] += delta;
    m[field] += delta;
  }

  sum(fromSec: number, toSec: number): Counts {
    const total = empty();
    const addTo = (c: Counts | undefined) => {
      if (!c) return;
      total.s += c.s;
      total.f += c.f;
      total.p += c.p;
      total.o += c.o;
    };
    for (let minute = Math.floor(fromSec / 60); minute <= Math.floor(toSec / 60); minute++) {
      const first = minute * 60;
      if (fromSec <= first && first + 59 <= toSec) addTo(this.minutes.get(minute));
      else for (let s = Math.max(fromSec, first); s <= Math.min(toSec, first + 59); s++) addTo(this.seconds.get(s));
    }
    return total;
  }

  minute(minute: number): Counts {
    return { ...empty(), ...this.minutes.get(minute) };
  }

  /** Forgets seconds and minutes that end before `fromMs` (past retention). */
  prune(fromMs: number): void {
    const firstSec = Math.floor(fromMs / 1000);
    for (const sec of this.seconds.keys()) if (sec < firstSec) this.seconds.delete(sec);
    for (const minute of this.minutes.keys()) if ((minute + 1) * 60 <= firstSec) this.minutes.delete(minute);
  }

  get isEmpty(): boolean {
    return this.seconds.size === 0;
  }
}
