// The write path. Concurrent `record` calls are coalesced: while one batch is at the store, new
// outcomes queue and go together in the next one, so a gateway calling `record` once per callback
// still pays one store round trip per batch (one script call per channel, pipelined).
// Fail open: when the store fails or is slower than its timeout, outcomes wait in a bounded
// buffer and the caller gets `buffered: 1` at once; the buffer is written when the store answers
// again (dedup makes a retry of a write that did land harmless). What overflows is dropped, counted
// and logged, never silently. With a data folder the buffer is the durable spill instead (spill/): the
// outcomes are fsync'd to a journal before `buffered` is answered, and replayed from it when the store is back.
// Once a write has failed, the store is known to be down: new outcomes go straight to the buffer, not to a store
// that would make each caller wait the timeout again, until the background retry (the probe) sees the store
// answer. A store can also fail in part: a Redis Cluster with one master down answers every channel but that
// master's. Then only the unanswered channels are down (downChannels.ts).
import type { Clock } from '../clock.js';
import { PartialStoreFailure } from '../store/ports/partialFailure.js';
import { RecordCode, StatusCode, type StatsStore, type StoredOutcome } from '../store/ports/stats.js';
import type { Outcome, PulseLogger } from '../types.js';
import { nextBatchSize } from './batchSize.js';
import { DownChannels } from './downChannels.js';
import { hashId } from './hash.js';
import type { RecordVerdict } from './recordResults.js';
import type { SeriesPlan } from './series.js';
import type { DurableSpill } from './spill/durableSpill.js';
import { sightingsOf } from './sightings.js';
import type { ResolvedSettings } from './settings.js';

/** One submit() call: its results fill in as its outcomes' batches finish. */
interface Call {
  verdicts: RecordVerdict[];
  remaining: number;
  resolve: (verdicts: RecordVerdict[]) => void;
}

interface Item {
  channel: string;
  stored: StoredOutcome;
  /** What the caller sent: the durable spill keeps the public shape, which outlives an upgrade. */
  outcome?: Outcome;
  /** Absent for outcomes retried from the buffer: their caller already got `buffered`. */
  call?: Call;
  index?: number;
}

function settle(item: Item, verdict: RecordVerdict): void {
  const call = item.call;
  if (!call) return;
  call.verdicts[item.index!] = verdict;
  if (--call.remaining === 0) call.resolve(call.verdicts);
}

const statusCodes = { pending: StatusCode.Pending, failure: StatusCode.Failure, success: StatusCode.Success };
/** Store time an outcome may fairly take: several times Redis's (docs/decisions/090-record-batches-and-calls.md). */
const perOutcomeAllowanceMs = 0.02;
/** Batches at the store at once. */
const maxInFlight = 4;
/** The store's per-outcome codes, in RecordCode order. */
const verdictOfCode: readonly RecordVerdict[] = ['accepted', 'duplicate', 'corrected'];

export interface RecorderStats {
  storeReachable: boolean;
  storeErrors: number;
  droppedOutcomes: number;
  batches: number;
  lastBatchSize: number;
  staleOutcomes: number;
}

export class Recorder {
  private queue: Item[] = [];
  private buffer: Item[] = [];
  private scheduled = false;
  private inFlight = 0;
  private outcomesAtStore = 0;
  private idleWaiters: Array<() => void> = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly downChannels: DownChannels;
  readonly stats: RecorderStats = {
    storeReachable: true,
    storeErrors: 0,
    droppedOutcomes: 0,
    batches: 0,
    lastBatchSize: 0,
    staleOutcomes: 0,
  };

  constructor(
    private readonly store: StatsStore,
    private readonly settings: ResolvedSettings,
    private readonly plan: SeriesPlan,
    private readonly clock: Clock,
    private readonly logger: PulseLogger | undefined,
    /** Called after each written batch with its size and duration, for metrics. */
    private readonly onBatch?: (size: number, ms: number) => void,
    private readonly spill?: DurableSpill,
    /** Called with each store write's verdict, for the degradation switch. */
    private readonly onStoreCall?: (failed: boolean) => void,
  ) {
    this.downChannels = new DownChannels(logger);
    // What an earlier process spilled goes to the store as soon as it answers.
    if (spill && spill.pendingOutcomes > 0) this.scheduleRetry();
  }

  /** Outcomes in the durable spill, waiting for the store. */
  get spilledOutcomes(): number {
    return this.spill?.pendingOutcomes ?? 0;
  }

  /** Channels the store did not answer while it answered others (a cluster master down); 0 when whole. */
  get unreachableChannels(): number {
    return this.downChannels.size;
  }

  get bufferedOutcomes(): number {
    return this.buffer.length;
  }

  /** Outcomes must be validated already. Resolves once every one is written or buffered. */
  submit(outcomes: Outcome[]): Promise<RecordVerdict[]> {
    // One promise per call, not per outcome: a batch of thousands would otherwise cost as much in
    // promise bookkeeping as in the store.
    return new Promise((resolve) => {
      const call: Call = { verdicts: new Array(outcomes.length), remaining: outcomes.length, resolve };
      if (outcomes.length === 0) resolve([]);
      outcomes.forEach((o, index) => {
        this.queue.push({
          channel: o.channel,
          stored: this.toStored(o),
          outcome: o,
          call,
          index,
        });
      });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // A microtask lets every record() of the current tick join the same batch.
    queueMicrotask(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /**
   * Starts batches while fewer than `maxInFlight` are at the store: several in flight keep the gateway and Redis
   * busy; order is still kept, as one connection delivers commands in order and a channel's script is atomic.
   */
  private pump(): void {
    while (this.inFlight < maxInFlight && this.queue.length > 0) {
      // Buffered outcomes go first: they are older, and order matters (pending before success).
      const batch = this.queue.splice(0, nextBatchSize(this.queue, this.settings.maxBatch, maxInFlight - this.inFlight));
      const room = this.settings.maxBatch - batch.length;
      // Not while some channels are down: theirs would go back to the buffer behind newer outcomes.
      if (room > 0 && this.stats.storeReachable && this.downChannels.size === 0 && this.buffer.length > 0) batch.unshift(...this.buffer.splice(0, room));
      this.inFlight++;
      void this.writeBatch(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
    if (this.inFlight === 0 && this.queue.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Resolves when nothing is queued or at the store. */
  private idle(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Writes one batch; false when any of it had to be buffered. `probe`: the batch is the background
   * retry's, the one write that may go to a store known to be down.
   */
  private async writeBatch(batch: Item[], probe = false): Promise<boolean> {
    const now = this.clock.now();
    const started = performance.now();
    const byChannel = new Map<string, Item[]>();
    for (const item of batch) {
      const { at } = item.stored;
      // Too old for every window (and the dedup horizon), or further ahead than clock skew explains.
      if (at < now - this.settings.horizonMs || at > now + this.settings.skewToleranceMs) {
        this.stats.staleOutcomes++;
        settle(item, 'stale');
        continue;
      }
      const list = byChannel.get(item.channel);
      if (list) list.push(item);
      else byChannel.set(item.channel, [item]);
    }
    if (byChannel.size === 0) return true;
    if (!this.stats.storeReachable && !probe) {
      const reason = 'store known to be down';
      // Not asked, but unusable: the degradation switch counts it as a failed call, or an outage would read as calm.
      this.onStoreCall?.(true);
      await Promise.all([...byChannel.values()].map((items) => this.holdItems(items, reason, false)));
      return false;
    }
    if (!probe && this.downChannels.size > 0) {
      await Promise.all(this.downChannels.takeFrom(byChannel).map((items) => this.holdItems(items, 'its store node is down', false, false)));
      if (byChannel.size === 0) return false;
    }
    let ok = true;
    const channels = [...byChannel.keys()];
    // The timeout detects a store that is down or stalled, not a big batch: on top of the base, each
    // outcome already at the store (this batch and those ahead of it) adds the time it fairly takes.
    this.outcomesAtStore += batch.length;
    const timeoutMs = this.settings.recordTimeoutMs + Math.ceil(this.outcomesAtStore * perOutcomeAllowanceMs);
    const lists = channels.map((channel) => byChannel.get(channel)!);
    const batches = channels.map((channel, c) => ({ channel, outcomes: lists[c]!.map((i) => i.stored) }));
    const write = this.store.recordBatches(batches, now, timeoutMs).then<void, void>(
      (codes) => {
        this.onStoreCall?.(false);
        lists.forEach((items, c) => items.forEach((item, i) => settle(item, verdictOfCode[codes[c]![i]!] ?? 'accepted')));
        this.downChannels.answered(channels);
      },
      async (err: unknown) => {
        ok = false;
        if (err instanceof PartialStoreFailure) return this.writtenInPart(channels, lists, err as PartialStoreFailure<RecordCode[]>);
        this.onStoreCall?.(true);
        // Every call failed: the store is down (kept per channel for the spill's check).
        await Promise.all(lists.map((items) => this.holdItems(items, err)));
      },
    );
    const touch = this.store.touchChannels(sightingsOf(batches), now, timeoutMs).catch(() => undefined);
    await Promise.all([write, touch]);
    this.outcomesAtStore -= batch.length;
    this.stats.batches++;
    this.stats.lastBatchSize = batch.length;
    this.onBatch?.(batch.length, performance.now() - started);
    if (ok && !this.stats.storeReachable) this.reachableAgain();
    if (ok && (this.buffer.length > 0 || this.spilledOutcomes > 0)) this.scheduleRetry();
    return ok;
  }

  private reachableAgain(): void {
    this.stats.storeReachable = true;
    this.logger?.info({ buffered: this.buffer.length }, 'paypulse: store reachable again, writing buffered outcomes');
  }

  /**
   * A write the store answered for some channels only: those are settled as usual and marked up; the others
   * are down, their outcomes buffered. The store as a whole stays reachable, and the degradation switch
   * hears a success: the switch moves every store call, and most of the store answers.
   */
  private async writtenInPart(channels: string[], lists: Item[][], err: PartialStoreFailure<RecordCode[]>): Promise<void> {
    this.onStoreCall?.(false);
    this.stats.storeErrors++;
    lists.forEach((items, c) => items.forEach((item, i) => err.results[c] && settle(item, verdictOfCode[err.results[c]![i]!] ?? 'accepted')));
    this.downChannels.answered(channels.filter((_, c) => err.results[c]));
    if (!this.stats.storeReachable) this.reachableAgain();
    this.downChannels.down(channels.filter((_, c) => !err.results[c]), err.firstError);
    await Promise.all(lists.filter((_, c) => !err.results[c]).map((items) => this.holdItems(items, err.firstError, false, false)));
  }

  /**
   * To the spill when it can take them (every item has its public shape), else to the memory buffer.
   * `storeFailed`: the store was asked (a store error); `wholeStore`: the store is down, not a part of it.
   */
  private async holdItems(items: Item[], reason: unknown, storeFailed = true, wholeStore = true): Promise<void> {
    if (this.spill && items.every((i) => i.outcome)) return this.spillFailed(items, reason, storeFailed, wholeStore);
    this.bufferFailed(items, reason, storeFailed, wholeStore);
  }

  /** Durable first: `buffered` is answered only once the journal has the outcomes on disk. */
  private async spillFailed(items: Item[], err: unknown, storeFailed = true, wholeStore = true): Promise<void> {
    if (wholeStore) this.noteUnreachable(err, storeFailed);
    try {
      await this.spill!.spill(items.map((i) => i.outcome!));
    } catch {
      // A full journal or a failing disk: the bounded memory buffer is what is left (the spill logs it).
      this.bufferFailed(items, err, false, wholeStore);
      return;
    }
    for (const item of items) settle(item, 'buffered');
    this.scheduleRetry();
  }

  /** `storeFailed` false: buffered without asking a store known to be down, so no new store error. */
  private noteUnreachable(err: unknown, storeFailed = true): void {
    if (storeFailed) this.stats.storeErrors++;
    if (this.stats.storeReachable) {
      this.stats.storeReachable = false;
      this.logger?.warn({ err: String(err) }, 'paypulse: store unavailable, buffering outcomes (fail open)');
    }
  }

  /** Journal outcomes straight to the store, grouped by channel; false at the first store failure. */
  private async writeSpilled(outcomes: Outcome[]): Promise<boolean> {
    const now = this.clock.now();
    const byChannel = new Map<string, StoredOutcome[]>();
    for (const o of outcomes) {
      if (o.at < now - this.settings.horizonMs || o.at > now + this.settings.skewToleranceMs) {
        this.stats.staleOutcomes++;
        continue;
      }
      const list = byChannel.get(o.channel) ?? [];
      if (list.length === 0) byChannel.set(o.channel, list);
      list.push(this.toStored(o));
    }
    const channels = [...byChannel.keys()];
    const timeoutMs = this.settings.recordTimeoutMs + Math.ceil(outcomes.length * perOutcomeAllowanceMs);
    try {
      const batches = [...byChannel].map(([channel, outcomes]) => ({ channel, outcomes }));
      await this.store.recordBatches(batches, now, timeoutMs);
      await this.store.touchChannels(sightingsOf(batches), now, timeoutMs).catch(() => undefined);
      this.onStoreCall?.(false);
      this.downChannels.answered(channels);
      return true;
    } catch (err) {
      // In part: the journal keeps the whole file, and what did land comes back a duplicate next time.
      if (err instanceof PartialStoreFailure) {
        this.onStoreCall?.(false);
        this.downChannels.answered(channels.filter((_, c) => err.results[c]));
      } else this.onStoreCall?.(true);
      return false;
    }
  }

  private toStored(o: Outcome): StoredOutcome {
    return {
      requestId: o.requestId,
      status: statusCodes[o.status],
      at: o.at,
      code: o.code ?? '',
      series: this.plan.storedSeriesOf(o.dims, o.status === 'failure' ? o.code : undefined),
      hash: hashId(o.requestId),
    };
  }

  private bufferFailed(items: Item[], err: unknown, storeFailed = true, wholeStore = true): void {
    if (wholeStore) this.noteUnreachable(err, storeFailed);
    const room = this.settings.bufferLimit - this.buffer.length;
    const kept = items.slice(0, Math.max(0, room));
    const dropped = items.length - kept.length;
    for (const item of kept) {
      settle(item, 'buffered');
      this.buffer.push({ channel: item.channel, stored: item.stored, outcome: item.outcome });
    }
    if (dropped > 0) {
      this.stats.droppedOutcomes += dropped;
      this.logger?.error({ dropped, bufferLimit: this.settings.bufferLimit }, 'paypulse: outcome buffer full, outcomes dropped');
      for (const item of items.slice(kept.length)) settle(item, 'dropped');
    }
    this.scheduleRetry();
  }

  /** Retries the buffer on a timer too, so a quiet gateway still writes it once the store is back. */
  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.retryBuffer();
    }, 500);
    this.retryTimer.unref();
  }

  /**
   * Writes buffered (and spilled) outcomes; true when both are empty afterwards. This is the probe of a store
   * known to be down: the first batch tries it; with nothing buffered (all dropped), a channel list read does.
   */
  async retryBuffer(): Promise<boolean> {
    await this.idle();
    const spilled = this.spill !== undefined && this.spill.pendingOutcomes > 0;
    if (this.buffer.length === 0 && !spilled && !this.stats.storeReachable) return this.probeStore();
    while (this.buffer.length > 0) {
      if (!(await this.writeBatch(this.buffer.splice(0, this.settings.maxBatch), true))) return false;
    }
    if (this.spill && this.spill.pendingOutcomes > 0) {
      const emptied = await this.spill.replay((outcomes) => this.writeSpilled(outcomes));
      if (!emptied) this.scheduleRetry();
      return emptied;
    }
    return true;
  }

  private async probeStore(): Promise<boolean> {
    const now = this.clock.now();
    try {
      await this.store.listChannels(now, now);
    } catch {
      this.scheduleRetry();
      return false;
    }
    this.stats.storeReachable = true;
    this.logger?.info({ buffered: 0 }, 'paypulse: store reachable again, writing buffered outcomes');
    return true;
  }

  /** Waits for queued outcomes and tries the buffer once more (close, graceful shutdown). */
  async flush(): Promise<void> {
    await this.idle();
    if (this.buffer.length > 0) await this.retryBuffer();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.spill?.close();
  }
}
