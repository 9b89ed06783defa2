// Concurrent identical reads share one store call; a completed write ends the sharing (read-your-writes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse, type Pulse } from '../../src/index.js';
import { ReadCoalescer } from '../../src/server/readCoalescer.js';

/** The real embedded pulse, with rate() held at a gate so reads overlap for as long as the test wants. */
function gated(pulse: Pulse) {
  let open!: () => void;
  let gate = new Promise<void>((r) => (open = r));
  let calls = 0;
  const slow = new Proxy(pulse, {
    get(target, prop) {
      if (prop === 'rate') {
        return async (...args: Parameters<Pulse['rate']>) => {
          calls += 1;
          await gate;
          return target.rate(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    slow,
    get calls() {
      return calls;
    },
    release() {
      open();
      gate = new Promise<void>((r) => (open = r));
    },
  };
}

describe('ReadCoalescer', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 5));
  let pulse: Pulse;
  beforeAll(async () => {
    pulse = await createPulse({ clock });
  });
  afterAll(async () => pulse.close());

  it('answers identical concurrent reads with one store call, different ones separately', async () => {
    const g = gated(pulse);
    const reads = new ReadCoalescer(g.slow);
    const same = [reads.rate('a', { window: '5m' }), reads.rate('a', { window: '5m' }), reads.rate('a', { window: '5m' })];
    const other = reads.rate('a', { window: '1m' });
    g.release();
    const results = await Promise.all([...same, other]);
    expect(g.calls).toBe(2);
    expect(results[0]).toBe(results[2]);
    expect(results[3]!.window).toBe('1m');
    expect(reads.joined).toBe(2);
    // Once settled, the next read calls the store again.
    const next = reads.rate('a', { window: '5m' });
    g.release();
    await next;
    expect(g.calls).toBe(3);
  });

  it('does not let a read started after a completed write join one started before it', async () => {
    const g = gated(pulse);
    const reads = new ReadCoalescer(g.slow);
    const before = reads.rate('rw', { window: '5m' });
    await reads.record({ channel: 'rw', requestId: 'w1', status: 'success', at: clock.now() - 1_000 });
    const after = reads.rate('rw', { window: '5m' });
    g.release();
    expect(g.calls).toBe(2);
    expect((await after).total).toBe(1);
    await before;
  });
});
