// The dims series the snapshot reads per channel: learnt from recorded outcomes, bounded, forgotten after
// the horizon.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KnownSeries } from '../../src/stats/knownSeries.js';
import { PartialStoreFailure } from '../../src/store/ports/partialFailure.js';
import type { SeenSeries } from '../../src/store/ports/stats.js';

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

  /** A store whose lists the test sets, counting the channels asked. */
  function listingStore(lists: Record<string, SeenSeries[]>) {
    const asked: string[][] = [];
    let failWith: unknown;
    return {
      asked,
      fail(err: unknown) {
        failWith = err;
      },
      async listSeries(channels: string[], sinceMs: number) {
        asked.push(channels);
        if (failWith) throw failWith;
        return channels.map((c) => (lists[c] ?? []).filter((s) => s.lastSeenMs >= sinceMs));
      },
    };
  }

  it("merges the store's lists with its own sightings, asking for a channel at most once every refreshEveryMs", async () => {
    const clock = new ManualClock(1_000_000);
    const store = listingStore({ a: [{ series: 'method=bank', lastSeenMs: 990_000 }, { series: 'method=pix', lastSeenMs: 999_000 }] });
    const known = new KnownSeries({ dimensions: [['method']], horizonMs: 60_000, store }, () => clock.now());
    known.observe([{ channel: 'a', at: clock.now(), dims: { method: 'card' } }]);
    await known.refresh(['a', 'b']);
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['method=bank', 'method=card', 'method=pix']);
    expect(known.seriesOf('a')[0]!.dims).toEqual({ method: 'bank' });
    expect(known.seriesOf('b')).toEqual([]);
    clock.advance(9_999);
    await known.refresh(['a', 'b', 'c']);
    expect(store.asked).toEqual([['a', 'b'], ['c']]);
    clock.advance(1);
    await known.refresh(['a', 'b', 'c']);
    expect(store.asked.at(-1)).toEqual(['a', 'b']);
    // The store's last sighting ages the series out like a local one: bank was seen at 990,000.
    clock.set(990_000 + 60_001);
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['method=card', 'method=pix']);
  });

  it('takes only series of its configured sets, written as it writes them', async () => {
    const clock = new ManualClock(1_000_000);
    const seen = (series: string) => ({ series, lastSeenMs: clock.now() });
    const store = listingStore({ a: [seen('method=bank'), seen('currency=BRL'), seen('currency=BRL,method=bank'), seen('method=bank!excused'), seen('garbage')] });
    const known = new KnownSeries({ dimensions: [['method']], horizonMs: 60_000, store }, () => clock.now());
    await known.refresh(['a']);
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['method=bank']);
  });

  it('keeps what it knows when the store cannot list, and what it can when only part of it answers', async () => {
    const clock = new ManualClock(1_000_000);
    const store = listingStore({ a: [{ series: 'method=bank', lastSeenMs: clock.now() }], b: [{ series: 'method=pix', lastSeenMs: clock.now() }] });
    const warnings: string[] = [];
    const logger = { warn: (_: object, message: string) => warnings.push(message), info: () => undefined, error: () => undefined };
    const known = new KnownSeries({ dimensions: [['method']], horizonMs: 60_000, store, logger }, () => clock.now());
    known.observe([{ channel: 'a', at: clock.now(), dims: { method: 'card' } }]);
    store.fail(new Error('connection lost'));
    await expect(known.refresh(['a'])).resolves.toBeUndefined();
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['method=card']);
    expect(warnings).toHaveLength(1);
    clock.advance(10_000);
    store.fail(new PartialStoreFailure([undefined, [{ series: 'method=pix', lastSeenMs: clock.now() }]], new Error('node down')));
    await known.refresh(['a', 'b']);
    expect(known.seriesOf('a').map((s) => s.id)).toEqual(['method=card']);
    expect(known.seriesOf('b').map((s) => s.id)).toEqual(['method=pix']);
    expect(warnings).toHaveLength(1); // once an outage, not once a refresh
  });
});
