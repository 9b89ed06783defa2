import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { IdempotencyMismatchError } from '../../src/kit/errors.js';
import { kitEngines } from './engines.js';

const { engines } = kitEngines();

describe.each(engines)('idempotency on $name', (engine) => {
  it('executes once and hands the first result to a duplicate', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    let calls = 0;
    const handler = async () => ({ orderId: 'o-1', paid: ++calls });
    const first = await idempotency.run('alipay:notify:o-1', { processingMs: 5000 }, handler);
    expect(first).toEqual({ status: 'executed', result: { orderId: 'o-1', paid: 1 }, stored: true });
    const again = await (await ctx.otherProcess()).idempotency.run('alipay:notify:o-1', { processingMs: 5000 }, handler);
    expect(again).toEqual({ status: 'duplicate', result: { orderId: 'o-1', paid: 1 } });
    expect(calls).toBe(1);
  });

  it('100 concurrent identical callbacks run the handler exactly once and all get its result', async () => {
    const ctx = await engine.open();
    const kits = [ctx.kit(), await ctx.otherProcess()];
    let calls = 0;
    const handler = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 50));
      return { settled: true, n: calls };
    };
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => kits[i % 2].idempotency.run('wx:pay:42', { processingMs: 5000, waitMs: 5000 }, handler)),
    );
    expect(calls).toBe(1);
    expect(outcomes.filter((o) => o.status === 'executed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'duplicate')).toHaveLength(99);
    for (const o of outcomes) expect(o.result).toEqual({ settled: true, n: 1 });
  });

  it('a concurrent duplicate without waitMs is told in-progress', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    let finish!: () => void;
    const first = idempotency.run('cb:1', { processingMs: 5000 }, () => new Promise<string>((r) => (finish = () => r('ok'))));
    await new Promise((r) => setTimeout(r, 20));
    expect(await idempotency.run('cb:1', { processingMs: 5000 }, async () => 'second')).toEqual({ status: 'in-progress', result: undefined });
    finish();
    expect((await first).status).toBe('executed');
  });

  it('a failed handler deletes its mark so a retry runs', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    await expect(idempotency.run('cb:fail', { processingMs: 5000 }, async () => { throw new Error('db down'); })).rejects.toThrow('db down');
    const retry = await idempotency.run('cb:fail', { processingMs: 5000 }, async () => 'paid');
    expect(retry).toMatchObject({ status: 'executed', result: 'paid' });
  });

  it('a crashed handler blocks duplicates only until processingMs, not for the 48 h result ttl', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    let release!: () => void;
    void idempotency.run('cb:crash', { processingMs: 200 }, () => new Promise<void>((r) => (release = r))); // never completes in time
    await new Promise((r) => setTimeout(r, 20));
    expect((await idempotency.run('cb:crash', { processingMs: 200 }, async () => 'x')).status).toBe('in-progress');
    await ctx.elapse(250);
    expect(await idempotency.run('cb:crash', { processingMs: 200 }, async () => 'x')).toMatchObject({ status: 'executed', result: 'x' });
    release(); // the stalled first run finishing late does not overwrite the result now stored
    await new Promise((r) => setTimeout(r, 20));
    expect(await idempotency.run('cb:crash', { processingMs: 200 }, async () => 'y')).toEqual({ status: 'duplicate', result: 'x' });
  });

  it('keeps the result for ttlMs, then forgets it', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    await idempotency.run('cb:ttl', { processingMs: 100, ttlMs: 200 }, async () => 1);
    expect((await idempotency.run('cb:ttl', { processingMs: 100, ttlMs: 200 }, async () => 2)).status).toBe('duplicate');
    await ctx.elapse(250);
    expect(await idempotency.run('cb:ttl', { processingMs: 100, ttlMs: 200 }, async () => 2)).toMatchObject({ status: 'executed', result: 2 });
  });

  it('the same key with a different request is an error; the same request in another key order is a duplicate', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    const request = { orderId: 'o-9', amount: 1000, currency: 'CNY' };
    await idempotency.run('refund:o-9', { processingMs: 5000, fingerprint: request }, async () => 'refunded');
    const reordered = { currency: 'CNY', amount: 1000, orderId: 'o-9' };
    expect(await idempotency.run('refund:o-9', { processingMs: 5000, fingerprint: reordered }, async () => 'again')).toEqual({ status: 'duplicate', result: 'refunded' });
    const changed = idempotency.run('refund:o-9', { processingMs: 5000, fingerprint: { ...request, amount: 2000 } }, async () => 'again');
    await expect(changed).rejects.toBeInstanceOf(IdempotencyMismatchError);
    await expect(changed).rejects.toMatchObject({ code: 'PP_ERR_IDEMPOTENCY_MISMATCH', status: 422 });
  });

  it('a handler returning nothing gives duplicates nothing, not null', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    await idempotency.run('cb:void', { processingMs: 5000 }, async () => undefined);
    expect(await idempotency.run('cb:void', { processingMs: 5000 }, async () => 'late')).toEqual({ status: 'duplicate', result: undefined });
  });

  it('a result that cannot be stored is a typed error naming the field, and the key stays retryable', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    const cases: Array<[unknown, string]> = [
      [{ amount: 10n }, 'result.amount'],
      [{ at: new Date(0) }, 'result.at'],
      [{ items: [1, () => 2] }, 'result.items[1]'],
      [{ rate: Number.NaN }, 'result.rate'],
      [new Map(), 'result'],
    ];
    for (const [value, field] of cases) {
      const error = await idempotency.run('cb:bad', { processingMs: 5000 }, async () => value).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toContain(field);
    }
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = await idempotency.run('cb:bad', { processingMs: 5000 }, async () => circular).catch((e: unknown) => e);
    expect((error as ValidationError).message).toContain('circular');
    expect(await idempotency.run('cb:bad', { processingMs: 5000 }, async () => 'fixed')).toMatchObject({ status: 'executed' });
  });

  it('rejects bad keys and options with the field named', async () => {
    const ctx = await engine.open();
    const { idempotency } = ctx.kit();
    const fieldOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ValidationError).issues?.[0]?.field;
    const ok = async () => 1;
    expect(await fieldOf(idempotency.run('', { processingMs: 100 }, ok))).toBe('key');
    expect(await fieldOf(idempotency.run('k'.repeat(257), { processingMs: 100 }, ok))).toBe('key');
    expect(await fieldOf(idempotency.run('k', { processingMs: 0 }, ok))).toBe('processingMs');
    expect(await fieldOf(idempotency.run('k', { processingMs: 100, ttlMs: -1 }, ok))).toBe('ttlMs');
    expect(await fieldOf(idempotency.run('k', { processingMs: 100, waitMs: 0.5 }, ok))).toBe('waitMs');
  });
});
