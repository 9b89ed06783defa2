// The Redis engine of the success-rate port: one Lua call per channel and operation, except the record of
// many channels' batches (recordCalls.ts) and the read of many channels' windows (one call per 50
// channels), each per node on a cluster. Each call runs its operation's script of the strategy
// (strategies.ts): `lua/<strategy>/<operation>-1.lua`.
import { StoreUnavailableError } from '../../errors.js';
import type { FailedRequest, MinuteCounts } from '../../types.js';
import { channelPrefix, channelsKey, epochKey } from '../keys/stats.js';
import { clusterSlot } from '../keys/clusterSlot.js';
import { type ChannelBatch, type ChannelSeries, type ChannelSighting, type SeenSeries, type EngineSettings, type RecordCode, type StatsStore, type StoreEpoch, type StoredOutcome, type WindowCounts } from '../ports/stats.js';
import { channelListArgs, channelScriptArgs } from './layouts.js';
import { FailoverReplay } from './failoverReplay.js';
import { settleCalls } from '../ports/partialFailure.js';
import type { RedisArg, RedisConnection, RedisReply } from './connection.js';
import { PackWriter } from './msgpack.js';
import { AHEAD_SECONDS, FRESH_SECONDS, MAX_GAP_SECONDS, WindowsCarry } from './windowsCarry.js';
import { LedgerSplitHints, packRecordPart, recordManyLimits } from './recordCalls.js';
import { groupBySlot, nodeCalls, slotMoved } from './nodeCalls.js';
import { loadScript, type LuaScript } from './scripts.js';
import { redisStrategy, type RedisStrategy } from './strategies.js';
import { ChannelTouches, touchIntervalMs } from './channelTouches.js';
import { RedisSeriesMarks } from './seriesMarks.js';

/** A read's answer when its channel has timeouts due, which only the strategy's `sweep` script writes. */
const SWEEP = 'sweep';
/** Sweeps one read waits for before it gives up: each writes up to 2,000 due timeouts (outcome.lua). */
const MAX_SWEEPS = 64;

/** A record call's reply: one digit per outcome (read by char code: a batch's reply is thousands of them). */
function codesOf(reply: RedisReply | undefined): RecordCode[] {
  const text = String(reply);
  const codes = new Array<RecordCode>(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = (text.charCodeAt(i) - 48) as RecordCode;
  return codes;
}

/** `count` windows' counts from a `windows` reply, four numbers each, starting at window `first`. */
function windowsOf(reply: number[], first: number, count: number): WindowCounts[] {
  return Array.from({ length: count }, (_, w) => {
    const at = (first + w) * 4;
    return { success: reply[at]!, failure: reply[at + 1]!, started: reply[at + 2]!, pending: reply[at + 3]! };
  });
}

export class RedisStatsStore implements StatsStore {
  readonly kind: 'redis' | 'redis-cluster';
  private readonly strategy: RedisStrategy;
  private readonly epochScript = loadScript('storeEpoch-1.lua');
  /** The health snapshot's reads, carried from one second to the next (windowsCarry.ts). */
  private readonly carry = new WindowsCarry();
  private readonly splitHints = new LedgerSplitHints();
  private readonly touches: ChannelTouches;
  private readonly seriesMarks: RedisSeriesMarks;
  /** Sentinel only: recent batches, written again to a new primary (see failoverReplay.ts). */
  private readonly replay: FailoverReplay | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly settings: EngineSettings,
    /**
     * Channels per window-read call: a call, even one reading each channel whole, must answer within the
     * command timeout (1 s) behind the others in flight on a busy server (docs/decisions/065-snapshot-carried-reads.md).
     */
    private readonly channelsPerCall = 50,
  ) {
    this.kind = redis.isCluster ? 'redis-cluster' : 'redis';
    this.strategy = redisStrategy(settings.strategy);
    this.touches = new ChannelTouches(touchIntervalMs(settings.horizonMs));
    redis.onReady(() => this.touches.forgetAll());
    this.seriesMarks = new RedisSeriesMarks(redis, settings, { nodeOf: (c) => this.nodeOf(c), slotOf: (c) => this.slotOf(c) });
    if (redis.kind === 'sentinel') {
      const replay = new FailoverReplay({ rewrite: (channel, outcomes, now) => this.writeBatch(channel, outcomes, now, 5_000) });
      redis.onPrimaryChange(() => replay.primaryChanged());
      this.replay = replay;
    }
  }

  /**
   * A read: its script answers SWEEP while its first channel has timeouts due (reads never write), and the
   * strategy's `sweep` writes them before the read goes again.
   */
  private async read(script: LuaScript, firstPrefix: string, now: number, args: RedisArg[]): Promise<RedisReply> {
    const settings = channelScriptArgs(now, this.settings);
    for (let sweeps = 0; ; sweeps++) {
      const reply = await this.redis.runScript(script, [firstPrefix], [...settings, ...args]);
      if (reply !== SWEEP) return reply;
      if (sweeps === MAX_SWEEPS) throw new StoreUnavailableError(`${firstPrefix} still has timeouts due after ${MAX_SWEEPS} sweeps`);
      await this.redis.runScript(this.strategy.scripts.sweep, [firstPrefix], settings);
    }
  }

  private readChannel(channel: string, script: LuaScript, now: number, args: RedisArg[]): Promise<RedisReply> {
    return this.read(script, channelPrefix(this.settings.namespace, channel), now, args);
  }

  async recordBatch(channel: string, outcomes: StoredOutcome[], now: number, timeoutMs: number): Promise<RecordCode[]> {
    const codes = await this.writeBatch(channel, outcomes, now, timeoutMs);
    this.replay?.remember(channel, outcomes, now);
    return codes;
  }

  async recordBatches(batches: ChannelBatch[], now: number, timeoutMs: number): Promise<RecordCode[][]> {
    const s = this.settings;
    const results = new Array<RecordCode[] | undefined>(batches.length);
    // Only a strategy with recordMany takes several channels a call (the sorted-set strategy keeps state of
    // the call's first key).
    const calls = this.strategy.recordMany
      ? nodeCalls(batches.map((b) => b.outcomes.length), (i) => this.nodeOf(batches[i]!.channel), recordManyLimits)
      : batches.map((_, i) => [i]);
    // Issued together: the client pipelines the calls of each node. A node that fails fails its own calls only.
    try {
      return await settleCalls(calls.map((indexes) => this.recordTogether(batches, indexes, results, now, timeoutMs)), results);
    } finally {
      if (this.replay) for (const b of batches) this.replay.remember(b.channel, b.outcomes, now);
    }
  }

  /**
   * One `recordMany` call for the channels of `indexes`, which the client's slot map puts on one node.
   * When the node no longer serves one of their slots (a resharding), the call fails before it writes
   * anything, and they go again, a call per slot, which the client redirects.
   */
  private async recordTogether(batches: ChannelBatch[], indexes: number[], results: Array<RecordCode[] | undefined>, now: number, timeoutMs: number): Promise<void> {
    if (indexes.length === 1) {
      const { channel, outcomes } = batches[indexes[0]!]!;
      results[indexes[0]!] = await this.writeBatch(channel, outcomes, now, timeoutMs);
      return;
    }
    const s = this.settings;
    const slots = this.bySlot(indexes, (i) => batches[i]!.channel);
    const ordered = slots.flat();
    const prefixesBySlot = slots.map((slot) => slot.map((i) => channelPrefix(s.namespace, batches[i]!.channel)));
    const prefixes = prefixesBySlot.flat();
    const w = new PackWriter(ordered.reduce((sum, i) => sum + batches[i]!.outcomes.length, 0) * 64);
    ordered.forEach((i, c) => packRecordPart(w, prefixes[c]!, batches[i]!.outcomes, now, s, this.strategy, this.splitHints.of(batches[i]!.channel)));
    const channels = channelListArgs(prefixesBySlot);
    let reply: RedisReply[];
    try {
      reply = (await this.redis.runScript(this.strategy.recordMany!, [prefixes[0]!], [...channelScriptArgs(now, s), ...channels, w.finish()], timeoutMs)) as RedisReply[];
    } catch (err) {
      if (slots.length === 1 || !slotMoved(err)) throw err;
      await Promise.all(slots.map((slotIndexes) => this.recordTogether(batches, slotIndexes, results, now, timeoutMs)));
      return;
    }
    ordered.forEach((i, c) => {
      results[i] = codesOf(reply[2 * c]);
      this.splitHints.note(batches[i]!.channel, reply[2 * c + 1]!);
    });
  }

  /** `indexes` grouped by their channel's slot, in order of first appearance. */
  private bySlot(indexes: number[], channelOf: (index: number) => string): number[][] {
    return groupBySlot(indexes, (i) => this.slotOf(channelOf(i)));
  }

  private async writeBatch(channel: string, outcomes: StoredOutcome[], now: number, timeoutMs: number): Promise<RecordCode[]> {
    const w = new PackWriter(outcomes.length * 64);
    const prefix = channelPrefix(this.settings.namespace, channel);
    packRecordPart(w, prefix, outcomes, now, this.settings, this.strategy, this.splitHints.of(channel));
    const args = [...channelScriptArgs(now, this.settings), w.finish()];
    const [codes, splits] = (await this.redis.runScript(this.strategy.scripts.record, [prefix], args, timeoutMs)) as RedisReply[];
    this.splitHints.note(channel, splits!);
    return codesOf(codes);
  }

  private slotOf(channel: string): number {
    return this.redis.isCluster ? clusterSlot(channelPrefix(this.settings.namespace, channel)) : 0;
  }

  /** The node a channel's keys are on, as the client's slot map has it: its slot while the map does not say. */
  private nodeOf(channel: string): string | number {
    if (!this.redis.isCluster) return 0;
    const slot = this.slotOf(channel);
    return this.redis.masterOfSlot(slot) || slot;
  }

  async readWindows(channel: string, series: string, windowsSec: number[], now: number): Promise<WindowCounts[]> {
    const reply = (await this.readChannel(channel, this.strategy.scripts.windows, now, [series, ...windowsSec])) as number[];
    return windowsOf(reply, 0, windowsSec.length);
  }

  async readWindowsMany(reads: ChannelSeries[], windowsSec: number[], now: number): Promise<WindowCounts[][][]> {
    const results = new Array<WindowCounts[][] | undefined>(reads.length);
    const carry = this.strategy.windowsDelta && WindowsCarry.applies(windowsSec) ? this.carry : undefined;
    const calls = nodeCalls(reads.map(() => 0), (i) => this.nodeOf(reads[i]!.channel), { channels: this.channelsPerCall, outcomes: Infinity });
    // Issued together: the client pipelines the calls of each node. A node that fails fails its own calls only.
    try {
      return await settleCalls(calls.map((indexes) => this.readTogether(reads, indexes, windowsSec, now, carry, results)), results);
    } finally {
      carry?.forgetOlderThan(Math.floor(now / 1000) - MAX_GAP_SECONDS);
    }
  }

  /** One call reading the channels of `indexes`, on one node; a slot per call when the node has moved one (recordTogether). */
  private async readTogether(reads: ChannelSeries[], indexes: number[], windowsSec: number[], now: number, carry: WindowsCarry | undefined, results: Array<WindowCounts[][] | undefined>): Promise<void> {
    const s = this.settings;
    const toSec = Math.floor(now / 1000);
    const slots = this.bySlot(indexes, (i) => reads[i]!.channel);
    const ordered = slots.flat();
    const prefixesBySlot = slots.map((slot) => slot.map((i) => channelPrefix(s.namespace, reads[i]!.channel)));
    const channels = channelListArgs(prefixesBySlot);
    const starts = ordered.map((i) => carry?.start(reads[i]!.channel, reads[i]!.series, windowsSec, toSec));
    const perChannel = ordered.flatMap((i, c) => starts[c]?.args ?? [reads[i]!.series.length, ...reads[i]!.series]);
    const script = carry ? this.strategy.windowsDelta! : this.strategy.scripts.windowsMany;
    const windows = carry ? [windowsSec.length, ...windowsSec, FRESH_SECONDS, MAX_GAP_SECONDS, AHEAD_SECONDS] : [windowsSec.length, ...windowsSec];
    let reply: Array<Array<string | number> | string>;
    try {
      reply = (await this.read(script, prefixesBySlot[0]![0]!, now, [...channels, ...windows, ...perChannel])) as typeof reply;
    } catch (err) {
      for (const i of ordered) carry?.forget(reads[i]!.channel);
      if (slots.length === 1 || !slotMoved(err)) throw err;
      await Promise.all(slots.map((slotIndexes) => this.readTogether(reads, slotIndexes, windowsSec, now, carry, results)));
      return;
    }
    await Promise.all(
      ordered.map(async (i, c) => {
        const { channel, series } = reads[i]!;
        const counts = reply[c]!;
        // SWEEP: timeouts are due, which only the channel's own sweep turns into failures (op-windows-many.lua).
        if (typeof counts === 'string') {
          carry?.forget(channel);
          results[i] = await Promise.all(series.map((id) => this.readWindows(channel, id, windowsSec, now)));
        } else {
          results[i] = carry
            ? carry.absorb(channel, series, windowsSec, toSec, starts[c]!, counts)
            : series.map((_, j) => windowsOf(counts as number[], j * windowsSec.length, windowsSec.length));
        }
      }),
    );
  }

  async readLastN(channel: string, series: string, n: number, now: number) {
    const [success, failure] = (await this.readChannel(channel, this.strategy.scripts.lastN, now, [series, n])) as number[];
    return { success, failure };
  }

  async readFailures(channel: string, fromMs: number, now: number, limit: number): Promise<FailedRequest[]> {
    const reply = (await this.readChannel(channel, this.strategy.scripts.failures, now, [fromMs, limit])) as string[];
    const failures: FailedRequest[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const [requestId, code] = reply[i].split('\t');
      failures.push(code ? { requestId, at: Number(reply[i + 1]), code } : { requestId, at: Number(reply[i + 1]) });
    }
    return failures;
  }

  async readMinutes(channel: string, series: string, fromMs: number, toMs: number, now: number): Promise<MinuteCounts[]> {
    const first = Math.ceil(fromMs / 60_000);
    const last = Math.floor(toMs / 60_000);
    if (last < first) return [];
    const reply = (await this.readChannel(channel, this.strategy.scripts.minutes, now, [series, first, last])) as number[];
    return Array.from({ length: last - first + 1 }, (_, i) => ({
      minute: (first + i) * 60_000,
      success: reply[i * 3],
      failure: reply[i * 3 + 1],
      started: reply[i * 3 + 2],
    }));
  }

  async touchChannels(sightings: ChannelSighting[], now: number, timeoutMs: number): Promise<void> {
    const due = this.touches.due(sightings, now);
    const key = channelsKey(this.settings.namespace);
    // Issued together, so the client pipelines the channel list's mark with the series' (a node each).
    const [channels, failedSeries] = await Promise.allSettled([
      due.channels.length === 0
        ? undefined
        : Promise.all([
            this.redis.command(key, ['ZADD', key, ...due.channels.flatMap((c) => [now, c])], timeoutMs),
            this.redis.command(key, ['PEXPIRE', key, this.settings.retentionMs], timeoutMs),
          ]),
      due.series.length === 0 ? [] : this.seriesMarks.mark(due.series, now, timeoutMs),
    ]);
    const failed = failedSeries.status === 'fulfilled' ? failedSeries.value : due.series;
    this.touches.forget({ channels: channels.status === 'rejected' ? due.channels : [], series: failed });
    if (channels.status === 'rejected') throw channels.reason;
  }

  async listChannels(sinceMs: number, now: number): Promise<string[]> {
    const key = channelsKey(this.settings.namespace);
    await this.redis.command(key, ['ZREMRANGEBYSCORE', key, '-inf', `(${now - this.settings.retentionMs}`]);
    const reply = (await this.redis.command(key, ['ZRANGEBYSCORE', key, sinceMs, '+inf'])) as string[];
    return [...reply].sort();
  }

  listSeries(channels: string[], sinceMs: number): Promise<SeenSeries[][]> {
    return this.seriesMarks.list(channels, sinceMs);
  }

  async readEpoch(newId: string, now: number): Promise<StoreEpoch> {
    const reply = String(await this.redis.runScript(this.epochScript, [epochKey(this.settings.namespace)], [newId, now, this.settings.retentionMs]));
    const split = reply.lastIndexOf(':');
    return { id: reply.slice(0, split), startedAt: Number(reply.slice(split + 1)) };
  }

  /** The connection belongs to createPulse(), which closes it after the kit. */
  async close(): Promise<void> {
    this.replay?.close();
  }
}
