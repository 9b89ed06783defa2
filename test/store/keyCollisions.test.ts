// Names that differ only in braces against underscores once shared one key (braces were replaced, not
// escaped): another order's idempotent result, another merchant's cached value, a lock already held. Each
// pair must be two keys, on Redis and embedded.
import { describe, expect, it } from 'vitest';
import { kitEngines } from '../kit/engines.js';

const { engines } = kitEngines();

describe.each(engines)('names that differ only in braces, on $name', (engine) => {
  it('callback:ord{42}:paid and callback:ord_42_:paid are two idempotency keys', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    const first = await idempotency.run('callback:ord{42}:paid', { processingMs: 5000 }, async () => ({ order: 'ord{42}' }));
    expect(first).toMatchObject({ status: 'executed', result: { order: 'ord{42}' } });
    const other = await idempotency.run('callback:ord_42_:paid', { processingMs: 5000 }, async () => ({ order: 'ord_42_' }));
    expect(other).toMatchObject({ status: 'executed', result: { order: 'ord_42_' } });
  });

  it('merchant:{10086}:rate and merchant:_10086_:rate are two cache entries', async () => {
    const ctx = await engine.open();
    const ttl = { ttlMs: 60_000 };
    expect(await ctx.kit().cache.getOrLoad('merchant:{10086}:rate', async () => 0.6, ttl)).toBe(0.6);
    // Another process: its own L1, so the answer comes from the shared store.
    const other = await ctx.otherProcess();
    expect(await other.cache.getOrLoad('merchant:_10086_:rate', async () => 0.9, ttl)).toBe(0.9);
    expect(await other.cache.getOrLoad('merchant:{10086}:rate', async () => -1, ttl)).toBe(0.6);
  });

  it('order:{7} and order:_7_ are two locks', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const held = await lock.acquire('order:{7}', { ttlMs: 10_000 });
    expect(held).not.toBeNull();
    const other = await (await ctx.otherProcess()).lock.acquire('order:_7_', { ttlMs: 10_000 });
    expect(other).not.toBeNull();
    expect(await (await ctx.otherProcess()).lock.acquire('order:{7}', { ttlMs: 10_000 })).toBeNull();
  });
});
