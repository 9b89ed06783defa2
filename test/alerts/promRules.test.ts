// `paypulse rules` output checked by the real promtool: `promtool check rules` accepts it, and
// `promtool test rules` shows the levels, per-channel levels, `for:` on the long window, silent and
// burn-rate alerts firing on series shaped like our /metrics.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { promRulesYaml } from '../../src/alerts/promRules.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';

const dir = mkdtempSync(join(tmpdir(), 'paypulse-promtool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rules = resolveAlertRules({
  channels: { 'bank-x': { thresholds: { warn: 0.9, major: 0.7, critical: 0.4 } } },
  burnRate: { target: 0.95, pairs: [['1h', '5m', 14.4], ['2h', '30m', 6]] },
});

/** One window gauge series: `before` until 60 s, then `after` (values every 5 s for 2 minutes). */
function gauge(channel: string, window: string, status: string, before: number, after: number) {
  return { series: `paypulse_window_outcomes{channel="${channel}",window="${window}",status="${status}",instance="a"}`, values: `${before}x12 ${after}x12` };
}

function channelSeries(channel: string, perMinute: number, share1m: [number, number], share5m: [number, number], oneHourShare = 0.97, after1mTotal = perMinute) {
  return [
    gauge(channel, '1m', 'success', perMinute * 0.97, after1mTotal * share1m[1]),
    gauge(channel, '1m', 'failure', perMinute * 0.03, after1mTotal * (1 - share1m[1])),
    gauge(channel, '5m', 'success', 5 * perMinute * share5m[0], 5 * perMinute * share5m[1]),
    gauge(channel, '5m', 'failure', 5 * perMinute * (1 - share5m[0]), 5 * perMinute * (1 - share5m[1])),
    gauge(channel, '1h', 'success', 60 * perMinute * oneHourShare, 60 * perMinute * oneHourShare),
    gauge(channel, '1h', 'failure', 60 * perMinute * (1 - oneHourShare), 60 * perMinute * (1 - oneHourShare)),
  ];
}

const rate = (channel: string, severity: string, window: string) => ({
  exp_labels: { channel, severity, window, rule: 'rate' },
  exp_annotations: { summary: `${channel}: success rate below the ${severity} level on ${window}` },
});

function promtool(...args: string[]) {
  const run = spawnSync('promtool', args, { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('paypulse rules with promtool', () => {
  it('passes promtool check rules and promtool test rules', () => {
    writeFileSync(join(dir, 'rules.yml'), promRulesYaml(rules, { windows: ['1m', '5m', '15m', '1h'] }));
    const check = promtool('check', 'rules', join(dir, 'rules.yml'));
    expect(check.output).toContain('SUCCESS');
    expect(check.status).toBe(0);

    const input = [
      ...channelSeries('acq', 600, [0.97, 0.4], [0.97, 0.97]),
      ...channelSeries('bank-x', 600, [0.97, 0.4], [0.97, 0.97]),
      ...channelSeries('slow', 600, [0.97, 0.97], [0.97, 0.9]),
      ...channelSeries('quiet', 600, [0.97, 0.97], [0.97, 0.97], 0.97, 0),
      ...channelSeries('tiny', 30, [0.97, 0.0], [0.97, 0.97]),
      ...channelSeries('burner', 600, [0.97, 0.1], [0.97, 0.1], 0.1),
    ];
    const burner = ['critical', 'major', 'warn'].map((s) => rate('burner', s, '1m'));
    const tests = {
      rule_files: ['rules.yml'],
      evaluation_interval: '5s',
      // promtool evaluates groups in no set order unless told: alerts reading this step's recordings, not the last.
      group_eval_order: ['paypulse-recording', 'paypulse-alerts'],
      tests: [{
        interval: '5s',
        input_series: input,
        alert_rule_test: [
          { eval_time: '55s', alertname: 'PayPulseSuccessRateLow', exp_alerts: [] },
          { eval_time: '70s', alertname: 'PayPulseSuccessRateLow', exp_alerts: [
            ...['critical', 'major', 'warn'].map((s) => rate('acq', s, '1m')),
            // bank-x's own levels: 40 % is above its critical 0.40 upper bound.
            ...['major', 'warn'].map((s) => rate('bank-x', s, '1m')),
            ...burner,
          ] },
          // The long window needs `for: 15s` (3 × 5 s): pending at 70 s, firing from 75 s.
          { eval_time: '80s', alertname: 'PayPulseSuccessRateLow', exp_alerts: [
            ...['critical', 'major', 'warn'].map((s) => rate('acq', s, '1m')),
            ...['major', 'warn'].map((s) => rate('bank-x', s, '1m')),
            ...burner,
            rate('slow', 'warn', '5m'),
            ...['critical', 'major', 'warn'].map((s) => rate('burner', s, '5m')),
          ] },
          { eval_time: '70s', alertname: 'PayPulseChannelSilent', exp_alerts: [{
            exp_labels: { channel: 'quiet', severity: 'critical', rule: 'silent' },
            exp_annotations: { summary: 'quiet completes almost no payments (1m below 20 % of usual)' },
          }] },
          { eval_time: '70s', alertname: 'PayPulseErrorBudgetBurn', exp_alerts: [{
            exp_labels: { channel: 'burner', severity: 'critical', rule: 'burn:1h:5m', long_window: '1h', short_window: '5m' },
            exp_annotations: { summary: 'burner burns its error budget (target 0.95) faster than 14.4× over 1h and 5m' },
          }] },
        ],
      }],
    };
    writeFileSync(join(dir, 'tests.yml'), stringify(tests));
    const test = promtool('test', 'rules', join(dir, 'tests.yml'));
    expect(test.output).toContain('SUCCESS');
    expect(test.status).toBe(0);
  });

  it('refuses rules whose windows the service does not expose', () => {
    expect(() => promRulesYaml(rules, { windows: ['1m', '15m'] })).toThrow(/5m, 1h/);
  });
});
