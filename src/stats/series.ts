// A series is what statistics are kept for: the channel itself ('') or one configured dimension set of
// it, e.g. `currency=USD,method=card`. Names are sorted, so the same dims always give the same id.
import { ValidationError } from '../errors.js';

export const channelSeries = '';

export class SeriesPlan {
  private readonly sets: string[][];
  private readonly setKeys: Set<string>;

  constructor(dimensionSets: string[][]) {
    this.sets = dimensionSets.map((set) => [...new Set(set)].sort());
    this.setKeys = new Set(this.sets.map((s) => s.join(',')));
  }

  get dimensionNames(): Set<string> {
    return new Set(this.sets.flat());
  }

  /** The channel series first, then one per configured set the outcome's dims fully cover. */
  seriesOf(dims: Record<string, string> | undefined): string[] {
    const ids = [channelSeries];
    if (!dims) return ids;
    for (const set of this.sets) {
      if (set.every((name) => dims[name] !== undefined)) ids.push(set.map((name) => `${name}=${dims[name]}`).join(','));
    }
    return ids;
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
