// The stream's page is chosen without sorting every channel: it must be exactly the first channels of the
// REST ranking (state, then rate, then name), ties and all, whatever the channels' rates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChannelPages } from '../../src/server/routes/channelPages.js';
import { verdictSource } from '../../src/server/rowVerdicts.js';
import type { ChannelHealth, HealthSnapshot } from '../../src/stats/healthSnapshot.js';
import type { Rate } from '../../src/types.js';

const windows = ['1m', '5m'];

function rateOf(channel: string, window: string, success: number, failure: number, minSamples: number): Rate {
  const total = success + failure;
  const rate = total > 0 ? success / total : null;
  return { channel, window, total, success, failure, rate, low: rate ?? 0, high: rate ?? 1, sufficient: total >= minSamples, started: total, pending: 0, stale: false, asOf: 0 };
}

const counts = fc.record({ success: fc.integer({ min: 0, max: 6 }), failure: fc.integer({ min: 0, max: 6 }) });

describe('stream page of the channel ranking', () => {
  it('is the first streamPageChannels of GET /v1/channels?sort=worst', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(counts, counts), { minLength: 4, maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (channels, streamPageChannels) => {
        const pages = createChannelPages({ pageChannels: 3, streamPageChannels, windows, verdicts: () => verdictSource({ warn: 0.95, major: 0.8, critical: 0.5 }, 4, undefined) });
        const healths = channels.map(([short, long], i): ChannelHealth => {
          const channel = `c${(i * 7) % channels.length}-${i}`;
          return { channel, series: [], rates: { '1m': rateOf(channel, '1m', short.success, short.failure, 4), '5m': rateOf(channel, '5m', long.success, long.failure, 4) } };
        });
        const snapshot: HealthSnapshot = { asOf: 0, durationMs: 0, channels: new Map(healths.map((h) => [h.channel, h])) };
        // A fresh snapshot each: the stream's pass runs without the full sort cached.
        const event = pages.ratesEvent(snapshot);
        const streamed = [...new Set(event.rates.map((r) => r.channel))];
        const again: HealthSnapshot = { ...snapshot };
        const listed = pages.page(again, { sort: 'worst', offset: 0, limit: Math.min(streamPageChannels, 3) }).channels.map((c) => c.channel);
        expect(streamed).toEqual(listed);
        expect(event.summary).toEqual((pages.page(again, { offset: 0 }) as { summary?: unknown }).summary);
      }),
    );
  });
});
