// The `alerts` section of the service's config file: checked at start with the file and the field named.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
