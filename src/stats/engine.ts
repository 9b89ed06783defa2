// The success-rate engine behind `createPulse()`: validation, the coalescing recorder, and reads that
// fall back to the last known value (flagged stale) when the store cannot answer.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { StoreUnavailableError, ValidationError } from '../errors.js';
import { BoundedLru } from '../boundedLru.js';
import type { StatsStore } from '../store/ports/stats.js';
import type {
  FailedRequest,
  MinuteCounts,
  Outcome,
  PulseHealth,
  PulseLogger,
  SuccessRates,
  Rate,
  RecordManyResult,
  RecordResult,
  StoreEpochInfo,
  WindowQuery,
} from '../types.js';
import { NameLimits } from './nameLimits.js';
import { toRate } from './rate.js';
import { addRecords, noRecords, oneHot } from './recordResults.js';
import { Recorder } from './recorder.js';
import { SeriesPlan } from './series.js';
import type { DegradationSwitch } from './degradation.js';
import type { DurableSpill } from './spill/durableSpill.js';
import type { ResolvedSettings } from './settings.js';
import { assertChannel, assertOutcomes, type ValidationRules } from './validate.js';
import { parseWindow, windowSeconds } from './windows.js';

function queryError(field: string, reason: string): ValidationError {
  return new ValidationError([{ index: 0, field, reason }]);
}

export class SuccessRateEngine implements SuccessRates {
  readonly windows: string[];
  private readonly plan: SeriesPlan;
  private readonly rules: ValidationRules;
  private readonly recorder: Recorder;
  private readonly limits: NameLimits;
  /** Last value read per (channel, series, window): what reads answer with while the store is down. */
  private readonly lastKnown: BoundedLru<Rate>;
  private closed = false;
  /** The process's degradation switch, fed with every store write's verdict. */
  private readonly degradation: DegradationSwitch | undefined;
  /** The durable spill, whose refusals health() reports. */
  private readonly spill: DurableSpill | undefined;

  constructor(
    private readonly store: StatsStore,
    private readonly settings: ResolvedSettings,
    private readonly clock: Clock,
    private readonly logger?: PulseLogger,
    onBatch?: (size: number, ms: number) => void,
    durability: { spill?: DurableSpill; degradation?: DegradationSwitch } = {},
  ) {
    this.degradation = durability.degradation;
    this.spill = durability.spill;
    this.windows = settings.windows;
    this.plan = new SeriesPlan(settings.dimensions, settings.excusedCodes);
    this.rules = settings.restrictDims ? { allowedDims: this.plan.dimensionNames } : {};
    this.lastKnown = new BoundedLru<Rate>(clock, settings.lastKnownLimit);
    this.limits = new NameLimits({ ...settings, dimensionNames: this.plan.dimensionNames }, clock);
    this.recorder = new Recorder(store, settings, this.plan, clock, logger, onBatch, durability.spill, (failed) => this.degradation?.observe(failed));
  }

  async record(outcome: Outcome): Promise<RecordResult> {
    this.assertOpen();
    assertOutcomes([outcome], this.rules);
    this.limits.admit([outcome]);
    const [verdict] = await this.recorder.submit([outcome]);
    return oneHot(verdict);
  }

  async recordMany(outcomes: Outcome[]): Promise<RecordManyResult> {
    this.assertOpen();
    if (!Array.isArray(outcomes)) throw queryError('outcomes', 'must be an array');
    assertOutcomes(outcomes, this.rules);
    this.limits.admit(outcomes);
    return addRecords(noRecords(), await this.recorder.submit(outcomes));
  }

  async rate(channel: string, query: WindowQuery = {}): Promise<Rate> {
    assertChannel(channel);
    const window = query.window ?? '5m';
    const windowSec = this.windowLength(window);
    const series = this.plan.seriesFor(query.dims);
    const now = this.clock.now();
    return this.readOrLastKnown(`${channel}\n${series}\n${window}`, async () => {
      const [counts] = await this.store.readWindows(channel, series, [windowSec], now);
      return toRate(channel, query.dims, window, counts, this.settings.minSamples, now);
    });
  }

  /** Every configured window of one series in one store call (the service's channel list). */
  async ratesOf(channel: string, dims?: Record<string, string>): Promise<Rate[]> {
    assertChannel(channel);
    const series = this.plan.seriesFor(dims);
    const now = this.clock.now();
    try {
      const counts = await this.store.readWindows(channel, series, this.settings.windowsSec, now);
      return counts.map((c, i) => this.remember(`${channel}\n${series}\n${this.windows[i]}`,
        toRate(channel, dims, this.windows[i], c, this.settings.minSamples, now)));
    } catch (err) {
      return this.windows.map((w) => this.lastKnownOrThrow(`${channel}\n${series}\n${w}`, err));
    }
  }

  async lastN(channel: string, query: { n: number; dims?: Record<string, string> }): Promise<Rate> {
    assertChannel(channel);
    const n = query?.n;
    if (!Number.isSafeInteger(n) || n < 1 || n > this.settings.lastNMax) {
      throw queryError('n', `must be an integer from 1 to ${this.settings.lastNMax}`);
    }
    const series = this.plan.seriesFor(query.dims);
    const now = this.clock.now();
    const window = `last${n}`;
    return this.readOrLastKnown(`${channel}\n${series}\n${window}`, async () => {
      const { success, failure } = await this.store.readLastN(channel, series, n, now);
      return toRate(channel, query.dims, window, { success, failure, started: 0, pending: 0 }, this.settings.minSamples, now);
    });
  }

  async rates(query: { window?: string } = {}): Promise<Rate[]> {
    const window = query.window ?? '5m';
    this.windowLength(window);
    return Promise.all((await this.channels()).map((channel) => this.rate(channel, { window })));
  }

  async failures(channel: string, query: { window?: string; limit?: number } = {}): Promise<FailedRequest[]> {
    assertChannel(channel);
    const windowSec = this.windowLength(query.window ?? '5m');
    const limit = query.limit ?? 20;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw queryError('limit', 'must be an integer from 1 to 1000');
    const now = this.clock.now();
    const fromMs = windowSeconds(windowSec, now).fromSec * 1000;
    return this.guard(() => this.store.readFailures(channel, fromMs, now, limit));
  }

  async minutes(channel: string, query: { from: number; to: number; dims?: Record<string, string> }): Promise<MinuteCounts[]> {
    assertChannel(channel);
    const { from, to } = query;
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || to < from) {
      throw queryError('from', 'from and to must be epoch milliseconds with from <= to');
    }
    const now = this.clock.now();
    const oldest = now - this.settings.retentionMs + 60_000;
    const series = this.plan.seriesFor(query.dims);
    return this.guard(() => this.store.readMinutes(channel, series, Math.max(from, oldest), Math.min(to, now), now));
  }

  channels(): Promise<string[]> {
    const now = this.clock.now();
    return this.guard(() => this.store.listChannels(now - this.settings.horizonMs, now));
  }

  async storeEpoch(): Promise<StoreEpochInfo> {
    const { id, startedAt } = await this.guard(() => this.store.readEpoch(randomUUID(), this.clock.now()));
    return { id, startedAt, completeFrom: startedAt + this.settings.skewToleranceMs };
  }

  health(): PulseHealth {
    const s = this.recorder.stats;
    return {
      store: this.store.kind,
      strategy: this.settings.strategy,
      storeReachable: s.storeReachable,
      unreachableChannels: this.recorder.unreachableChannels,
      bufferedOutcomes: this.recorder.bufferedOutcomes,
      spilledOutcomes: this.recorder.spilledOutcomes,
      droppedOutcomes: s.droppedOutcomes,
      spillRefusedOutcomes: this.spill?.refusedOutcomes ?? 0,
      ...(this.spill?.refusing === undefined ? {} : { spillRefusing: this.spill.refusing }),
      staleOutcomes: s.staleOutcomes,
      storeErrors: s.storeErrors,
      batches: s.batches,
      lastBatchSize: s.lastBatchSize,
      degradationLevel: this.degradation?.level ?? 0,
      lastKnownRates: this.lastKnown.size,
      knownChannels: this.limits.knownChannels,
      ...this.limits.counts,
    };
  }

  /** Seen within the horizon by this process or at the last health snapshot; no store call. */
  knowsChannel(channel: string): boolean {
    return this.limits.knowsChannel(channel);
  }

  /** Channels the store lists (written by any process) count towards the channel limit. */
  learnChannels(names: Iterable<string>): void {
    this.limits.learnChannels(names);
  }

  /** Writes buffered outcomes now; false while the store still fails. */
  flushBuffer(): Promise<boolean> {
    return this.recorder.retryBuffer();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.recorder.flush();
    if (this.recorder.bufferedOutcomes > 0) {
      this.logger?.error({ lost: this.recorder.bufferedOutcomes }, 'paypulse: closed with buffered outcomes not written');
    }
    await this.store.close();
  }

  private windowLength(window: string): number {
    try {
      return parseWindow(window);
    } catch (err) {
      throw queryError('window', (err as Error).message);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('pulse is closed');
  }

  /**
   * A read of a name the store has never seen answers zeros: keeping that would let anyone grow this
   * process by reading made-up names, so only rates with something in them are kept (or ones already kept,
   * which go quiet). Past the horizon a last known value says nothing about now.
   */
  private remember(key: string, rate: Rate): Rate {
    const empty = rate.total === 0 && rate.started === 0 && rate.pending === 0;
    if (!empty || this.lastKnown.has(key)) this.lastKnown.set(key, rate, this.settings.horizonMs);
    return rate;
  }

  private lastKnownOrThrow(key: string, err: unknown): Rate {
    const last = this.lastKnown.get(key);
    if (!last) throw new StoreUnavailableError(err);
    return { ...last, stale: true };
  }

  private async readOrLastKnown(key: string, read: () => Promise<Rate>): Promise<Rate> {
    try {
      return this.remember(key, await read());
    } catch (err) {
      return this.lastKnownOrThrow(key, err);
    }
  }

  private async guard<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }
}
