import { describe, expect, it } from 'vitest';
import { PayPulseError, ValidationError } from '../../src/errors.js';
import { LockHeldError, LockLostError } from '../../src/kit/errors.js';
import { eventually, kitEngines, realSleep } from './engines.js';

const { engines } = kitEngines();

describe.each(engines)('lock on $name', (engine) => {
  it('is exclusive, hands out increasing fences, and release frees it', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const first = await lock.acquire('order:1', { ttlMs: 5000 });
    expect(first).not.toBeNull();
    expect(await lock.acquire('order:1', { ttlMs: 5000 })).toBeNull();
    expect(await lock.acquire('order:2', { ttlMs: 5000 })).not.toBeNull();
    expect(await first!.release()).toBe(true);
    expect(await first!.release()).toBe(false);
    const second = await lock.acquire('order:1', { ttlMs: 5000 });
    expect(second!.fence).toBeGreaterThan(first!.fence);
    expect(second!.token).not.toBe(first!.token);
  });

  it('normalises names in one place: surrounding spaces name the same lock', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    expect(await lock.acquire('  pay:42 ', { ttlMs: 5000 })).not.toBeNull();
    expect(await lock.acquire('pay:42', { ttlMs: 5000 })).toBeNull();
  });

  it('hands over on expiry, and the old holder can neither release nor extend the new lock', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const old = await lock.acquire('refund:7', { ttlMs: 150 });
    await ctx.elapse(200);
    const fresh = await lock.acquire('refund:7', { ttlMs: 5000 });
    expect(fresh).not.toBeNull();
    expect(fresh!.fence).toBeGreaterThan(old!.fence);
    expect(await old!.release()).toBe(false);
    expect(await old!.extend(5000)).toBe(false);
    expect(await lock.acquire('refund:7', { ttlMs: 5000 })).toBeNull(); // still held by `fresh`
    expect(await fresh!.extend()).toBe(true);
  });

  it('waits up to waitMs for a holder to let go', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const holder = await lock.acquire('settle', { ttlMs: 5000 });
    setTimeout(() => void holder!.release(), 60);
    const started = Date.now();
    expect(await lock.acquire('settle', { ttlMs: 5000, waitMs: 20 })).toBeNull();
    const waiter = await lock.acquire('settle', { ttlMs: 5000, waitMs: 2000 });
    expect(waiter).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('50 contenders over 2,000 critical sections never overlap, and fences strictly increase', async () => {
    const ctx = await engine.open();
    const kits = [ctx.kit(), await ctx.otherProcess()];
    let inside = 0;
    let maxInside = 0;
    const fences: number[] = [];
    const contender = async (i: number) => {
      const { lock } = kits[i % kits.length];
      for (let section = 0; section < 40; section++) {
        const handle = await lock.acquire('hot-account', { ttlMs: 10_000, waitMs: 30_000 });
        expect(handle).not.toBeNull();
        inside++;
        maxInside = Math.max(maxInside, inside);
        fences.push(handle!.fence);
        if (section % 4 === 0) await Promise.resolve(); // yield inside the section, as real work would
        inside--;
        expect(await handle!.release()).toBe(true);
      }
    };
    await Promise.all(Array.from({ length: 50 }, (_, i) => contender(i)));
    expect(fences).toHaveLength(2000);
    expect(maxInside).toBe(1);
    for (let i = 1; i < fences.length; i++) expect(fences[i]).toBeGreaterThan(fences[i - 1]);
  }, 60_000);

  it('using() returns the work result, passes the fence, and releases afterwards', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    let seenFence = 0;
    const result = await lock.using('capture:9', { ttlMs: 5000 }, async (signal, fence) => {
      seenFence = fence;
      expect(signal.aborted).toBe(false);
      expect(await lock.acquire('capture:9', { ttlMs: 5000 })).toBeNull();
      return 'captured';
    });
    expect(result).toBe('captured');
    expect(seenFence).toBeGreaterThan(0);
    expect(await lock.acquire('capture:9', { ttlMs: 5000 })).not.toBeNull();
  });

  it('using() throws LockHeldError when someone else holds it, and releases when the work throws', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const holder = await lock.acquire('payout', { ttlMs: 5000 });
    const held = await lock.using('payout', { ttlMs: 1000 }, async () => 1).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(LockHeldError);
    expect((held as PayPulseError).code).toBe('PP_ERR_LOCK_HELD');
    await holder!.release();
    await expect(lock.using('payout', { ttlMs: 1000 }, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await lock.acquire('payout', { ttlMs: 1000 })).not.toBeNull();
  });

  it('using() renews every ttl/3 while the work outlives the ttl', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const other = (await ctx.otherProcess()).lock;
    const ttlMs = 300;
    await lock.using('long-job', { ttlMs }, async (signal) => {
      for (let step = 0; step < 4; step++) {
        await realSleep(ttlMs / 3 + 40); // lets the watchdog renew
        await ctx.elapse(ttlMs / 2); // store time moves on: without renewals the lock would be gone
        expect(await other.acquire('long-job', { ttlMs })).toBeNull();
      }
      expect(signal.aborted).toBe(false);
    });
    expect(await other.acquire('long-job', { ttlMs })).not.toBeNull();
  });

  it('using() aborts the signal and throws LockLostError once the lock is lost, without reviving it', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const other = (await ctx.otherProcess()).lock;
    const ttlMs = 300;
    let taker: Awaited<ReturnType<typeof other.acquire>> = null;
    const outcome = await lock
      .using('lost-job', { ttlMs }, async (signal) => {
        await ctx.breakLock('lost-job', ttlMs);
        taker = await other.acquire('lost-job', { ttlMs: 10_000 });
        await eventually(() => signal.aborted, 2000);
        return 'finished anyway';
      })
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(LockLostError);
    expect((outcome as LockLostError).reason).toBe('expired');
    expect(taker).not.toBeNull();
    expect(await taker!.extend()).toBe(true); // the lost holder neither renewed nor released the new lock
  });

  it('rejects bad input with the field named', async () => {
    const ctx = await engine.open();
    const { lock } = ctx.kit();
    const fieldOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ValidationError).issues?.[0]?.field;
    expect(await fieldOf(lock.acquire('', { ttlMs: 100 }))).toBe('resource');
    expect(await fieldOf(lock.acquire('   ', { ttlMs: 100 }))).toBe('resource');
    expect(await fieldOf(lock.acquire('a\nb', { ttlMs: 100 }))).toBe('resource');
    expect(await fieldOf(lock.acquire('x'.repeat(201), { ttlMs: 100 }))).toBe('resource');
    expect(await fieldOf(lock.acquire('ok', { ttlMs: 0 }))).toBe('ttlMs');
    expect(await fieldOf(lock.acquire('ok', { ttlMs: -5 }))).toBe('ttlMs');
    expect(await fieldOf(lock.acquire('ok', { ttlMs: 1.5 }))).toBe('ttlMs');
    expect(await fieldOf(lock.acquire('ok', { ttlMs: 100, waitMs: -1 }))).toBe('waitMs');
    expect(await fieldOf(lock.using('ok', { ttlMs: Number.NaN }, async () => 1))).toBe('ttlMs');
  });
});
