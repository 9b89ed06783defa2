// The `alerts` section of the service's config file: checked at start with the file and the field named.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';

const dir = mkdtempSync(join(tmpdir(), 'paypulse-alerts-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return () => loadConfig({ configPath: path, env: {} });
}

describe('alerts config section', () => {
  it('accepts the section of docs/alerts.md', () => {
    const config = load('ok.yml', `thresholds: { warn: 0.95, major: 0.8, critical: 0.5 }
alerts:
  window: 5m
  evaluateEvery: 5s
  consecutive: 3
  channels: { bank-x: { thresholds: { warn: 0.9, major: 0.7, critical: 0.4 } } }
  burnRate: { target: 0.95, pairs: [[1h, 5m, 14.4], [6h, 30m, 6]] }
  webhooks: [{ url: "https://ops.example/hook", secret: s3cret, format: json }]
  alertmanager: { url: "http://alertmanager:9093" }
`)();
    expect(config.alerts).toMatchObject({ window: '5m' });
  });

  it('names the file and each bad field with its reason', () => {
    const bad = load('bad.yml', `alerts:\n  consecutive: 0\n  webhooks: [{ url: "ftp://x" }]\n  channels: { bank-x: { thresholds: { warn: 0.5, major: 0.7, critical: 0.4 } } }\n`);
    expect(bad).toThrow(ConfigError);
    let lines: string[] = [];
    try {
      bad();
    } catch (err) {
      lines = (err as ConfigError).lines;
    }
    const file = join(dir, 'bad.yml');
    expect(lines).toEqual([
      `${file}: alerts.consecutive: must be an integer from 1 to 20, got 0`,
      `${file}: alerts.channels.bank-x.thresholds: must satisfy critical < major < warn`,
      `${file}: alerts.webhooks[0].url: must be an http:// or https:// URL, got "ftp://x"`,
    ]);
  });
});

describe('alerts config section, holes of a hostile run', () => {
  const linesOf = (run: () => unknown): string[] => {
    try {
      run();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).lines;
    }
    throw new Error('expected a ConfigError');
  };

  it('a window under the default short window makes the short window adapt instead of refusing a field nobody set', () => {
    expect(load('w20s.json', JSON.stringify({ alerts: { window: '20s' } }))().alerts).toEqual({ window: '20s' });
    expect(resolveAlertRules({ window: '20s' })).toMatchObject({ window: '20s', shortWindow: null });
    expect(resolveAlertRules({ window: '50s' })).toMatchObject({ window: '50s', shortWindow: '10s' });
    expect(resolveAlertRules({ window: '1m' })).toMatchObject({ window: '1m', shortWindow: '1m' });
    expect(resolveAlertRules({})).toMatchObject({ window: '5m', shortWindow: '1m' });
    // A short window the user did set is still checked against the window.
    expect(linesOf(load('w20s-short.json', JSON.stringify({ alerts: { window: '20s', shortWindow: '1m' } })))).toEqual([
      `${join(dir, 'w20s-short.json')}: alerts.shortWindow: must not be longer than alerts.window (20s)`,
    ]);
  });

  it('reports every bad field, also when a setting outside the section is bad', () => {
    const file = join(dir, 'many.json');
    expect(linesOf(load('many.json', JSON.stringify({ minSamples: 0, alerts: { minSamples: 0, evaluateEvery: '1ms' }, routing: { scoring: 'loudest' } })))).toEqual([
      expect.stringMatching(new RegExp(`^${file.replace(/[.]/g, '\\.')}: minSamples: `)),
      expect.stringMatching(new RegExp(`^${file.replace(/[.]/g, '\\.')}: routing\\.scoring must be one of`)),
      `${file}: alerts.minSamples: must be an integer from 1 to 1000000, got 0`,
      `${file}: alerts.evaluateEvery: must be a duration like 5s, 30m or 1h from 1s to 600s, got "1ms"`,
    ]);
  });

  it('fills the levels a per-channel thresholds block leaves out from the default levels', () => {
    const config = load('warn-only.json', JSON.stringify({
      thresholds: { warn: 0.95, major: 0.8, critical: 0.5, channels: { wallet: { warn: 0.9 } } },
      alerts: { channels: { 'bank-x': { thresholds: { warn: 0.9 } }, 'bank-y': { thresholds: { critical: 0.3 } } } },
    }))();
    expect(config.thresholds.channels).toEqual({ wallet: { warn: 0.9, major: 0.8, critical: 0.5 } });
    const rules = resolveAlertRules(config.alerts, { warn: 0.95, major: 0.8, critical: 0.5 });
    expect(rules.channels).toEqual({
      wallet: { thresholds: { warn: 0.9, major: 0.8, critical: 0.5 } },
      'bank-x': { thresholds: { warn: 0.9, major: 0.8, critical: 0.5 } },
      'bank-y': { thresholds: { warn: 0.95, major: 0.8, critical: 0.3 } },
    });
    // Filled levels out of order are still refused, naming the block.
    expect(linesOf(load('warn-low.json', JSON.stringify({ alerts: { channels: { 'bank-x': { thresholds: { warn: 0.7 } } } } })))).toEqual([
      `${join(dir, 'warn-low.json')}: alerts.channels.bank-x.thresholds: must satisfy critical < major < warn`,
    ]);
  });
});
