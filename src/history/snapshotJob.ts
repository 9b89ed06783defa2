// Copies every channel's per-minute counts from the live store into the history table.
// Each run rewrites the last few minutes as well as the new one, because a late callback (or a failure
// upgraded to a success) changes a minute after it was first copied; unchanged rows are not rewritten.
// A store that lost its data (Redis restarted empty) must not overwrite those minutes with its zeros: only
// minutes the store holds completely (after its epoch began, docs/architecture.md) may lower history; older
// minutes are merged, never lowered.
// The store answers every minute of the range, empty or not, and most do not change between runs: only rows
// whose counts differ from what this job last copied are sent. At 10,000 channels the ten-minute lookback is
// 110,000 rows a run, and the embedded database runs each statement on the event loop
// (docs/decisions/067-long-tasks-yield.md).
import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { PulseLogger, SuccessRates } from '../types.js';
import type { HistoryStore, MinuteSnapshot } from './historyStore.js';

const minuteMs = 60_000;

export interface SnapshotJobOptions {
  pulse: Pick<SuccessRates, 'channels' | 'minutes' | 'storeEpoch'>;
  history: HistoryStore;
  clock: Clock;
  /** How often to copy. Default 10 s: the dashboard's back-fill is then at most that old. */
  intervalMs?: number;
  /** Minutes rewritten on every run so late outcomes correct them. Default 10. */
  lookbackMinutes?: number;
  /** Minutes copied on the first run, to recover what the live store still holds (it keeps ~2 h). Default 120. */
  backfillMinutes?: number;
  /** Minutes older than this are deleted, a bounded batch per run. Default 90 days; 0 keeps everything. */
  retentionDays?: number;
  logger?: PulseLogger;
}

export interface SnapshotJobStats {
  runs: number;
  rowsWritten: number;
  rowsPruned: number;
  errors: number;
  /** Minutes whose history held more outcomes than the store's copy, left as they were. */
  minutesKept: number;
  /** Times the store's epoch changed between runs: it restarted without its data. */
  storeRestarts: number;
  /** Clock time of the last run that finished without error; null before the first. */
  lastSuccessAt: number | null;
}

export interface SnapshotJob {
  /** One copy now; resolves with the rows written. Runs never overlap: a call during a run waits for it and runs after. */
  runOnce(): Promise<number>;
  readonly stats: SnapshotJobStats;
  /** Stops the timer and makes one last copy, so a graceful shutdown loses no minute. */
  stop(): Promise<void>;
}

// The embedded store answers at once, so without a turn of the event loop the read of every channel's minutes
// is one task of seconds on the first run's two hours. The turn comes by minutes read, not only channels: 200
// channels of the first run's 120 minutes were still too long a turn (docs/decisions/067-long-tasks-yield.md).
const channelsPerTurn = 200;
const minutesPerTurn = 2_000;

/** The channels' minutes in [from, now] that `wanted` keeps, filtered as read so the rest is never held. */
async function readMinutes(pulse: SnapshotJobOptions['pulse'], channels: string[], from: number, now: number, wanted: (row: MinuteSnapshot) => boolean): Promise<MinuteSnapshot[]> {
  const rows: MinuteSnapshot[] = [];
  let minutesThisTurn = 0;
  for (const channel of channels) {
    if (minutesThisTurn >= minutesPerTurn) {
      await setImmediate();
      minutesThisTurn = 0;
    }
    const minutes = await pulse.minutes(channel, { from, to: now });
    minutesThisTurn += minutes.length;
    for (const m of minutes) {
      const row = { channel, ...m };
      if (wanted(row)) rows.push(row);
    }
  }
  return rows;
}

/**
 * Counts history holds, by minute then channel: learnt from history on the first run, then from what the job
 * copies; a row history does not hold counts as empty. An empty minute read from the store is news only
 * where history holds outcomes for it (a failure upgraded a minute later empties its minute, maybe after a
 * restart of this process).
 */
class CopiedCounts {
  private readonly byMinute = new Map<number, Map<string, string>>();
  private learnt = false;

  /** Once: what history holds of these channels' minutes in [from, to], a bounded query per 200 channels. */
  async learn(history: HistoryStore, channels: string[], from: number, to: number): Promise<void> {
    if (this.learnt) return;
    for (let i = 0; i < channels.length; i += channelsPerTurn) {
      // PGlite answers in process: without a turn between them the queries ran back to back as one task.
      if (i > 0) await setImmediate();
      this.remember(await history.minutesOfChannels(channels.slice(i, i + channelsPerTurn), { from, to }), from);
    }
    this.learnt = true;
  }

  private static key(row: MinuteSnapshot): string {
    return `${row.success},${row.failure},${row.started}`;
  }

  changed(row: MinuteSnapshot): boolean {
    return (this.byMinute.get(row.minute)?.get(row.channel) ?? '0,0,0') !== CopiedCounts.key(row);
  }

  /** After a run that wrote every row: minutes before `oldestMinute` are never read again. */
  remember(rows: MinuteSnapshot[], oldestMinute: number): void {
    for (const row of rows) {
      let channels = this.byMinute.get(row.minute);
      if (!channels) this.byMinute.set(row.minute, (channels = new Map()));
      channels.set(row.channel, CopiedCounts.key(row));
    }
    for (const minute of this.byMinute.keys()) if (minute < oldestMinute) this.byMinute.delete(minute);
  }
}

function logStoreRestart(logger: SnapshotJobOptions['logger'], previousEpoch: string, epoch: { id: string; startedAt: number }): void {
  logger?.warn(
    { previousEpoch, epoch: epoch.id, epochStartedAt: new Date(epoch.startedAt).toISOString() },
    'paypulse: the live store restarted without its data; history keeps the minutes it had',
  );
}

export function startSnapshotJob(options: SnapshotJobOptions): SnapshotJob {
  const { pulse, history, clock, logger } = options;
  const intervalMs = options.intervalMs ?? 10_000;
  const lookbackMs = (options.lookbackMinutes ?? 10) * minuteMs;
  const backfillMs = (options.backfillMinutes ?? 120) * minuteMs;
  const retentionMs = (options.retentionDays ?? 90) * 24 * 3600_000;
  const stats: SnapshotJobStats = { runs: 0, rowsWritten: 0, rowsPruned: 0, errors: 0, minutesKept: 0, storeRestarts: 0, lastSuccessAt: null };
  let epochId: string | undefined;
  const copied = new CopiedCounts();
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;

  async function copy(): Promise<number> {
    try {
      return await copyMinutes();
    } catch (err) {
      stats.errors += 1;
      throw err;
    }
  }

  async function copyMinutes(): Promise<number> {
    const now = clock.now();
    const currentMinute = Math.floor(now / minuteMs) * minuteMs;
    const from = currentMinute - (stats.lastSuccessAt === null ? backfillMs : lookbackMs);
    const channels = await pulse.channels();
    await copied.learn(history, channels, from, now);
    const rows = await readMinutes(pulse, channels, from, now, (row) => copied.changed(row));
    // Read after the minutes: a store emptied before or during those reads answers with an epoch newer than them.
    const epoch = await pulse.storeEpoch();
    if (epochId !== undefined && epoch.id !== epochId) {
      stats.storeRestarts += 1;
      logStoreRestart(logger, epochId, epoch);
    }
    epochId = epoch.id;
    const complete = rows.filter((row) => row.minute >= epoch.completeFrom);
    const partial = rows.filter((row) => row.minute < epoch.completeFrom);
    const merged = await history.mergeMinutes(partial);
    const written = (await history.upsertMinutes(complete)) + merged.written;
    stats.minutesKept += merged.kept;
    copied.remember(rows, currentMinute - lookbackMs);
    if (retentionMs > 0) stats.rowsPruned += await history.prune(currentMinute - retentionMs);
    stats.runs += 1;
    stats.rowsWritten += written;
    stats.lastSuccessAt = now;
    return written;
  }

  function runOnce(): Promise<number> {
    const run = chain.then(copy);
    chain = run.catch(() => undefined);
    return run;
  }

  const timer = setInterval(() => {
    runOnce().catch((err: unknown) => {
      logger?.error({ err }, 'history snapshot failed; the next run retries the same minutes');
    });
  }, intervalMs);
  // The job must never keep a process alive on its own.
  timer.unref();

  return {
    runOnce,
    stats,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await runOnce();
    },
  };
}
