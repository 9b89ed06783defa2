// The one verdict of the dashboard's rows and the alerts: a level only when it lies above the whole interval
// at the alerts' z (the point rate at z = 0), and the firing alert's level while one fires.
import { describe, expect, it } from 'vitest';
import { channelVerdict, verdictRank } from '../../src/stats/verdict.js';
import { grade } from '../../src/stats/severity.js';
import type { Rate } from '../../src/types.js';

const thresholds = { warn: 0.95, major: 0.8, critical: 0.5 };
const rule = { thresholds, minSamples: 50 };

function rate(window: string, success: number, failure: number): Rate {
  const total = success + failure;
  const r = total > 0 ? success / total : null;
  return { channel: 'c', window, total, success, failure, rate: r, low: r ?? 0, high: r ?? 1, sufficient: total >= 50, started: total, pending: 0, stale: false, asOf: 0 };
}

describe('verdictRank', () => {
  it('at z = 0 is the grade of the point rate', () => {
    for (const [s, f] of [[100, 0], [949, 51], [950, 50], [799, 201], [80, 20], [49, 51], [10, 90]] as const) {
      const expected = { ok: 0, warn: 1, major: 2, critical: 3 }[grade(s / (s + f), thresholds) as 'ok'];
      expect(verdictRank(rate('1m', s, f), rule, 0)).toBe(expected);
    }
  });

  it('at the alerts z gives a level only when the whole interval lies below it', () => {
    // 94 % of 600: the point is below 95 %, its z-4 interval reaches above it.
    expect(verdictRank(rate('1m', 564, 36), rule, 4)).toBe(0);
    // 40 % of 600 is critical with any z.
    expect(verdictRank(rate('1m', 240, 360), rule, 4)).toBe(3);
    expect(verdictRank(rate('1m', 20, 20), rule, 0)).toBe(0);
  });
});

describe('channelVerdict', () => {
  const windows = ['1m', '5m'];

  it('is the firing alert’s level while one fires, whatever the windows say', () => {
    const healthyNow = { '1m': rate('1m', 100, 0), '5m': rate('5m', 420, 80) };
    expect(channelVerdict(healthyNow, windows, rule, 4, null)).toEqual({ state: 'ok', rate: 1, window: '1m' });
    expect(channelVerdict(healthyNow, windows, rule, 4, 'warn')).toEqual({ state: 'warn', rate: 1, alerted: true });
    // Drained: no outcome at all, still the alert's level.
    expect(channelVerdict({}, windows, rule, 4, 'critical')).toMatchObject({ state: 'critical', alerted: true });
  });

  it('judges the shortest window with enough samples, then few, then none', () => {
    expect(channelVerdict({ '1m': rate('1m', 10, 10), '5m': rate('5m', 60, 40) }, windows, rule, 0, null)).toEqual({ state: 'major', rate: 0.6, window: '5m' });
    expect(channelVerdict({ '1m': rate('1m', 10, 10), '5m': rate('5m', 20, 10) }, windows, rule, 0, null)).toMatchObject({ state: 'few' });
    expect(channelVerdict({ '1m': rate('1m', 0, 0) }, windows, rule, 0, null)).toEqual({ state: 'none', rate: null });
  });
});
