// Recency sets (docs/background.md): the newest distinct ids that reported within `within`, at most `max`, newest
// first. Two designs behind one interface: `buckets` (Before / Current / Next rolling hashes, the fleet
// team's design in docs/background.md) and `zset` (the design it replaced), so a team can run both side
// by side and compare answers before switching.
import type { Clock } from '../clock.js';
import type { KitKeys } from '../store/keys/kit.js';
import { invalidField } from './errors.js';
import type { KitStore, RecencyEntry } from '../store/ports/kit.js';
import { durationMs, encodeJson, nameLimits, normaliseName } from './validate.js';

export type RecencyDesign = 'buckets' | 'zset';

export interface RecencyOptions {
  /** Ids returned at most (e.g. 10,000); also a bucket's capacity. */
  max: number;
  /** How far back an id counts as recent: ms or '7d'. */
  within: number | string;
  /** How far a report's `at` may be from now, either way (e.g. 1 day): ms or '1d'. */
  tolerance: number | string;
  design?: RecencyDesign;
}

export interface RecencyItem {
  id: string;
  at: number;
  meta?: unknown;
}

export type TouchResult = { accepted: true } | { accepted: false; reason: 'too-old' | 'too-new' };

export interface RecencySet {
  readonly name: string;
  readonly design: RecencyDesign;
  /** Records that `id` reported at `at` (epoch ms); reports outside now ± tolerance are rejected, not stored. */
  touch(id: string, at: number, meta?: unknown): Promise<TouchResult>;
  /** Newest distinct ids first (ties: larger id first), within [from, to], at most `limit` (default max). */
  list(query?: { from?: number; to?: number; limit?: number }): Promise<RecencyItem[]>;
}

/** Hot values stay under 10 KB: a larger one blocks Redis while it is copied on every read. */
export const maxMetaBytes = 10_240;
const maxRecencyIds = 1_000_000;

const newestFirst = (a: RecencyEntry, b: RecencyEntry) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const toItem = (e: RecencyEntry): RecencyItem => (e.meta === '' ? { id: e.id, at: e.at } : { id: e.id, at: e.at, meta: JSON.parse(e.meta) });

function timeArg(value: unknown, field: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidField(field, `must be epoch milliseconds, got ${String(value)}`);
  return value;
}

export function createRecency(deps: { store: KitStore; keys: KitKeys; clock: Clock }) {
  const { store, clock } = deps;

  return function recency(name: string, options: RecencyOptions): RecencySet {
    const setName = normaliseName(name, 'name', nameLimits.recencyName);
    const max = options?.max;
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max <= 0 || max > maxRecencyIds) {
      throw invalidField('max', `must be a whole number in 1..${maxRecencyIds}, got ${String(max)}`);
    }
    const withinMs = durationMs(options.within, 'within');
    const toleranceMs = durationMs(options.tolerance, 'tolerance');
    const design = options.design ?? 'buckets';
    if (design !== 'buckets' && design !== 'zset') throw invalidField('design', `must be 'buckets' or 'zset', got ${String(design)}`);
    const keys = deps.keys.recency(setName);
    // A bucket (or the zset) nobody wrote for this long holds nothing `list` may return: the expiry backstop.
    const expireMs = withinMs + toleranceMs;

    async function touch(id: string, at: number, meta?: unknown): Promise<TouchResult> {
      const entryId = normaliseName(id, 'id', nameLimits.recencyId);
      const reportedAt = timeArg(at, 'at');
      const metaText = meta === undefined ? '' : encodeJson(meta, 'meta');
      if (Buffer.byteLength(metaText) > maxMetaBytes) throw invalidField('meta', `must be at most ${maxMetaBytes} bytes as JSON`);
      const now = clock.now();
      // "Time travel": re-parsed old data and drifting clocks report old times; a fixed tolerance
      // rejects them instead of letting them evict real recent ids.
      if (reportedAt < now - toleranceMs) return { accepted: false, reason: 'too-old' };
      if (reportedAt > now + toleranceMs) return { accepted: false, reason: 'too-new' };
      const entry = { id: entryId, at: reportedAt, meta: metaText };
      if (design === 'buckets') await store.touchRecencyBuckets(keys, entry, max, expireMs);
      else await store.touchRecencyZset(keys, entry, max, expireMs);
      return { accepted: true };
    }

    async function list(query: { from?: number; to?: number; limit?: number } = {}): Promise<RecencyItem[]> {
      const limit = query.limit ?? max;
      if (!Number.isSafeInteger(limit) || limit <= 0 || limit > max) throw invalidField('limit', `must be a whole number in 1..${max}, got ${String(limit)}`);
      const from = Math.max(timeArg(query.from, 'from', 0), clock.now() - withinMs);
      const to = timeArg(query.to, 'to', Number.MAX_SAFE_INTEGER);
      if (from > to) return [];
      if (design === 'zset') return (await store.readRecencyZset(keys, from, to, limit)).map(toItem);
      const { current, before } = await store.readRecencyBuckets(keys);
      // An id may sit in both buckets: keep its newest report (Current wins a tie, it arrived later).
      const newest = new Map<string, RecencyEntry>();
      for (const e of before) newest.set(e.id, e);
      for (const e of current) {
        const seen = newest.get(e.id);
        if (!seen || e.at >= seen.at) newest.set(e.id, e);
      }
      // The set is the newest `max` ids; the range then picks from it, as ZREVRANGEBYSCORE does on the zset.
      return [...newest.values()]
        .sort(newestFirst)
        .slice(0, max)
        .filter((e) => e.at >= from && e.at <= to)
        .slice(0, limit)
        .map(toItem);
    }

    return { name: setName, design, touch, list };
  };
}
