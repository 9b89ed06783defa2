// The embedded engine of the success-rate port: the default for a single process without Redis.
// It follows the Redis scripts step by step (includes/outcome.lua is the reference), so both engines
// pass one conformance suite. `strategy` only changes the Redis layout, so it is ignored here.
import { randomUUID } from 'node:crypto';
import type { FailedRequest, MinuteCounts } from '../../types.js';
import {
  RecordCode,
  StatusCode,
  seriesSeenMax,
  type ChannelBatch,
  type ChannelSighting,
  type SeenSeries,
  type ChannelSeries,
  type EngineSettings,
  type StatsStore,
  type StoreEpoch,
  type StoredOutcome,
  type WindowCounts,
} from '../ports/stats.js';
import { SecondCounters, type CountField } from './counters.js';
import { SortedList } from './sorted.js';

interface RequestState {
  status: StatusCode;
  at: number;
  started: boolean;
  /** The series its outcome is counted in: a later outcome takes the count back from these, whatever its dims. */
  series: readonly string[];
}

interface PendingInfo {
  series: readonly string[];
}

class ChannelData {
  readonly ledger = new Map<string, RequestState>();
  readonly pending = new SortedList(); // id → deadline
  readonly pendingInfo = new Map<string, PendingInfo>();
  readonly failures = new SortedList(); // `<id>\t<code>` → at
  readonly failureMember = new Map<string, string>(); // id → its member in `failures`
  readonly lastN = new Map<string, SortedList>(); // series → id → at * 2 + success
  readonly counters = new Map<string, SecondCounters>(); // series → counts
  prunedAt = 0;

  countersOf(series: string): SecondCounters {
    let c = this.counters.get(series);
    if (!c) this.counters.set(series, (c = new SecondCounters()));
    return c;
  }

  lastNOf(series: string): SortedList {
    let l = this.lastN.get(series);
    if (!l) this.lastN.set(series, (l = new SortedList()));
    return l;
  }
}

function windowCounts(d: ChannelData | undefined, series: string, windowsSec: number[], now: number): WindowCounts[] {
  const counters = d?.counters.get(series);
  const toSec = Math.floor(now / 1000);
  return windowsSec.map((w) => {
    const c = counters?.sum(toSec - w + 1, toSec) ?? { s: 0, f: 0, p: 0, o: 0 };
    return { success: c.s, failure: c.f, started: c.p, pending: c.o };
  });
}

export class MemoryStatsStore implements StatsStore {
  readonly kind = 'memory' as const;
  private readonly channels = new Map<string, ChannelData>();
  private readonly lastSeen = new Map<string, number>();
  /** channel → its dims series → last seen ms (`listSeries`). */
  private readonly seriesSeen = new Map<string, Map<string, number>>();
  /** This process's memory is the store: its epoch begins at the first call and ends with the process. */
  private epoch: StoreEpoch | undefined;

  constructor(private readonly settings: EngineSettings) {}

  async readEpoch(newId: string, now: number): Promise<StoreEpoch> {
    this.epoch ??= { id: newId, startedAt: now };
    return this.epoch;
  }

  private beginEpoch(now: number): void {
    this.epoch ??= { id: randomUUID(), startedAt: now };
  }

  private data(channel: string): ChannelData {
    let d = this.channels.get(channel);
    if (!d) this.channels.set(channel, (d = new ChannelData()));
    return d;
  }

  /**
   * A channel's data brought up to `now` for a read, or undefined for a channel never written: a read
   * must not create state, or reads of made-up names would grow the process without limit.
   */
  private readable(channel: string, now: number): ChannelData | undefined {
    const d = this.channels.get(channel);
    if (d) new ChannelOp(d, this.settings, now).sweepAndFinish();
    return d;
  }

  /** Channels holding state (a health figure, for tests: reads must not add to it). */
  get channelCount(): number {
    return this.channels.size;
  }

  async recordBatch(channel: string, outcomes: StoredOutcome[], now: number, _timeoutMs?: number): Promise<RecordCode[]> {
    this.beginEpoch(now);
    const op = new ChannelOp(this.data(channel), this.settings, now);
    op.sweepTimeouts();
    const codes = outcomes.map((o) => op.apply(o));
    op.finish();
    return codes;
  }

  async recordBatches(batches: ChannelBatch[], now: number): Promise<RecordCode[][]> {
    return Promise.all(batches.map((b) => this.recordBatch(b.channel, b.outcomes, now)));
  }

  async readWindows(channel: string, series: string, windowsSec: number[], now: number): Promise<WindowCounts[]> {
    return windowCounts(this.readable(channel, now), series, windowsSec, now);
  }

  async readWindowsMany(reads: ChannelSeries[], windowsSec: number[], now: number): Promise<WindowCounts[][][]> {
    return reads.map(({ channel, series }) => {
      const d = this.readable(channel, now);
      return series.map((s) => windowCounts(d, s, windowsSec, now));
    });
  }

  async readLastN(channel: string, series: string, n: number, now: number) {
    const list = this.readable(channel, now)?.lastN.get(series);
    if (!list) return { success: 0, failure: 0 };
    const newest = list.reverseRange(now * 2 + 1, (now - this.settings.horizonMs) * 2, n);
    const success = newest.filter(([, score]) => score % 2 === 1).length;
    return { success, failure: newest.length - success };
  }

  async readFailures(channel: string, fromMs: number, now: number, limit: number): Promise<FailedRequest[]> {
    const d = this.readable(channel, now);
    if (!d) return [];
    return d.failures.reverseRange(now, fromMs, limit).map(([member, at]) => {
      const [requestId, code] = member.split('\t');
      return code ? { requestId, at, code } : { requestId, at };
    });
  }

  async readMinutes(channel: string, series: string, fromMs: number, toMs: number, now: number): Promise<MinuteCounts[]> {
    const counters = this.readable(channel, now)?.counters.get(series);
    const out: MinuteCounts[] = [];
    for (let minute = Math.ceil(fromMs / 60_000); minute <= Math.floor(toMs / 60_000); minute++) {
      const c = counters?.minute(minute) ?? { s: 0, f: 0, p: 0 };
      out.push({ minute: minute * 60_000, success: c.s, failure: c.f, started: c.p });
    }
    return out;
  }

  async touchChannels(sightings: ChannelSighting[], now: number): Promise<void> {
    for (const { channel, series } of sightings) {
      this.lastSeen.set(channel, now);
      if (series.length > 0) this.markSeries(channel, series, now);
    }
  }

  async listChannels(sinceMs: number): Promise<string[]> {
    return [...this.lastSeen].filter(([, seen]) => seen >= sinceMs).map(([c]) => c).sort();
  }

  async listSeries(channels: string[], sinceMs: number): Promise<SeenSeries[][]> {
    return channels.map((channel) => {
      const seen = [...(this.seriesSeen.get(channel) ?? [])].filter(([, at]) => at >= sinceMs).map(([series, lastSeenMs]) => ({ series, lastSeenMs }));
      return seen.sort((a, b) => a.lastSeenMs - b.lastSeenMs || (a.series < b.series ? -1 : 1));
    });
  }

  /** seriesMark-1.lua's steps: the series at `now` (never moved back); when one is new, trimmed by the horizon and by count. */
  private markSeries(channel: string, series: readonly string[], now: number): void {
    let seen = this.seriesSeen.get(channel);
    if (!seen) this.seriesSeen.set(channel, (seen = new Map()));
    const size = seen.size;
    for (const id of series) seen.set(id, Math.max(seen.get(id) ?? now, now));
    if (seen.size === size) return;
    const oldest = now - this.settings.horizonMs;
    for (const [id, at] of seen) if (at < oldest) seen.delete(id);
    if (seen.size > seriesSeenMax) {
      const byAge = [...seen].sort(([a, x], [b, y]) => x - y || (a < b ? -1 : 1));
      for (const [id] of byAge.slice(0, seen.size - seriesSeenMax)) seen.delete(id);
    }
  }

  async close(): Promise<void> {
    this.channels.clear();
  }
}

/** One call's work on one channel at `now`: the counterpart of one Lua script run. */
class ChannelOp {
  private readonly forgetBefore: number;
  private readonly keepFrom: number;
  private readonly touchedLastN = new Set<SortedList>();
  private failuresTouched = false;

  constructor(
    private readonly d: ChannelData,
    private readonly s: EngineSettings,
    private readonly now: number,
  ) {
    this.forgetBefore = now - s.horizonMs;
    this.keepFrom = now - s.retentionMs;
  }

  private count(series: readonly string[], atMs: number, field: CountField, delta: number): void {
    if (atMs < this.keepFrom) return;
    for (const one of series) this.d.countersOf(one).add(atMs, field, delta);
  }

  private lookup(id: string): RequestState | undefined {
    const state = this.d.ledger.get(id);
    return state && state.at >= this.forgetBefore ? state : undefined;
  }

  /** Re-inserting keeps the ledger in update order, so pruning from its front finds the oldest. */
  private save(id: string, state: RequestState): void {
    this.d.ledger.delete(id);
    this.d.ledger.set(id, state);
  }

  private addTerminal(id: string, series: readonly string[], status: StatusCode, at: number, code: string, started: boolean) {
    this.save(id, { status, at, started, series });
    this.count(series, at, status === StatusCode.Success ? 's' : 'f', 1);
    const score = at * 2 + (status === StatusCode.Success ? 1 : 0);
    for (const one of series) {
      const list = this.d.lastNOf(one);
      list.add(id, score);
      this.touchedLastN.add(list);
    }
    if (status === StatusCode.Failure) {
      const member = `${id}\t${code}`;
      this.d.failures.add(member, at);
      this.d.failureMember.set(id, member);
      this.failuresTouched = true;
    }
  }

  private removeFailure(id: string, series: readonly string[], at: number): void {
    this.count(series, at, 'f', -1);
    for (const one of series) this.d.lastNOf(one).remove(id);
    const member = this.d.failureMember.get(id);
    if (member !== undefined) this.d.failures.remove(member);
    this.d.failureMember.delete(id);
  }

  private startPending(o: StoredOutcome): void {
    this.save(o.requestId, { status: StatusCode.Pending, at: o.at, started: true, series: o.series });
    this.count(o.series, o.at, 'p', 1);
    this.count(o.series, o.at, 'o', 1);
    this.d.pending.add(o.requestId, o.at + this.s.pendingTimeoutMs);
    this.d.pendingInfo.set(o.requestId, { series: o.series });
  }

  private resolvePending(id: string, series: readonly string[], pendingAt: number): void {
    this.count(series, pendingAt, 'o', -1);
    this.d.pending.remove(id);
    this.d.pendingInfo.delete(id);
  }

  apply(o: StoredOutcome): RecordCode {
    const state = this.lookup(o.requestId);
    if (o.status === StatusCode.Pending) {
      if (!state) {
        this.startPending(o);
        return RecordCode.Accepted;
      }
      if (state.status === StatusCode.Pending || state.started) return RecordCode.Duplicate;
      this.save(o.requestId, { ...state, started: true });
      this.count(o.series, o.at, 'p', 1);
      return RecordCode.Accepted;
    }
    if (!state) {
      this.addTerminal(o.requestId, o.series, o.status, o.at, o.code, false);
      return RecordCode.Accepted;
    }
    if (state.status === StatusCode.Pending) {
      this.resolvePending(o.requestId, state.series, state.at);
      this.addTerminal(o.requestId, o.series, o.status, o.at, o.code, true);
      return RecordCode.Accepted;
    }
    if (state.status === StatusCode.Failure && o.status === StatusCode.Success) {
      this.removeFailure(o.requestId, state.series, state.at);
      this.addTerminal(o.requestId, o.series, StatusCode.Success, o.at, '', state.started);
      return RecordCode.Corrected;
    }
    return RecordCode.Duplicate;
  }

  /** Pending requests past their deadline become failures `timeout` at the deadline. */
  sweepTimeouts(): void {
    for (const [id, deadline] of this.d.pending.rangeUpTo(this.now, Infinity)) {
      const info = this.d.pendingInfo.get(id);
      const state = this.lookup(id);
      if (info && state?.status === StatusCode.Pending) {
        this.resolvePending(id, info.series, state.at);
        this.addTerminal(id, info.series, StatusCode.Failure, deadline, 'timeout', true);
      } else {
        this.d.pending.remove(id);
        this.d.pendingInfo.delete(id);
      }
    }
  }

  finish(): void {
    for (const list of this.touchedLastN) list.trim(this.forgetBefore * 2, this.s.lastNMax);
    if (this.failuresTouched) this.d.failures.trim(this.forgetBefore, this.s.failuresMax);
    this.prune();
  }

  sweepAndFinish(): void {
    this.sweepTimeouts();
    this.finish();
  }

  /** Drops what no read can see any more; at most once a minute, since it walks whole maps. */
  private prune(): void {
    if (this.now - this.d.prunedAt < 60_000) return;
    this.d.prunedAt = this.now;
    // Past the horizon a request is forgotten anyway (lookup); its pending entry, if any, the sweep drops.
    for (const [id, state] of this.d.ledger) {
      if (state.at >= this.forgetBefore - this.s.skewToleranceMs) break;
      this.d.ledger.delete(id);
    }
    for (const [id, member] of this.d.failureMember) {
      if (this.d.failures.score(member) === undefined) this.d.failureMember.delete(id);
    }
    for (const counters of this.d.counters.values()) counters.prune(this.keepFrom);
  }
}
