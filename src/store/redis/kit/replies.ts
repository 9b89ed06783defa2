// Turns a recency bucket's HGETALL reply ({id, "<at>|<meta>", …}) into entries.
import type { RecencyEntry } from '../../ports/kit.js';

export function parseBucketFlat(flat: string[]): RecencyEntry[] {
  const entries: RecencyEntry[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const value = flat[i + 1];
    const bar = value.indexOf('|');
    entries.push({ id: flat[i], at: Number(value.slice(0, bar)), meta: value.slice(bar + 1) });
  }
  return entries;
}
