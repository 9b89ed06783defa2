// A series is what statistics are kept for: the channel itself ('') or one configured dimension set of
// it, e.g. `currency=USD,method=card`. Names are sorted, so the same dims always give the same id.
import { ValidationError } from '../errors.js';
import { ownEntry } from '../ownEntry.js';
import { seriesPartText } from '../store/keys/escape.js';

export const channelSeries = '';

/**
 * The id of the series of `dims` over `names` (all of its names unless given, sorted): each name and value
 * escaped, so the id goes into keys as it is and reads back by dimsOfSeriesId whatever the text.
 */
export function seriesIdOf(dims: Readonly<Record<string, string>>, names: readonly string[] = Object.keys(dims).sort()): string {
  return names.map((name) => `${seriesPartText.encode(name)}=${seriesPartText.encode(dims[name]!)}`).join(',');
}

/** The dims of a series id (seriesIdOf's inverse); the channel series has none. */
export function dimsOfSeriesId(id: string): Record<string, string> {
  if (id === channelSeries) return {};
  return Object.fromEntries(
    id.split(',').map((pair) => {
      const at = pair.indexOf('=');
      return [seriesPartText.decode(pair.slice(0, at)), seriesPartText.decode(pair.slice(at + 1))];
    }),
  );
}

/**
 * Marks the excused twin of a series: failures whose code is not the channel's fault count in the series as
 * usual and once more in its twin, so routing can subtract them while the plain rate keeps them. seriesIdOf
 * escapes `!`, so no real series collides with a twin.
 */
export const excusedMark = '!excused';

export function excusedSeriesId(seriesId: string): string {
  return `${seriesId}${excusedMark}`;
}

export function isExcusedSeries(seriesId: string): boolean {
  return seriesId.endsWith(excusedMark);
}

const plain: readonly string[] = Object.freeze([channelSeries]);
const plainExcused: readonly string[] = Object.freeze([channelSeries, excusedSeriesId(channelSeries)]);

export class SeriesPlan {
  private readonly sets: string[][];
  private readonly setKeys: Set<string>;
  private readonly excused: ReadonlySet<string>;

  constructor(dimensionSets: string[][], excusedCodes: Iterable<string> = []) {
    this.sets = dimensionSets.map((set) => [...new Set(set)].sort());
    this.setKeys = new Set(this.sets.map((s) => s.join(',')));
    this.excused = new Set(excusedCodes);
  }

  get dimensionNames(): Set<string> {
    return new Set(this.sets.flat());
  }

  /**
   * The channel series first, then one per configured set the outcome's dims fully cover; a failure with an
   * excused `failureCode` also counts in each one's excused twin.
   */
  seriesOf(dims: Record<string, string> | undefined, failureCode?: string): string[] {
    const ids = [channelSeries];
    if (dims) {
      for (const set of this.sets) {
        if (set.every((name) => ownEntry(dims, name) !== undefined)) ids.push(seriesIdOf(dims, set));
      }
    }
    if (failureCode === undefined || !this.excused.has(failureCode)) return ids;
    return [...ids, ...ids.map(excusedSeriesId)];
  }

  /**
   * seriesOf() for the record path: outcomes without dims, nearly all of them in most setups, share one
   * frozen list instead of a new one each (the store only reads it, and the packer knows it by identity).
   */
  storedSeriesOf(dims: Record<string, string> | undefined, failureCode?: string): readonly string[] {
    if (dims !== undefined) return this.seriesOf(dims, failureCode);
    return failureCode !== undefined && this.excused.has(failureCode) ? plainExcused : plain;
  }

  /** The series a query's dims select; they must match a configured set exactly. */
  seriesFor(dims: Record<string, string> | undefined): string {
    if (!dims || Object.keys(dims).length === 0) return channelSeries;
    const names = Object.keys(dims).sort();
    if (!this.setKeys.has(names.join(','))) {
      throw new ValidationError([
        { index: 0, field: 'dims', reason: `[${names.join(', ')}] is not a configured dimension set` },
      ]);
    }
    return seriesIdOf(dims, names);
  }
}
