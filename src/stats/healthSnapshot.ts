// One periodic health snapshot per process: every channel's configured windows (and its known dims series),
// read once per interval. The stream, /v1/channels, the alert evaluator and the router's cache all read this
// snapshot, so the store's read load is one refresh per interval whatever the number of readers
// (docs/architecture.md, "One health snapshot").
// A store that answers in part (a Redis Cluster with a master down) gives a snapshot in part: the channels it
// read are fresh, the others keep their last values flagged `stale`, so readers act on the first and hold the
// second (docs/storage.md, "One master down").
import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { PartialStoreFailure } from '../store/ports/partialFailure.js';
import type { StatsStore, WindowCounts } from '../store/ports/stats.js';
import type { PulseLogger, Rate } from '../types.js';
import { toRate } from './rate.js';
import { parseWindow } from './windows.js';

export interface SeriesHealth {
  /** Absent for the channel itself. */
  dims?: Record<string, string>;
  /** The series id (`currency=BRL,method=card`); absent for the channel itself. */
  id?: string;
  /** By window label ('1m', '5m' …), each a full Rate. */
  rates: Record<string, Rate>;
}

export interface ChannelHealth extends SeriesHealth {
  channel: string;
  /** The channel's dims series known to this process, each with the same windows. */
  series: SeriesHealth[];
  /**
   * Present (true) when this refresh could not read the channel (its part of the store is down): its rates are
   * the last ones read, each flagged `stale` (zero counts when it was never read).
   */
  stale?: true;
}

export interface HealthSnapshot {
  /** Clock time the counts are for. */
  asOf: number;
  /** How long the reads took, in wall-clock ms. */
  durationMs: number;
  channels: ReadonlyMap<string, ChannelHealth>;
}

export interface SnapshotStatus {
  /** Clock time of the newest complete snapshot, or null before the first. */
  lastAsOf: number | null;
  /** The last refresh failed (store unreachable): readers hold the previous snapshot and must not act on it. */
  failing: boolean;
  /** A refresh took longer than the interval: the snapshot is older than promised. */
  overrun: boolean;
  /** Channels of the newest snapshot its refresh could not read (flagged stale in it); 0 when it read them all. */
  staleChannels: number;
  lastError?: string;
  /** Clock time the first refresh of the current outage failed; absent while refreshes succeed. */
  failingSince?: number;
}

/** Dims series a channel is known to have: `series` ids (`currency=BRL,method=card`) mapped to their dims. */
export interface SeriesSource {
  seriesOf(channel: string): Array<{ id: string; dims: Record<string, string> }>;
  /** Brings what is known of these channels up to date for the next read of them; never throws. */
  refresh?(channels: readonly string[]): Promise<void>;
}

export interface HealthSnapshotOptions {
  store: Pick<StatsStore, 'listChannels' | 'readWindowsMany'>;
  clock: Clock;
  /** Window labels every snapshot holds: the configured windows and whatever alerts and routing need. */
  windows: string[];
  minSamples: number;
  /** Channels seen within this long are in the snapshot (the dedup horizon). */
  horizonMs: number;
  intervalMs: number;
  series?: SeriesSource;
  logger?: PulseLogger;
  /** Channels per store read: the embedded store reads a chunk in one go, so it bounds an event-loop stall. */
  channelsPerRead?: number;
  /** Store reads in flight per refresh: enough to hide round trips, few enough not to flood the store. */
  readConcurrency?: number;
}

export interface HealthSnapshots {
  readonly windows: readonly string[];
  /** The newest complete snapshot, or undefined before the first refresh succeeded. */
  latest(): HealthSnapshot | undefined;
  status(): SnapshotStatus;
  /** Refreshes now (tests on virtual time call this instead of waiting for the timer). */
  refresh(): Promise<HealthSnapshot | undefined>;
  /** Called with each new complete snapshot; returns the unsubscribe function. */
  onSnapshot(listener: (snapshot: HealthSnapshot) => void): () => void;
  /** Called when refreshes start failing or succeed again (not on every failure); returns the unsubscribe function. */
  onFailingChange(listener: (status: SnapshotStatus) => void): () => void;
  start(): void;
  stop(): Promise<void>;
}

async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

interface ChunkReader {
  store: HealthSnapshotOptions['store'];
  /** The previous snapshot: what a channel the store cannot read now keeps, flagged stale. */
  previous: () => HealthSnapshot | undefined;
  series?: SeriesSource;
  windows: string[];
  windowsSec: number[];
  minSamples: number;
}

function ratesOf(reader: ChunkReader, channel: string, dims: Record<string, string> | undefined, counts: WindowCounts[], now: number): Record<string, Rate> {
  const rates: Record<string, Rate> = {};
  counts.forEach((c, i) => (rates[reader.windows[i]!] = toRate(channel, dims, reader.windows[i]!, c, reader.minSamples, now)));
  return rates;
}

// One store read for the chunk: each channel with its dims series.
// A chunk the store failed as a whole may be one whose channels all live on the node that is down: its channels
// are stale, and `failures` gets the error, which fails the refresh when no chunk was read at all.
async function readChunk(reader: ChunkReader, channels: string[], now: number, failures: unknown[]): Promise<ChannelHealth[]> {
  // The embedded store answers at once: without a turn of the event loop between chunks, a refresh over
  // every channel would be one long task, and requests (/healthz too) would wait for all of it.
  await setImmediate();
  // Series lists asked of the store now serve the next refresh: asked beside this read, not before it, so a slow
  // or partly unreachable store costs a refresh one round trip, not two. Awaited before the chunk ends (one in
  // flight a chunk); it never throws.
  const listed = reader.series?.refresh?.(channels);
  const known = channels.map((channel) => reader.series?.seriesOf(channel) ?? []);
  const reads = channels.map((channel, i) => ({ channel, series: ['', ...known[i]!.map((s) => s.id)] }));
  let counts: ReadonlyArray<WindowCounts[][] | undefined>;
  try {
    counts = await reader.store.readWindowsMany(reads, reader.windowsSec, now);
  } catch (err) {
    failures.push(err instanceof PartialStoreFailure ? err.firstError : err);
    counts = err instanceof PartialStoreFailure ? (err as PartialStoreFailure<WindowCounts[][]>).results : [];
  }
  await listed;
  return channels.map((channel, i) => {
    const read = counts[i];
    if (!read) return unreadChannel(reader, channel, known[i]!, now);
    return {
      channel,
      rates: ratesOf(reader, channel, undefined, read[0]!, now),
      series: known[i]!.map((s, j) => ({ dims: s.dims, id: s.id, rates: ratesOf(reader, channel, s.dims, read[j + 1]!, now) })),
    };
  });
}

const noCounts: WindowCounts = { success: 0, failure: 0, started: 0, pending: 0 };

/** A channel the store did not answer for: its last health, or zero counts, every rate flagged stale. */
function unreadChannel(reader: ChunkReader, channel: string, known: Array<{ id: string; dims: Record<string, string> }>, now: number): ChannelHealth {
  const last = reader.previous()?.channels.get(channel);
  if (last) return staleChannel(last);
  const zeros = reader.windows.map(() => noCounts);
  return staleChannel({
    channel,
    rates: ratesOf(reader, channel, undefined, zeros, now),
    series: known.map((s) => ({ dims: s.dims, id: s.id, rates: ratesOf(reader, channel, s.dims, zeros, now) })),
  });
}

/** A channel's health with every rate flagged stale: the values are the last read, not now's. */
export function staleChannel(health: ChannelHealth): ChannelHealth {
  const stale = (rates: ChannelHealth['rates']) => Object.fromEntries(Object.entries(rates).map(([w, r]) => [w, { ...r, stale: true }]));
  return { ...health, stale: true, rates: stale(health.rates), series: health.series.map((s) => ({ ...s, rates: stale(s.rates) })) };
}

/**
 * The channel list is one key, on one node of a cluster: while that node is down, the previous snapshot's
 * channels are read again (a channel first seen during that time joins once the list is readable). With no
 * previous snapshot there is nothing to read, and the refresh fails.
 */
async function channelNames(store: HealthSnapshotOptions['store'], previous: HealthSnapshot | undefined, sinceMs: number, now: number): Promise<string[]> {
  try {
    return await store.listChannels(sinceMs, now);
  } catch (err) {
    if (!previous) throw err;
    return [...previous.channels.keys()];
  }
}

/** Channels the refresh could not read; throws the first failure when it read none: the store is down as a whole. */
function countStale(healths: ChannelHealth[], failures: unknown[]): number {
  const stale = healths.reduce((n, h) => n + (h.stale ? 1 : 0), 0);
  if (stale > 0 && stale === healths.length) throw failures[0];
  return stale;
}

/** Logged when the snapshot starts or stops reading in part, not at every refresh. */
function logPartChange(logger: PulseLogger | undefined, before: number, now: number): void {
  if (now > 0 && before === 0) logger?.warn({ staleChannels: now }, 'paypulse: health snapshot read in part; the channels of the unreachable part are stale');
  if (now === 0 && before > 0) logger?.info({}, 'paypulse: health snapshot reads every channel again');
}

export function createHealthSnapshots(options: HealthSnapshotOptions): HealthSnapshots {
  const { store, clock, minSamples, horizonMs, intervalMs, logger } = options;
  const windows = [...new Set(options.windows)].sort((a, b) => parseWindow(a) - parseWindow(b));
  const windowsSec = windows.map(parseWindow);
  const concurrency = options.readConcurrency ?? 2;
  const channelsPerRead = options.channelsPerRead ?? 200;
  const reader: ChunkReader = { store, previous: () => latest, series: options.series, windows, windowsSec, minSamples };
  const listeners = new Set<(snapshot: HealthSnapshot) => void>();
  const failingListeners = new Set<(status: SnapshotStatus) => void>();
  let latest: HealthSnapshot | undefined;
  let status: SnapshotStatus = { lastAsOf: null, failing: false, overrun: false, staleChannels: 0 };
  let running: Promise<HealthSnapshot | undefined> | null = null;
  let timer: NodeJS.Timeout | undefined;

  async function takeSnapshot(): Promise<HealthSnapshot | undefined> {
    const started = performance.now();
    const now = clock.now();
    try {
      const names = await channelNames(store, latest, now - horizonMs, now);
      const chunks = Array.from({ length: Math.ceil(names.length / channelsPerRead) }, (_, i) => names.slice(i * channelsPerRead, (i + 1) * channelsPerRead));
      const failures: unknown[] = [];
      const healths = (await mapLimited(chunks, concurrency, (chunk) => readChunk(reader, chunk, now, failures))).flat();
      const staleChannels = countStale(healths, failures);
      const durationMs = performance.now() - started;
      latest = { asOf: now, durationMs, channels: new Map(healths.map((h) => [h.channel, h])) };
      const recovered = status.failing;
      if (recovered) logger?.info({}, 'paypulse: health snapshot readable again');
      logPartChange(logger, status.staleChannels, staleChannels);
      status = { lastAsOf: now, failing: false, overrun: durationMs > intervalMs, staleChannels };
      if (recovered) for (const listener of failingListeners) listener(status);
      // Past one chunk, each listener on a turn of its own: the stream's page, routing's first slice and the
      // name limits' learning each take milliseconds at 10,000 channels, and together with the last chunk's
      // read they were one task. A smaller snapshot is handed over at once, as it always was; either way the
      // refresh resolves once every listener has run.
      const snapshot = latest;
      const spread = chunks.length > 1;
      for (const listener of listeners) {
        if (spread) await setImmediate();
        listener(snapshot);
      }
      return snapshot;
    } catch (err) {
      // Logged once per outage, not once an interval.
      const started = !status.failing;
      if (started) logger?.warn({ err: (err as Error).message }, 'paypulse: health snapshot failed; keeping the last one');
      status = { ...status, failing: true, lastError: (err as Error).message, failingSince: status.failingSince ?? clock.now() };
      if (started) for (const listener of failingListeners) listener(status);
      return undefined;
    }
  }

  return {
    windows,
    latest: () => latest,
    status: () => status,
    // A refresh due while the previous one still runs joins it: a slow store never gets a pile of reads.
    refresh: () =>
      (running ??= takeSnapshot().finally(() => {
        running = null;
      })),
    onSnapshot(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onFailingChange(listener) {
      failingListeners.add(listener);
      return () => failingListeners.delete(listener);
    },
    start() {
      if (timer) return;
      timer = setInterval(() => void this.refresh(), intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
