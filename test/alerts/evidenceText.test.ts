// What a notification says must agree with itself: the window it names is the window of the rate it quotes,
// the interval it prints is the one the level was decided on (z = confidenceZ), and receivers get percentages.
// (The window named is checked end to end in evaluation.test.ts.)
import { describe, expect, it } from 'vitest';
import { observeRate } from '../../src/alerts/decision.js';
import { emptyEvidence, summaryOf } from '../../src/alerts/notification.js';
import { amAnnotations } from '../../src/alerts/receivers/alertmanager.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { wilsonAt } from '../../src/stats/wilson.js';
import type { Rate } from '../../src/types.js';

function rate(window: string, success: number, total: number): Rate {
  const { low, high } = wilsonAt(success, total, 1.96);
  return { channel: 'bank-x', window, total, success, failure: total - success, rate: success / total, low, high, sufficient: true, started: 0, pending: 0, stale: false, asOf: 0 };
}

const rules = resolveAlertRules({});
const rule = rules.defaults;

describe('what a notification quotes', () => {
  it('prints the interval the level was decided on, which never lies wholly below a level it did not reach', () => {
    // 74.3 % of 300: the 95 % interval lies wholly below major (80 %), the z = 4 interval does not.
    const r = rate('1m', 223, 300);
    expect(r.high!).toBeLessThan(rule.thresholds.major);
    const observed = observeRate({ '1m': r, '5m': rate('5m', 1350, 1500) }, rule, rules);
    expect(observed.fast).toBe(1); // warn, not major
    const basis = observed.basis!;
    expect(basis.high!).toBeGreaterThanOrEqual(rule.thresholds.major);
    const text = summaryOf({ transition: 'de-escalated', level: 'warn', channel: 'bank-x', rule: 'rate', rate: { ...basis, z: rules.confidenceZ }, window: basis.window, evidence: emptyEvidence });
    expect(text).toContain(`(${(basis.low! * 100).toFixed(1)} %–${(basis.high! * 100).toFixed(1)} %`);
  });

  it('gives Alertmanager percentages, not raw floats', () => {
    const annotations = amAnnotations({
      alertname: 'PayPulseSuccessRateLow', channel: 'bank-x', ruleId: 'rate', rule: 'rate', since: 0, dashboardUrl: 'http://x/',
      rate: { window: '1m', rate: 0.4359977641140302, low: 0.39, high: 0.48, total: 600, failure: 338, z: 4 }, window: '1m',
      evidence: { ...emptyEvidence, concentration: [{ dims: { method: 'card' }, rate: 0.3012345, total: 300, failure: 210, drop: 0.6 }] },
    }, 'major', 'firing');
    expect(annotations.rate).toBe('43.6 %');
    expect(annotations.interval).toBe('39.0 %–48.0 % (z 4)');
    expect(annotations.concentration).toBe('method=card 30.1 %');
    for (const value of Object.values(annotations)) expect(value).not.toMatch(/\d\.\d{5,}/);
  });
});
