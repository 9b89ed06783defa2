// Redis's channel list is marked once per channel and interval, not at every batch, and marked again
// after the server restarted empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { createPulse } from '../../../src/pulse.js';
import { seriesSeenMax } from '../../../src/store/ports/stats.js';
import { ChannelTouches, touchIntervalMs } from '../../../src/store/redis/channelTouches.js';
import { eventually } from '../../kit/engines.js';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';

describe('ChannelTouches', () => {
  const seen = (...channels: string[]) => channels.map((channel) => ({ channel, series: [] }));
  const channelsDue = (touches: ChannelTouches, channels: string[], now: number) => touches.due(seen(...channels), now).channels;

  it('marks a channel at its first batch of each interval, and again after a failed mark', () => {
    const touches = new ChannelTouches(10_000);
    expect(channelsDue(touches, ['a', 'b'], 0)).toEqual(['a', 'b']);
    expect(channelsDue(touches, ['a', 'b', 'c'], 9_999)).toEqual(['c']);
    touches.forget({ channels: ['c'] });
    expect(channelsDue(touches, ['b', 'c'], 9_999)).toEqual(['c']);
    expect(channelsDue(touches, ['a', 'b'], 10_000)).toEqual(['a', 'b']);
    touches.forgetAll();
    expect(channelsDue(touches, ['a'], 10_001)).toEqual(['a']);
  });

  it("marks a channel's series at their first sighting of each interval, at most seriesSeenMax of them", () => {
    const touches = new ChannelTouches(10_000);
    expect(touches.due([{ channel: 'a', series: ['m=1', 'm=2'] }], 0)).toEqual({ channels: ['a'], series: [{ channel: 'a', series: ['m=1', 'm=2'] }] });
    expect(touches.due([{ channel: 'a', series: ['m=2', 'm=3'] }, { channel: 'b', series: [] }], 5_000)).toEqual({ channels: ['b'], series: [{ channel: 'a', series: ['m=3'] }] });
    touches.forget({ series: [{ channel: 'a', series: ['m=3'] }] });
    expect(touches.due([{ channel: 'a', series: ['m=1', 'm=3'] }], 6_000)).toEqual({ channels: [], series: [{ channel: 'a', series: ['m=3'] }] });
    expect(touches.due([{ channel: 'a', series: ['m=1'] }], 10_000)).toEqual({ channels: ['a'], series: [{ channel: 'a', series: ['m=1', 'm=2', 'm=3'] }] });
    const many = Array.from({ length: seriesSeenMax + 5 }, (_, i) => `user=${i}`);
    expect(touches.due([{ channel: 'c', series: many }], 10_001).series[0]!.series).toHaveLength(seriesSeenMax);
  });

  it("marks a channel's series of the last interval with its first batch of the next, so a quiet channel costs one mark an interval", () => {
    const touches = new ChannelTouches(10_000);
    const seriesDue = (series: string[], now: number) => touches.due([{ channel: 'a', series }], now).series.flatMap((s) => s.series);
    expect(seriesDue(['m=1'], 0)).toEqual(['m=1']);
    expect(seriesDue(['m=2'], 3_000)).toEqual(['m=2']);
    expect(seriesDue(['m=3'], 6_000)).toEqual(['m=3']);
    // The next interval: its first batch brings m=1, and marks m=2 and m=3 with it; later batches mark nothing.
    expect(seriesDue(['m=1'], 10_000)).toEqual(['m=1', 'm=2', 'm=3']);
    expect(seriesDue(['m=2'], 13_000)).toEqual([]);
    // Carried while seen within an interval's length: at 20,000 m=2 (13,000), not m=1 (10,000); m=3, not seen in
    // the second interval, is not carried; after a quiet interval nothing is.
    expect(seriesDue([], 20_000)).toEqual(['m=2']);
    expect(seriesDue(['m=4'], 30_000)).toEqual(['m=4']);
    expect(seriesDue([], 50_000)).toEqual([]);
  });

  it('starts afresh when the clock goes back', () => {
    const touches = new ChannelTouches(10_000);
    expect(channelsDue(touches, ['a'], 50_000)).toEqual(['a']);
    expect(channelsDue(touches, ['a'], 45_000)).toEqual(['a']);
  });

  it('keeps a mark at most ten seconds old, less under a short horizon', () => {
    expect(touchIntervalMs(70 * 60_000)).toBe(10_000);
    expect(touchIntervalMs(60_000)).toBe(6_000);
  });
});

describe('the channel list on Redis', () => {
  let redis: LocalRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const open = async (namespace: string) => {
    const clock = new ManualClock(Date.now());
    const pulse = await createPulse({ redis: redis.url, namespace, clock });
    const record = (requestId: string) => pulse.record({ channel: 'alipay', requestId, status: 'success', at: clock.now() });
    return { clock, pulse, record };
  };

  it('lists a channel from its first outcome until a horizon after its last one', async () => {
    const { clock, pulse, record } = await open('touches1');
    const start = clock.now();
    const horizonMs = 70 * 60_000; // the default windows' horizon: the longest (1 h) plus 10 minutes
    await record('r1');
    expect(await pulse.channels()).toEqual(['alipay']);
    for (let i = 2; i <= 30; i++) {
      clock.advance(1_000);
      await record(`r${i}`);
    }
    const last = clock.now();
    clock.set(start + horizonMs + 1_000);
    expect(await pulse.channels()).toEqual(['alipay']);
    clock.set(last + horizonMs + 1);
    expect(await pulse.channels()).toEqual([]);
    await pulse.close();
  });

  it('lists a channel again at its first outcome after the server restarted empty', async () => {
    const { clock, pulse, record } = await open('touches2');
    await record('r1');
    expect(await pulse.channels()).toEqual(['alipay']);
    await redis.restart();
    await eventually(() => pulse.channels().then((c) => c.length === 0, () => false), 10_000);
    clock.advance(1_000);
    await record('r2');
    expect(await pulse.channels()).toEqual(['alipay']);
    await pulse.close();
  });
});
