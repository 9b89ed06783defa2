// Bad alert rules stop the start with the field and the reason; good ones get their defaults.
import { describe, expect, it } from 'vitest';
import { resolveAlertRules, ruleFor, windowsNeeded, type AlertRulesInput } from '../../src/alerts/rules.js';
import { ValidationError } from '../../src/errors.js';

function issuesOf(input: unknown, thresholds?: unknown): Array<[string, string]> {
  try {
    resolveAlertRules(input as AlertRulesInput, thresholds as never);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => [i.field, i.reason]);
  }
  return [];
}

describe('alert rules', () => {
  it('fills the defaults and merges per-channel overrides over them', () => {
    const rules = resolveAlertRules({ channels: { 'bank-x': { thresholds: { warn: 0.9, major: 0.7, critical: 0.4 } } } });
    expect(rules).toMatchObject({ window: '5m', shortWindow: '1m', evaluateEveryMs: 5_000, consecutive: 3, repeatEveryMs: 1_800_000, confidenceZ: 4 });
    expect(ruleFor(rules, 'bank-x')).toEqual({ thresholds: { warn: 0.9, major: 0.7, critical: 0.4 }, minSamples: 100, enabled: true });
    expect(ruleFor(rules, 'other').thresholds).toEqual({ warn: 0.95, major: 0.8, critical: 0.5 });
    expect(windowsNeeded(resolveAlertRules({ burnRate: { target: 0.95, pairs: [['2h', '30m', 6]] } }))).toEqual(['5m', '1m', '1h', '2h', '30m']);
  });

  it('names every bad field and why', () => {
    const issues = issuesOf({
      window: '7x',
      evaluateEvery: '0s',
      consecutive: 0,
      channels: { 'bank-x': { thresholds: { warn: 0.5, major: 0.7, critical: 0.4 } } },
      burnRate: { target: 0.95, pairs: [['48h', '30m', 6]] },
      webhooks: [{ url: 'ftp://x', format: 'xml' }],
      alertmanager: { url: 'http://am:9093', resendEvery: 'soon' },
      typo: 1,
    });
    const fields = issues.map(([f]) => f);
    expect(fields).toEqual(expect.arrayContaining([
      'alerts.window', 'alerts.evaluateEvery', 'alerts.consecutive', 'alerts.channels.bank-x.thresholds',
      'alerts.burnRate.pairs[0][0]', 'alerts.webhooks[0].url', 'alerts.webhooks[0].format', 'alerts.alertmanager.resendEvery', 'alerts.typo',
    ]));
    expect(issues.find(([f]) => f === 'alerts.burnRate.pairs[0][0]')![1]).toContain('24h');
    expect(issues.find(([f]) => f === 'alerts.channels.bank-x.thresholds')![1]).toBe('must satisfy critical < major < warn');
    expect(issuesOf({}, { warn: 2, major: 0.8, critical: 0.5 })).toEqual([['thresholds.warn', 'must be a number in (0, 1], got 2']]);
  });
});
