// The dims series the snapshot reads per channel: learnt from recorded outcomes, bounded, forgotten after
// the horizon.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KnownSeries } from '../../src/stats/knownSeries.js';

describe('known series', () => {
  it('lists each configured set a channel has been seen with, and forgets series past the horizon', () => {
    const clock = new ManualClock(1_000_000);
    const known = new KnownSeries({ dimensions: [['method'], ['currency', 'method']], horizonMs: 60_000 }, () => clock.now());
    known.observe([
      { channel: 'a', at: clock.now(), dims: { method: 'card', currency: 'BRL' } },
      { channel: 'a', at: clock.now(), dims: { method: 'wallet' } },
      { channel: 'b', at: clock.now(), dims: { other: 'x' } },
    ]);
    expect(known.seriesOf('a')).toEqual([
      { id: 'currency=BRL,method=card', dims: { currency: 'BRL', method: 'card' } },
      { id: 'method=card', dims: { method: 'card' } },
      { id: 'method=wallet', dims: { method: 'wallet' } },
    ]);
    expect(known.seriesOf('b')).toEqual([]);
    clock.advance(45_000);
    known.observe([{ channel: 'a', at: clock.now(), dims: { method: 'wallet' } }]);
    clock.advance(30_000);
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['method=wallet']);
  });

  it('keeps at most maxPerChannel series a channel, the most recently seen', () => {
    const known = new KnownSeries({ dimensions: [['user']], horizonMs: 60_000, maxPerChannel: 3 }, () => 0);
    known.observe(Array.from({ length: 10 }, (_, i) => ({ channel: 'a', at: 0, dims: { user: `u${i}` } })));
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['user=u7', 'user=u8', 'user=u9']);
  });
});
