// A series is what statistics are kept for: the channel itself ('') or one configured dimension set of
// it, e.g. `currency=USD,method=card`. Names are sorted, so the same dims always give the same id.
import { ValidationError } from '../errors.js';

export const channelSeries = '';

/**
 * Marks the excused twin of a series: failures whose code is not the channel's fault count in the series as
 * usual and once more in its twin, so routing can subtract them while the plain rate keeps them. `!` cannot
 * occur in a dims value, so no real series collides with a twin.
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
        // Own names only: an inherited one (`toString`) is not a dimension the outcome carries.
        if (set.every((name) => Object.hasOwn(dims, name) && dims[name] !== undefined)) ids.push(set.map((name) => `${name}=${dims[name]}`).join(','));
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
    return names.map((name) => `${name}=${dims[name]}`).join(',');
  }
}
