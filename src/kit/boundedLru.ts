// The in-process tier of the cache (BentoCache's L1; seed 002 fixed hot keys with a two-level cache):
// bounded by entry count, least recently used evicted first, entries expiring on the injected Clock.
// It holds JSON text, not objects, so one caller mutating its result cannot change another's.
import type { Clock } from '../clock.js';

interface Entry {
  text: string | null;
  expiresAt: number;
}

export class BoundedLru {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    readonly maxEntries: number,
  ) {}

  /** The text (null: the empty marker), or undefined on a miss. */
  get(key: string): string | null | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    this.entries.set(key, entry); // Map order is recency order: re-inserting marks it most recent
    return entry.text;
  }

  set(key: string, text: string | null, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { text, expiresAt: this.clock.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** At most `limit` loaders at once; the rest queue (seed 004 §4.2: reads go to the DB behind a limiter). */
export class ConcurrencyLimit {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next in line, so a newcomer cannot slip in between.
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }

  get running(): number {
    return this.active;
  }
}
