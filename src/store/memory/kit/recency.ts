// The two recency designs (docs/storage.md) in memory, mirroring the Lua scripts line for line in behaviour:
// rolling buckets (Before / Current / Next, ten slots round-robin) and a score-ordered set trimmed to max.
import type { Clock } from '../../../clock.js';
import type { RecencyEntry, RecencyKeys } from '../../ports/kit.js';
import { ExpiringMap } from './expiringMap.js';

type Bucket = Map<string, RecencyEntry>;

export class MemoryRecencyBuckets {
  private readonly indexes: ExpiringMap<number>;
  private readonly buckets: ExpiringMap<Bucket>;

  constructor(clock: Clock) {
    this.indexes = new ExpiringMap(clock);
    this.buckets = new ExpiringMap(clock);
  }

  private bucketKey(keys: RecencyKeys, index: number): string {
    const slots = keys.buckets.length;
    return keys.buckets[((index % slots) + slots) % slots];
  }

  touch(keys: RecencyKeys, entry: RecencyEntry, capacity: number, expireMs: number): void {
    let index = this.indexes.get(keys.index) ?? 0;
    let current = this.buckets.get(this.bucketKey(keys, index));
    const stored = current?.get(entry.id);
    if (stored) {
      if (stored.at > entry.at) return; // an older report never overwrites a newer one
    } else if (current && current.size >= capacity) {
      index = (index + 1) % keys.buckets.length;
      this.indexes.set(keys.index, index, expireMs);
      this.buckets.delete(this.bucketKey(keys, index - 2));
      this.buckets.delete(this.bucketKey(keys, index));
      current = undefined;
    }
    if (!current) {
      current = new Map();
      this.buckets.set(this.bucketKey(keys, index), current, expireMs);
    }
    current.set(entry.id, { ...entry });
    this.buckets.expire(this.bucketKey(keys, index), expireMs);
    this.indexes.expire(keys.index, expireMs);
  }

  read(keys: RecencyKeys): { current: RecencyEntry[]; before: RecencyEntry[] } {
    const index = this.indexes.get(keys.index) ?? 0;
    const entries = (i: number) => [...(this.buckets.get(this.bucketKey(keys, i))?.values() ?? [])].map((e) => ({ ...e }));
    return { current: entries(index), before: entries(index - 1) };
  }
}

/** Ascending by (at, id): the order of a Redis ZSet, so trimming removes the same ids. */
function before(a: RecencyEntry, b: RecencyEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

class ScoreOrderedSet {
  readonly byId = new Map<string, RecencyEntry>();
  readonly sorted: RecencyEntry[] = [];

  /** Index of the first entry not before `probe`. */
  private position(probe: RecencyEntry): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(this.sorted[mid], probe)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  upsert(entry: RecencyEntry): boolean {
    const previous = this.byId.get(entry.id);
    if (previous) {
      if (previous.at > entry.at) return false;
      this.sorted.splice(this.position(previous), 1);
    }
    const copy = { ...entry };
    this.byId.set(entry.id, copy);
    this.sorted.splice(this.position(copy), 0, copy);
    return true;
  }

  trim(max: number): void {
    const excess = this.sorted.length - max;
    if (excess <= 0) return;
    for (const gone of this.sorted.splice(0, excess)) this.byId.delete(gone.id);
  }
}

export class MemoryRecencyZset {
  private readonly sets: ExpiringMap<ScoreOrderedSet>;

  constructor(clock: Clock) {
    this.sets = new ExpiringMap(clock);
  }

  touch(keys: RecencyKeys, entry: RecencyEntry, max: number, expireMs: number): void {
    let set = this.sets.get(keys.zset);
    if (!set) this.sets.set(keys.zset, (set = new ScoreOrderedSet()), expireMs);
    if (!set.upsert(entry)) return;
    set.trim(max);
    this.sets.expire(keys.zset, expireMs);
  }

  read(keys: RecencyKeys, fromMs: number, toMs: number, limit: number): RecencyEntry[] {
    const set = this.sets.get(keys.zset);
    const out: RecencyEntry[] = [];
    if (!set) return out;
    for (let i = set.sorted.length - 1; i >= 0 && out.length < limit; i--) {
      const entry = set.sorted[i];
      if (entry.at > toMs) continue;
      if (entry.at < fromMs) break;
      out.push({ ...entry });
    }
    return out;
  }
}
