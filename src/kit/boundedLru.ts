// The in-process tier of the cache (L1; a two-level cache is the known fix for hot keys, docs/background.md):
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
