// The counting rules (docs/architecture.md), one example each, on every engine and strategy.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/types.js';
import { statsEngines, start } from '../../support/statsEngines.js';

const ok = (requestId: string, at: number, extra: Partial<Outcome> = {}): Outcome => ({ channel: 'alipay', requestId, status: 'success', at, ...extra });
const fail = (requestId: string, at: number, code = 'E'): Outcome => ({ channel: 'alipay', requestId, status: 'failure', at, code });
const sent = (requestId: string, at: number): Outcome => ({ channel: 'alipay', requestId, status: 'pending', at });

describe.each(statsEngines())('counting rules: $name', (engine) => {
  it('counts terminal outcomes in a window on the completion-time basis, exact to the second', async () => {
    const { pulse, clock } = await engine.make();
    clock.set(start + 999); // 12:00:00.999
    await pulse.recordMany([ok('in-first-second', start - 59_000), fail('just-outside', start - 59_001), ok('now', start + 500)]);
    const r = await pulse.rate('alipay', { window: '1m' });
    // The 1m window covers the seconds 11:59:01 … 12:00:00.
    expect(r).toMatchObject({ total: 2, success: 2, failure: 0, rate: 1, window: '1m', stale: false });
    expect((await pulse.rate('alipay', { window: '10s' })).total).toBe(1);
    await pulse.close();
  });

  it('counts a repeated callback once and upgrades a failure to a success at the success time', async () => {
    const { pulse } = await engine.make();
    expect(await pulse.record(fail('r1', start - 600_000))).toMatchObject({ accepted: 1 });
    expect(await pulse.record(fail('r1', start - 600_000))).toMatchObject({ duplicate: 1 });
    expect(await pulse.record(ok('r1', start - 1_000))).toMatchObject({ corrected: 1 });
    expect(await pulse.record(fail('r1', start))).toMatchObject({ duplicate: 1 }); // never downgraded
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ total: 1, success: 1, failure: 0 });
    expect(await pulse.rate('alipay', { window: '15m' })).toMatchObject({ total: 1, success: 1, failure: 0 });
    expect(await pulse.failures('alipay', { window: '15m' })).toEqual([]);
    await pulse.close();
  });

  it('remembers a request for the whole dedup horizon, across the ledger turning over, then forgets it', async () => {
    const { pulse, clock } = await engine.make({ windows: ['5m'] }); // horizon 15 min
    const at = (ms: number) => {
      clock.set(ms);
      return ms;
    };
    expect(await pulse.record(ok('r1', at(start - 60_000)))).toMatchObject({ accepted: 1 });
    // The Redis ledger cleans each shard once per period of horizon + skew (16 min), and one began at `start`.
    expect(await pulse.record(fail('r1', at(start + 13 * 60_000)))).toMatchObject({ duplicate: 1 });
    expect(await pulse.record(ok('r1', at(start + 14 * 60_000 - 1)))).toMatchObject({ duplicate: 1 }); // 15 min - 1 ms old
    expect(await pulse.record(fail('r1', at(start + 14 * 60_000 + 1)))).toMatchObject({ accepted: 1 }); // a new life
    await pulse.close();
  });

  it('keeps request ids and failure codes byte for byte, whatever their script', async () => {
    const { pulse } = await engine.make();
    const id = 'заказ-№42-注文-🙂';
    await pulse.recordMany([fail(id, start - 2_000, 'карта_отклонена'), fail('plain', start - 1_000, 'x'.repeat(64))]);
    expect(await pulse.failures('alipay', { window: '1m' })).toEqual([
      { requestId: 'plain', at: start - 1_000, code: 'x'.repeat(64) },
      { requestId: id, at: start - 2_000, code: 'карта_отклонена' },
    ]);
    expect(await pulse.record(fail(id, start - 2_000, 'карта_отклонена'))).toMatchObject({ duplicate: 1 });
    await pulse.close();
  });

  it('rejects stale outcomes and says so, counting nothing of them', async () => {
    const { pulse } = await engine.make();
    const horizon = 70 * 60_000; // 1h window + 10 min
    const result = await pulse.recordMany([ok('old', start - horizon - 1), ok('future', start + 60_001), ok('fine', start - horizon)]);
    expect(result).toEqual({ accepted: 1, duplicates: 0, corrected: 0, stale: 2, buffered: 0, dropped: 0 });
    expect((await pulse.rate('alipay', { window: '1h' })).total).toBe(0); // `fine` lies just before the 1h window
    await pulse.close();
  });

  it('times out a pending request at its deadline, and a late success corrects it', async () => {
    const { pulse, clock } = await engine.make({ pendingTimeoutMs: 60_000 });
    await pulse.recordMany([sent('p1', start), sent('p2', start), sent('p3', start)]);
    await pulse.record(ok('p2', start + 2_000));
    clock.advance(30_000);
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ started: 3, pending: 2, total: 1, success: 1 });
    clock.advance(31_000); // past the deadline of p1 and p3: a silent channel shows as failing
    expect(await pulse.rate('alipay', { window: '5m' })).toMatchObject({ started: 3, pending: 0, total: 3, success: 1, failure: 2 });
    expect(await pulse.failures('alipay', { window: '5m' })).toEqual([
      { requestId: 'p3', at: start + 60_000, code: 'timeout' },
      { requestId: 'p1', at: start + 60_000, code: 'timeout' },
    ]);
    expect(await pulse.record(ok('p1', start + 60_500))).toMatchObject({ corrected: 1 });
    expect(await pulse.record(fail('p3', start + 60_800))).toMatchObject({ duplicate: 1 });
    expect(await pulse.rate('alipay', { window: '5m' })).toMatchObject({ total: 3, success: 2, failure: 1 });
    expect(await pulse.record(sent('p1', start))).toMatchObject({ duplicate: 1 });
    await pulse.close();
  });

  it('lists the newest failures across quiet minutes, without upgraded ones, cut by the limit inside a millisecond', async () => {
    const { pulse } = await engine.make();
    // Minutes apart with nothing between; three at one millisecond; one upgraded within the same batch.
    await pulse.recordMany([
      fail('old', start - 40 * 60_000, 'E1'),
      fail('mid', start - 20 * 60_000, 'E2'),
      fail('b', start - 1_000), fail('a', start - 1_000), fail('c', start - 1_000),
      fail('up', start - 500), ok('up', start - 400),
    ]);
    const [c, b, a] = ['c', 'b', 'a'].map((requestId) => ({ requestId, at: start - 1_000, code: 'E' }));
    const mid = { requestId: 'mid', at: start - 20 * 60_000, code: 'E2' };
    const old = { requestId: 'old', at: start - 40 * 60_000, code: 'E1' };
    expect(await pulse.failures('alipay', { window: '1h' })).toEqual([c, b, a, mid, old]);
    expect(await pulse.failures('alipay', { window: '30m' })).toEqual([c, b, a, mid]);
    expect(await pulse.failures('alipay', { window: '1h', limit: 2 })).toEqual([c, b]);
    await pulse.record(ok('b', start - 100));
    expect(await pulse.failures('alipay', { window: '1h', limit: 3 })).toEqual([c, a, mid]);
    await pulse.close();
  });

  it('lists a busy second\'s failures as one, upgrades included, however a call splits them', async () => {
    const { pulse } = await engine.make();
    // Ten failures of one second in one call, each at its own millisecond; then a call upgrading five
    // of them, the first and the last five of that second among them. (A Redis store logs a call's
    // first few failures of a second with their minute and the rest with the second: an upgrade's record
    // can land in the other log than its failure's.)
    const second = start - 10_000;
    await pulse.recordMany(Array.from({ length: 10 }, (_, i) => fail(`f${i}`, second + i)));
    const upgraded = [6, 7, 8, 9, 0];
    await pulse.recordMany(upgraded.map((i) => ok(`f${i}`, start - 1_000)));
    const standing = [5, 4, 3, 2, 1].map((i) => ({ requestId: `f${i}`, at: second + i, code: 'E' }));
    expect(await pulse.failures('alipay', { window: '5m' })).toEqual(standing);
    expect(await pulse.failures('alipay', { window: '5m', limit: 2 })).toEqual(standing.slice(0, 2));
    expect(await pulse.rate('alipay', { window: '5m' })).toMatchObject({ total: 10, success: 5, failure: 5 });
    await pulse.close();
  });

  it('answers last-N over the newest n outcomes by completion time, and null with no data', async () => {
    const { pulse } = await engine.make();
    expect(await pulse.lastN('alipay', { n: 3 })).toMatchObject({ total: 0, rate: null, low: null, sufficient: false });
    // Arrival order differs from completion order: the newest three by `at` are f3, s2, f2.
    await pulse.recordMany([fail('f3', start - 1_000), ok('s1', start - 9_000), fail('f2', start - 5_000), ok('s2', start - 4_000)]);
    expect(await pulse.lastN('alipay', { n: 3 })).toMatchObject({ window: 'last3', total: 3, success: 1, failure: 2 });
    await pulse.close();
  });

  it('orders last-N within a second by the millisecond, successes first at the same one, upgrades included', async () => {
    const { pulse, clock } = await engine.make();
    clock.set(start + 2_000);
    await pulse.recordMany([fail('a', start + 300), ok('b', start + 200), fail('c', start + 100), fail('e', start + 1_100), ok('d', start + 1_100)]);
    await pulse.record(ok('a', start + 50)); // a's failure at .300 is taken back
    // Newest first: d and e (1.100 s, the success first), b (.200), c (.100), a (.050).
    const newest = [[1, 0], [1, 1], [2, 1], [2, 2], [3, 2], [3, 2]];
    for (const [i, [success, failure]] of newest.entries()) {
      expect(await pulse.lastN('alipay', { n: i + 1 })).toMatchObject({ success, failure });
    }
    await pulse.close();
  });

  it('marks a rate sufficient from minSamples and gives a Wilson interval', async () => {
    const { pulse } = await engine.make({ minSamples: 10 });
    await pulse.recordMany(Array.from({ length: 10 }, (_, i) => (i < 9 ? ok(`r${i}`, start - i) : fail(`r${i}`, start - i))));
    const r = await pulse.rate('alipay', { window: '1m' });
    expect(r).toMatchObject({ total: 10, rate: 0.9, sufficient: true });
    expect(r.low).toBeCloseTo(0.596, 3);
    expect(r.high).toBeCloseTo(0.982, 3);
    await pulse.close();
  });

  it('keeps statistics per configured dimension set and refuses unknown sets', async () => {
    const { pulse } = await engine.make({ dimensions: [['method'], ['method', 'currency']] });
    await pulse.recordMany([
      ok('a', start, { dims: { method: 'card', currency: 'USD' } }),
      fail('b', start),
      { ...fail('c', start), dims: { method: 'card', currency: 'EUR' } },
    ]);
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ total: 3, success: 1 });
    expect(await pulse.rate('alipay', { window: '1m', dims: { method: 'card' } })).toMatchObject({ total: 2, success: 1, dims: { method: 'card' } });
    expect(await pulse.rate('alipay', { window: '1m', dims: { currency: 'USD', method: 'card' } })).toMatchObject({ total: 1, success: 1 });
    await expect(pulse.rate('alipay', { window: '1m', dims: { currency: 'USD' } })).rejects.toMatchObject({ code: 'PP_ERR_VALIDATION' });
    await pulse.close();
  });

  it('lists every channel with its rate, and per-minute counts for the last two hours', async () => {
    const { pulse, clock } = await engine.make();
    await pulse.recordMany([ok('1', start - 90 * 60_000 + 1_000, { channel: 'wechat' })].map((o) => o));
    clock.advance(0);
    await pulse.recordMany([ok('1', start), fail('2', start), ok('3', start, { channel: 'wechat' })]);
    expect((await pulse.rates({ window: '1m' })).map((r) => [r.channel, r.total])).toEqual([['alipay', 2], ['wechat', 1]]);
    const minutes = await pulse.minutes('alipay', { from: start - 2 * 60_000, to: start });
    expect(minutes).toEqual([
      { minute: start - 120_000, success: 0, failure: 0, started: 0 },
      { minute: start - 60_000, success: 0, failure: 0, started: 0 },
      { minute: start, success: 1, failure: 1, started: 0 },
    ]);
    await pulse.close();
  });

  it('remembers per-minute counts for two hours, longer than any window', async () => {
    const { pulse, clock } = await engine.make({ windows: ['5m'] });
    await pulse.recordMany([ok('1', start), fail('2', start)]);
    clock.advance(115 * 60_000);
    const minutes = await pulse.minutes('alipay', { from: start, to: start + 59_999 });
    expect(minutes).toEqual([{ minute: start, success: 1, failure: 1, started: 0 }]);
    await pulse.close();
  });
});
