import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import type { RecencyDesign } from '../../src/kit/recency.js';
import { kitEngines } from './engines.js';

const { engines } = kitEngines();
const designs: RecencyDesign[] = ['buckets', 'zset'];
const day = 86_400_000;

describe.each(engines)('recency on $name', (engine) => {
  describe.each(designs)('%s design', (design) => {
    it('lists distinct ids newest first, with their meta, keeping each id\'s newest report', async () => {
      const ctx = await engine.open();
      const set = ctx.kit().recency('online-vehicles', { max: 100, within: '7d', tolerance: '1d', design });
      const now = ctx.clock.now();
      await set.touch('car-1', now - 3000, { lat: 31.2 });
      await set.touch('car-2', now - 2000);
      await set.touch('car-1', now - 1000, { lat: 31.3 });
      await set.touch('car-2', now - 5000); // an older report (re-parsed data) does not move car-2 back
      expect(await set.list()).toEqual([
        { id: 'car-1', at: now - 1000, meta: { lat: 31.3 } },
        { id: 'car-2', at: now - 2000 },
      ]);
      expect(await set.list({ limit: 1 })).toEqual([{ id: 'car-1', at: now - 1000, meta: { lat: 31.3 } }]);
      expect((await set.list({ from: now - 2500, to: now - 1500 })).map((i) => i.id)).toEqual(['car-2']);
    });

    it('rejects reports outside now ± tolerance (time travel)', async () => {
      const ctx = await engine.open();
      const set = ctx.kit().recency('devices', { max: 10, within: '7d', tolerance: '1d', design });
      const now = ctx.clock.now();
      expect(await set.touch('d-1', now - day - 1)).toEqual({ accepted: false, reason: 'too-old' });
      expect(await set.touch('d-1', now + day + 60_000)).toEqual({ accepted: false, reason: 'too-new' });
      expect(await set.touch('d-2', now - day + 60_000)).toEqual({ accepted: true });
      expect((await set.list()).map((i) => i.id)).toEqual(['d-2']);
    });

    it('keeps at most max ids, evicting the oldest, and forgets ids older than within', async () => {
      const ctx = await engine.open();
      // On Redis the clock is the system's: `within` leaves the touches, sent together, and the first list a
      // second to spare on a loaded machine (400 ms for touches one after another did not, one run in many).
      const set = ctx.kit().recency('terminals', { max: 50, within: 1000, tolerance: 2000, design });
      const now = ctx.clock.now();
      await Promise.all(Array.from({ length: 200 }, (_, i) => set.touch(`t-${i}`, now - 200 + i)));
      const listed = await set.list();
      expect(listed).toHaveLength(50);
      expect(listed[0].id).toBe('t-199');
      expect(listed[49].id).toBe('t-150');
      await ctx.elapse(1050);
      expect(await set.list()).toEqual([]);
    });

    it('rejects bad input with the field named', async () => {
      const ctx = await engine.open();
      const { recency } = ctx.kit();
      const fieldOf = (f: () => unknown) => {
        try {
          f();
        } catch (e) {
          return (e as ValidationError).issues[0].field;
        }
        return undefined;
      };
      expect(fieldOf(() => recency('', { max: 1, within: '1d', tolerance: '1h', design }))).toBe('name');
      expect(fieldOf(() => recency('r', { max: 0, within: '1d', tolerance: '1h', design }))).toBe('max');
      expect(fieldOf(() => recency('r', { max: 1, within: '7 days', tolerance: '1h', design }))).toBe('within');
      expect(fieldOf(() => recency('r', { max: 1, within: '1d', tolerance: -1, design }))).toBe('tolerance');
      const set = recency('r', { max: 5, within: '1d', tolerance: '1h', design });
      const asyncField = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ValidationError).issues?.[0]?.field;
      expect(await asyncField(set.touch('', ctx.clock.now()))).toBe('id');
      expect(await asyncField(set.touch('x', Number.NaN))).toBe('at');
      expect(await asyncField(set.touch('x', ctx.clock.now(), { big: 'x'.repeat(11_000) }))).toBe('meta');
      expect(await asyncField(set.list({ limit: 6 }))).toBe('limit');
    });
  });

  it('the two designs give the same answers on the same stream (compare, then switch)', async () => {
    const ctx = await engine.open();
    const kit = ctx.kit();
    const start = ctx.clock.now() - 3_600_000;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 3 }), fc.option(fc.integer(), { nil: undefined })), { maxLength: 120 }),
        fc.integer({ min: 1, max: 12 }),
        async (max, stream, limitSeed) => {
          const name = `agree-${run++}`;
          const options = { max, within: '7d', tolerance: '1d' };
          const buckets = kit.recency(name, { ...options, design: 'buckets' });
          const zset = kit.recency(name, { ...options, design: 'zset' });
          let at = start;
          for (const [id, step, meta] of stream) {
            // Reports arrive in time order. Equal times are where the designs part: buckets keep arrival
            // order, a zset breaks the tie by member, so the side-by-side check uses distinct times.
            at += step;
            await buckets.touch(`id-${id}`, at, meta);
            await zset.touch(`id-${id}`, at, meta);
          }
          const limit = Math.min(limitSeed, max);
          expect(await buckets.list()).toEqual(await zset.list());
          expect(await buckets.list({ limit })).toEqual(await zset.list({ limit }));
          const mid = start + Math.floor((at - start) / 2);
          expect(await buckets.list({ from: mid })).toEqual(await zset.list({ from: mid }));
          expect(await buckets.list({ to: mid, limit })).toEqual(await zset.list({ to: mid, limit }));
        },
      ),
      { numRuns: engine.name === 'redis' ? 40 : 150 },
    );
  }, 30_000);

  it('the designs agree at production scale: 10,000 distinct ids through a 1,000-id set', async () => {
    const ctx = await engine.open();
    const kit = ctx.kit();
    const buckets = kit.recency('fleet', { max: 1000, within: '7d', tolerance: '1d', design: 'buckets' });
    const zset = kit.recency('fleet', { max: 1000, within: '7d', tolerance: '1d', design: 'zset' });
    let at = ctx.clock.now() - 3_600_000;
    const touches: Array<Promise<unknown>> = [];
    for (let i = 0; i < 15_000; i++) {
      // About 10,000 distinct ids in a scrambled order; every third report revisits a recent id.
      const id = i % 3 === 2 ? `vehicle-${((i - 40) * 7919) % 10_000}` : `vehicle-${(i * 7919) % 10_000}`;
      at += 1 + (i % 2);
      touches.push(buckets.touch(id, at), zset.touch(id, at));
      if (touches.length >= 200) await Promise.all(touches.splice(0)); // pipelined, order per design kept
    }
    await Promise.all(touches);
    const all = await zset.list();
    expect(all).toHaveLength(1000);
    expect(await buckets.list()).toEqual(all);
  }, 30_000);
});
