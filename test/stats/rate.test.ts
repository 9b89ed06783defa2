// A Rate never shows a count below zero, a rate outside [0, 1] or a NaN bound, whatever counts a store answers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toRate } from '../../src/stats/rate.js';

describe('toRate', () => {
  it('shows a count below zero as zero, so the rate stays within [0, 1] and its bounds are numbers', () => {
    const r = toRate('c', { method: 'wallet' }, '5m', { success: 1, failure: -1, started: 0, pending: -1 }, 10, 0);
    expect(r).toMatchObject({ total: 1, success: 1, failure: 0, rate: 1, pending: 0 });
    expect(Number.isNaN(r.low)).toBe(false);
  });

  it('keeps every figure sane for any counts', () => {
    const count = fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.constantFrom(Number.NaN, Infinity, -Infinity));
    fc.assert(
      fc.property(count, count, count, count, (success, failure, started, pending) => {
        const r = toRate('c', undefined, '5m', { success, failure, started, pending }, 10, 0);
        for (const n of [r.total, r.success, r.failure, r.started, r.pending]) expect(n >= 0 && Number.isFinite(n)).toBe(true);
        for (const x of [r.rate, r.low, r.high]) if (x !== null) expect(x >= 0 && x <= 1).toBe(true);
        expect(r.total).toBe(r.success + r.failure);
      }),
    );
  });
});
