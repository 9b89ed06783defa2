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

/** One minute: its totals, and its seconds by offset 0–59 (the Redis layout: one hash per series and minute). */
interface Minute {
  total: Counts;
  seconds: Array<Counts | undefined>;
}

export class SecondCounters {
  private readonly minutes = new Map<number, Minute>();

  add(atMs: number, field: CountField, delta: number): void {
    const sec = Math.floor(atMs / 1000);
    const minute = Math.floor(sec / 60);
    let m = this.minutes.get(minute);
    if (!m) this.minutes.set(minute, (m = { total: empty(), seconds: [] }));
    const s = (m.seconds[sec - minute * 60] ??= empty());
    s[field] += delta;
    m.total[field] += delta;
  }

  // A minute with no outcomes costs one lookup, not sixty: a snapshot reads every window of every channel.
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
      const m = this.minutes.get(minute);
      if (!m) continue;
      const first = minute * 60;
      if (fromSec <= first && first + 59 <= toSec) addTo(m.total);
      else for (let s = Math.max(fromSec, first); s <= Math.min(toSec, first + 59); s++) addTo(m.seconds[s - first]);
    }
    return total;
  }

  minute(minute: number): Counts {
    return { ...empty(), ...this.minutes.get(minute)?.total };
  }

  /** Forgets minutes that end before `fromMs` (past retention), as Redis expires a minute's hash whole. */
  prune(fromMs: number): void {
    const firstSec = Math.floor(fromMs / 1000);
    for (const minute of this.minutes.keys()) if ((minute + 1) * 60 <= firstSec) this.minutes.delete(minute);
  }

  get isEmpty(): boolean {
    return this.minutes.size === 0;
  }
}
