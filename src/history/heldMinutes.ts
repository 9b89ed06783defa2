// Which empty minutes the history job must still copy. Most minutes of most channels are empty, and copying
// them cost a row a channel a minute: with thousands of quiet channels a first copy of two hours took longer
// than minutes. But an empty minute read from the live store can still be news — a failure upgraded to a
// success a minute later leaves its own minute empty — so an empty minute is copied exactly where history
// holds outcomes for it. The job learns those minutes from history once, then from what it writes.
import type { HistoryStore, MinuteSnapshot } from './historyStore.js';

/** Channels per history query on the first run: a query's rows stay far below its row limit. */
const channelsPerQuery = 200;

const isEmpty = (m: MinuteSnapshot) => m.success === 0 && m.failure === 0 && m.started === 0;
const keyOf = (m: { channel: string; minute: number }) => `${m.minute}\n${m.channel}`;

export class HeldMinutes {
  /** `<minute>\n<channel>` of minutes history holds with outcomes, from the job's oldest read minute on. */
  private readonly held = new Set<string>();
  private loaded = false;

  /** The store's rows worth copying: every minute with outcomes, and empty ones that history holds with some. */
  async worthCopying(history: HistoryStore, rows: MinuteSnapshot[], from: number, to: number): Promise<MinuteSnapshot[]> {
    if (!this.loaded) await this.load(history, rows, from, to);
    return rows.filter((m) => !isEmpty(m) || this.held.has(keyOf(m)));
  }

  /**
   * After a copy: what history now holds. A complete row is history's value now; a partial one was merged,
   * and history keeps the larger. Minutes before `keepFrom` are forgotten: no run reads them again.
   */
  copied(complete: MinuteSnapshot[], partial: MinuteSnapshot[], keepFrom: number): void {
    for (const m of complete) {
      if (isEmpty(m)) this.held.delete(keyOf(m));
      else this.held.add(keyOf(m));
    }
    for (const m of partial) if (!isEmpty(m)) this.held.add(keyOf(m));
    for (const key of this.held) if (Number(key.slice(0, key.indexOf('\n'))) < keepFrom) this.held.delete(key);
  }

  private async load(history: HistoryStore, rows: MinuteSnapshot[], from: number, to: number): Promise<void> {
    const channels = [...new Set(rows.map((m) => m.channel))];
    for (let i = 0; i < channels.length; i += channelsPerQuery) {
      const stored = await history.minutesOfChannels(channels.slice(i, i + channelsPerQuery), { from, to });
      for (const m of stored) if (!isEmpty(m)) this.held.add(keyOf(m));
    }
    this.loaded = true;
  }
}
