import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { cacheKey } from '../../src/kit/index.js';
import { eventually, kitEngines } from './engines.js';

const { engines } = kitEngines();

describe('cacheKey', () => {
  it('builds domain:type:id:field and refuses parts that would shift the fields', () => {
    expect(cacheKey('pay', 'merchant', 10086, 'rate')).toBe('pay:merchant:10086:rate');
    expect(() => cacheKey('pay', 'merchant', 'a:b', 'rate')).toThrow(ValidationError);
    expect(() => cacheKey('pay', '', 1, 'rate')).toThrow(/type/);
  });
});

describe.each(engines)('cache on $name', (engine) => {
  it('loads on a miss, then serves from L1, and another process from L2', async () => {
    const ctx = await engine.open();
    const a = ctx.kit().cache;
    let loads = 0;
    const loader = async () => ({ merchant: 10086, rate: 0.006, loads: ++loads });
    expect(await a.getOrLoad('pay:merchant:10086:rate', loader, { ttlMs: 60_000 })).toEqual({ merchant: 10086, rate: 0.006, loads: 1 });
    expect(await a.getOrLoad('pay:merchant:10086:rate', loader, { ttlMs: 60_000 })).toEqual({ merchant: 10086, rate: 0.006, loads: 1 });
    expect(a.stats()).toMatchObject({ l1Hits: 1, l2Hits: 0, loaderCalls: 1 });
    const b = (await ctx.otherProcess()).cache;
    expect(await b.getOrLoad('pay:merchant:10086:rate', loader, { ttlMs: 60_000 })).toMatchObject({ loads: 1 });
    expect(b.stats()).toMatchObject({ l1Hits: 0, l2Hits: 1, loaderCalls: 0 });
    expect(loads).toBe(1);
  });

  it('hands each caller its own copy: mutating a result does not change the cache', async () => {
    const ctx = await engine.open();
    const { cache } = ctx.kit();
    const first = await cache.getOrLoad('pay:cfg:1:limits', async () => ({ max: 100 }), { ttlMs: 60_000 });
    first!.max = 1;
    expect(await cache.getOrLoad('pay:cfg:1:limits', async () => ({ max: 5 }), { ttlMs: 60_000 })).toEqual({ max: 100 });
  });

  it('caches "nothing found" for nullTtlMs only', async () => {
    const ctx = await engine.open();
    const { cache } = ctx.kit();
    let loads = 0;
    const missing = async () => {
      loads++;
      return null;
    };
    expect(await cache.getOrLoad('pay:merchant:404:rate', missing, { ttlMs: 60_000, nullTtlMs: 200 })).toBeNull();
    expect(await cache.getOrLoad('pay:merchant:404:rate', missing, { ttlMs: 60_000, nullTtlMs: 200 })).toBeNull();
    expect(loads).toBe(1);
    await ctx.elapse(250);
    expect(await cache.getOrLoad('pay:merchant:404:rate', async () => 'now there', { ttlMs: 60_000, nullTtlMs: 200 })).toBe('now there');
  });

  it('spreads expiry by ± jitter × ttl', async () => {
    const ctx = await engine.open();
    const short = ctx.kit({ random: () => 0 }).cache; // ttl × (1 − jitter) = 200 ms
    const long = ctx.kit({ random: () => 1 }).cache; // ttl × (1 + jitter) = 600 ms
    let loads = 0;
    const loader = async () => ++loads;
    await short.getOrLoad('pay:a:1:x', loader, { ttlMs: 400, jitter: 0.5 });
    await long.getOrLoad('pay:a:2:x', loader, { ttlMs: 400, jitter: 0.5 });
    await ctx.elapse(300);
    await short.getOrLoad('pay:a:1:x', loader, { ttlMs: 400, jitter: 0.5 });
    await long.getOrLoad('pay:a:2:x', loader, { ttlMs: 400, jitter: 0.5 });
    expect(loads).toBe(3); // only the short-jittered key expired
  });

  it('1,000 concurrent misses call the loader once per process, and once across two processes', async () => {
    const ctx = await engine.open();
    const caches = [ctx.kit().cache, (await ctx.otherProcess()).cache];
    let loads = 0;
    const loader = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 50)); // a slow database query: the stampede window
      return { hot: true };
    };
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => caches[i % 2].getOrLoad('pay:channel:alipay:config', loader, { ttlMs: 60_000 })),
    );
    expect(results.every((r) => r !== null && r.hot === true)).toBe(true);
    expect(loads).toBe(1);
    expect(caches[0].stats().loaderCalls + caches[1].stats().loaderCalls).toBe(1);
  });

  it('a loader failure reaches every waiter and caches nothing', async () => {
    const ctx = await engine.open();
    const { cache } = ctx.kit();
    let loads = 0;
    const failing = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 10));
      throw new Error('db timeout');
    };
    const settled = await Promise.allSettled(Array.from({ length: 20 }, () => cache.getOrLoad('pay:m:1:x', failing, { ttlMs: 60_000 })));
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    expect(loads).toBe(1);
    expect(await cache.getOrLoad('pay:m:1:x', async () => 'recovered', { ttlMs: 60_000 })).toBe('recovered');
  });

  it('invalidate reaches the L1 of every instance', async () => {
    const ctx = await engine.open();
    const a = ctx.kit().cache;
    const b = (await ctx.otherProcess()).cache;
    let version = 1;
    const loader = async () => ({ version });
    await a.getOrLoad('pay:merchant:7:fee', loader, { ttlMs: 60_000 });
    expect(await b.getOrLoad('pay:merchant:7:fee', loader, { ttlMs: 60_000 })).toEqual({ version: 1 });
    expect(await b.getOrLoad('pay:merchant:7:fee', loader, { ttlMs: 60_000 })).toEqual({ version: 1 });
    expect(b.stats().l1Hits).toBe(1);
    version = 2; // update the database, then invalidate
    await a.invalidate('pay:merchant:7:fee');
    expect(await a.getOrLoad('pay:merchant:7:fee', loader, { ttlMs: 60_000 })).toEqual({ version: 2 });
    await eventually(async () => (await b.getOrLoad('pay:merchant:7:fee', loader, { ttlMs: 60_000 }))?.version === 2);
  });

  it('keeps L1 bounded, evicting the least recently used', async () => {
    const ctx = await engine.open();
    const { cache } = ctx.kit({ cache: { l1MaxEntries: 3 } });
    for (const id of [1, 2, 3]) await cache.getOrLoad(`pay:m:${id}:x`, async () => id, { ttlMs: 60_000 });
    await cache.getOrLoad('pay:m:1:x', async () => -1, { ttlMs: 60_000 }); // 1 is now the most recent
    await cache.getOrLoad('pay:m:4:x', async () => 4, { ttlMs: 60_000 }); // evicts 2
    expect(cache.stats().l1Entries).toBe(3);
    const before = cache.stats();
    await cache.getOrLoad('pay:m:1:x', async () => -1, { ttlMs: 60_000 });
    await cache.getOrLoad('pay:m:2:x', async () => -1, { ttlMs: 60_000 });
    expect(cache.stats().l1Hits - before.l1Hits).toBe(1);
    expect(cache.stats().l2Hits - before.l2Hits).toBe(1);
  });

  it('rejects bad keys, options and values with the field named', async () => {
    const ctx = await engine.open();
    const { cache } = ctx.kit();
    const fieldOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ValidationError).issues?.[0]?.field;
    const ok = async () => 1;
    expect(await fieldOf(cache.getOrLoad('', ok, { ttlMs: 100 }))).toBe('key');
    expect(await fieldOf(cache.getOrLoad('k'.repeat(513), ok, { ttlMs: 100 }))).toBe('key');
    expect(await fieldOf(cache.getOrLoad('k', ok, { ttlMs: 0 }))).toBe('ttlMs');
    expect(await fieldOf(cache.getOrLoad('k', ok, { ttlMs: 100, nullTtlMs: -1 }))).toBe('nullTtlMs');
    expect(await fieldOf(cache.getOrLoad('k', ok, { ttlMs: 100, jitter: 1.5 }))).toBe('jitter');
    expect(await fieldOf(cache.getOrLoad('k', async () => ({ n: 1n }), { ttlMs: 100 }))).toBe('value');
    expect(await fieldOf(cache.invalidate(' \t'))).toBe('key');
  });
});
