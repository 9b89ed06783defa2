// What the read routes answer while the store cannot be read (docs/architecture.md, "Reads degrade"): the
// channel list keeps the last health snapshot, every rate flagged `stale`, with the time the store became
// unreachable — or, in a process that never read the store, what history holds of the last hour; reads that
// only the store can answer (failed request ids) say why and since when.
import { StoreUnavailableError } from '../../errors.js';
import type { HistoryStore, MinuteSnapshot } from '../../history/index.js';
import { staleChannel, type HealthSnapshot, type HealthSnapshots, type ChannelHealth } from '../../stats/healthSnapshot.js';
import { toRate } from '../../stats/rate.js';
import { parseWindow } from '../../stats/windows.js';

/** Clock time the current store outage began, as the health snapshot saw it; undefined while it reads. */
export function storeUnreachableSince(snapshots: Pick<HealthSnapshots, 'status'>): number | undefined {
  const status = snapshots.status();
  return status.failing ? status.failingSince : undefined;
}

/** The last snapshot with every rate flagged stale. */
export function staleSnapshot(latest: HealthSnapshot): HealthSnapshot {
  return { ...latest, channels: new Map([...latest.channels].map(([name, health]) => [name, staleChannel(health)])) };
}

const minuteMs = 60_000;
/** History is read over at most this long: past an hour the minute table is the history route's business. */
const historyReachMs = 3_600_000;
/** Rows read at most: 10,000 channels' hour would be 600,000; a cold start in an outage shows the first ones. */
const historyRowLimit = 100_000;

export interface HistoryFallback {
  history: Pick<HistoryStore, 'minutesOfEveryChannel'>;
  windows: readonly string[];
  minSamples: number;
}

/**
 * A snapshot made of history's minutes, every rate stale: each window sums the minutes that overlap it,
 * ending at the newest minute history holds (the store stopped answering near then).
 */
export async function historySnapshot(fallback: HistoryFallback, now: number): Promise<HealthSnapshot> {
  const rows = await fallback.history.minutesOfEveryChannel({ from: now - historyReachMs, to: now, limit: historyRowLimit });
  const byChannel = new Map<string, MinuteSnapshot[]>();
  for (const row of rows) {
    const list = byChannel.get(row.channel);
    if (list) list.push(row);
    else byChannel.set(row.channel, [row]);
  }
  const asOf = rows.reduce((newest, row) => Math.max(newest, row.minute + minuteMs), 0);
  const channels = new Map<string, ChannelHealth>();
  for (const [channel, minutes] of byChannel) {
    const rates: ChannelHealth['rates'] = {};
    for (const window of fallback.windows) {
      const inWindow = minutes.filter((m) => m.minute + minuteMs > asOf - parseWindow(window) * 1000);
      const counts = { success: 0, failure: 0, started: 0, pending: 0 };
      for (const m of inWindow) {
        counts.success += m.success;
        counts.failure += m.failure;
        counts.started += m.started;
      }
      rates[window] = toRate(channel, undefined, window, counts, fallback.minSamples, asOf, true);
    }
    channels.set(channel, { channel, rates, series: [] });
  }
  return { asOf, durationMs: 0, channels };
}

/** PP_ERR_STORE_UNAVAILABLE naming the outage's start, e.g. "store unavailable: unreachable since 2026-12-01T09:00:00.000Z (…)". */
export function outageError(since: number | undefined, cause: unknown, what: string): StoreUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const when = since === undefined ? 'unreachable' : `unreachable since ${new Date(since).toISOString()}`;
  return new StoreUnavailableError(`${when}; ${what} are kept only in the store (${reason})`, since === undefined ? undefined : { since });
}
