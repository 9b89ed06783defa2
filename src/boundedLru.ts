// A map bounded by entry count, least recently used evicted first, entries expiring on the injected Clock.
// The cache's in-process tier (L1; a two-level cache is the known fix for hot keys, docs/background.md)
// keeps JSON text in it, not objects, so one caller mutating its result cannot change another's; the
// success-rate engine keeps its last known rates in one.
import type { Clock } from './clock.js';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class BoundedLru<V = string | null> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly clock: Clock,
    readonly maxEntries: number,
  ) {}

  /** The value (for the cache, null is its empty marker), or undefined on a miss. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    this.entries.set(key, entry); // Map order is recency order: re-inserting marks it most recent
    return entry.value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
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
