// Each channel's dims series as Redis keeps them for every process of a fleet (seriesMark-1.lua,
// seriesList-1.lua): one sorted set a channel under the channel's hash tag, so it lives on the channel's slot,
// and a call carries the channels of one node, like the window reads (nodeCalls.ts).
import { channelPrefix } from '../keys/stats.js';
import { settleCalls } from '../ports/partialFailure.js';
import { seriesSeenMax, type ChannelSeries, type EngineSettings, type SeenSeries } from '../ports/stats.js';
import type { RedisConnection, RedisReply } from './connection.js';
import { channelListArgs } from './layouts.js';
import { groupBySlot, nodeCalls, slotMoved } from './nodeCalls.js';
import { loadScript } from './scripts.js';

export interface ChannelPlacement {
  nodeOf(channel: string): string | number;
  slotOf(channel: string): number;
}

/** A call's bound: Redis runs nothing else while a script runs. */
const callLimits = { channels: 200, outcomes: 4_000 };

export class RedisSeriesMarks {
  private readonly markScript = loadScript('seriesMark-1.lua');
  private readonly listScript = loadScript('seriesList-1.lua');

  constructor(
    private readonly redis: RedisConnection,
    private readonly settings: EngineSettings,
    private readonly placement: ChannelPlacement,
  ) {}

  /** Marks each channel's series seen at `now`; answers the marks that failed (their node did not answer). */
  async mark(marks: ChannelSeries[], now: number, timeoutMs: number): Promise<ChannelSeries[]> {
    const calls = nodeCalls(marks.map((m) => m.series.length), (i) => this.placement.nodeOf(marks[i]!.channel), callLimits);
    const failed: ChannelSeries[] = [];
    await Promise.all(
      calls.map((indexes) =>
        this.inSlots(marks, indexes, (slots) => this.markCall(marks, slots, now, timeoutMs)).catch(() => {
          for (const i of indexes) failed.push(marks[i]!);
        }),
      ),
    );
    return failed;
  }

  /** The series of each channel marked since `sinceMs`; a PartialStoreFailure when only some nodes answered. */
  async list(channels: string[], sinceMs: number): Promise<SeenSeries[][]> {
    const results = new Array<SeenSeries[] | undefined>(channels.length);
    const calls = nodeCalls(channels.map(() => 0), (i) => this.placement.nodeOf(channels[i]!), callLimits);
    const read = async (slots: number[][]) => {
      const ordered = slots.flat();
      const reply = (await this.redis.runScript(this.listScript, [this.prefixOf(channels[ordered[0]!]!)], [sinceMs, ...this.channelArgs(slots, (i) => channels[i]!)])) as RedisReply[][];
      ordered.forEach((i, c) => (results[i] = seenOf(reply[c]!)));
    };
    return settleCalls(calls.map((indexes) => this.inSlots(channels.map((channel) => ({ channel })), indexes, read)), results);
  }

  private async markCall(marks: ChannelSeries[], slots: number[][], now: number, timeoutMs: number): Promise<void> {
    const ordered = slots.flat();
    const perChannel = ordered.flatMap((i) => [marks[i]!.series.length, ...marks[i]!.series]);
    const args = [now, this.settings.horizonMs, seriesSeenMax, ...this.channelArgs(slots, (i) => marks[i]!.channel), ...perChannel];
    await this.redis.runScript(this.markScript, [this.prefixOf(marks[ordered[0]!]!.channel)], args, timeoutMs);
  }

  /**
   * `call` over the channels of `indexes`, slot by slot in one call; when the node no longer serves one of
   * their slots (a resharding), a call a slot, which the client redirects.
   */
  private async inSlots(items: Array<{ channel: string }>, indexes: number[], call: (slots: number[][]) => Promise<void>): Promise<void> {
    const slots = groupBySlot(indexes, (i) => this.placement.slotOf(items[i]!.channel));
    try {
      await call(slots);
    } catch (err) {
      if (slots.length === 1 || !slotMoved(err)) throw err;
      await Promise.all(slots.map((slot) => call([slot])));
    }
  }

  private channelArgs(slots: number[][], channelOf: (index: number) => string): Array<string | number> {
    return channelListArgs(slots.map((slot) => slot.map((i) => this.prefixOf(channelOf(i)))));
  }

  private prefixOf(channel: string): string {
    return channelPrefix(this.settings.namespace, channel);
  }
}

/** A WITHSCORES reply: member, score, member, score … */
function seenOf(reply: RedisReply[]): SeenSeries[] {
  const seen: SeenSeries[] = [];
  for (let i = 0; i < reply.length; i += 2) seen.push({ series: String(reply[i]), lastSeenMs: Number(reply[i + 1]) });
  return seen;
}
