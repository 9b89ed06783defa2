// The page's number and state formatting, in Node: the same ES module the browser loads.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS module of the page, without type declarations
import { ago, colourSlot, interval, percent, severity, windowSeconds } from '../../web/format.js';

const thresholds = { warn: 0.95, major: 0.8, critical: 0.5 };

describe('dashboard formatting', () => {
  it('grades a rate strictly below each threshold', () => {
    expect(severity(0.95, thresholds)).toBe('ok');
    expect(severity(0.9499, thresholds)).toBe('warn');
    expect(severity(0.8, thresholds)).toBe('warn');
    expect(severity(0.7999, thresholds)).toBe('major');
    expect(severity(0.5, thresholds)).toBe('major');
    expect(severity(0.4999, thresholds)).toBe('critical');
    expect(severity(null, thresholds)).toBe('none');
  });

  it('never shows a rate below a threshold as the threshold itself', () => {
    expect(percent(0.94996)).toBe('94.9 %');
    expect(percent(0.99996)).toBe('99.99 %');
    expect(percent(0.85)).toBe('85.0 %');
    expect(percent(1)).toBe('100 %');
    expect(percent(0)).toBe('0.0 %');
    expect(percent(null)).toBe('—');
  });

  it('writes the interval and the age for people', () => {
    expect(interval(0.60416, 0.78106)).toBe('60.4–78.1 %');
    expect(interval(null, null)).toBe('');
    expect(ago(400)).toBe('0.4 s');
    expect(ago(42_000)).toBe('42 s');
    expect(ago(600_000)).toBe('10 min');
  });

  it('orders windows by their length', () => {
    expect(['1h', '30s', '5m', '15m'].sort((a, b) => windowSeconds(a) - windowSeconds(b))).toEqual(['30s', '5m', '15m', '1h']);
  });

  it('gives a channel the same colour on every load, and channels on one chart distinct ones', () => {
    const names = ['alipay', 'wechat', 'card-visa', 'bank-x', 'paypal', 'klarna'];
    const assign = (order: string[]) => {
      const slots = new Map<string, number>();
      for (const name of order) slots.set(name, colourSlot(name, new Set(slots.values()), 8));
      return slots;
    };
    const first = assign(names);
    expect(new Set(first.values()).size).toBe(names.length);
    // A channel alone on the chart, whatever else was seen before, gets its own home colour.
    for (const name of names) expect(assign([name]).get(name)).toBe(colourSlot(name, new Set(), 8));
    expect(assign(names)).toEqual(first);
  });
});
