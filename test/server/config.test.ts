// Configuration: precedence, file formats, and one clear line per bad field naming where it came from.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, isLoopback, loadConfig } from '../../src/server/config.js';

const dir = mkdtempSync(join(tmpdir(), 'paypulse-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function errorLines(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('PP_ERR_CONFIG');
    return (err as ConfigError).lines;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('binds loopback with the documented defaults when nothing is set', () => {
    const config = loadConfig({ env: {} });
    expect(config).toEqual(defaultConfig);
    expect(config.host).toBe('127.0.0.1');
    expect(config.redisUrl).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
  });

  it('reads the environment', () => {
    const config = loadConfig({
      env: {
        PORT: '9090',
        REDIS_URL: 'redis://127.0.0.1:6390',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/pp',
        PAYPULSE_NAMESPACE: 'prod',
        PAYPULSE_WINDOWS: '1m, 10m',
        PAYPULSE_MIN_SAMPLES: '50',
      },
    });
    expect(config).toMatchObject({
      port: 9090,
      redisUrl: 'redis://127.0.0.1:6390',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/pp',
      namespace: 'prod',
      windows: ['1m', '10m'],
      minSamples: 50,
    });
  });

  it('reads YAML and JSON files; env beats the file and overrides beat env', () => {
    const yaml = file('pp.yaml', 'port: 7000\nnamespace: staging\nthresholds:\n  warn: 0.9\n  major: 0.7\n  critical: 0.4\n');
    expect(loadConfig({ env: {}, configPath: yaml })).toMatchObject({ port: 7000, namespace: 'staging', thresholds: { warn: 0.9 } });
    expect(loadConfig({ env: { PAYPULSE_CONFIG: yaml, PORT: '7001' } })).toMatchObject({ port: 7001, namespace: 'staging' });
    expect(loadConfig({ env: { PORT: '7001' }, configPath: yaml, overrides: { port: 7002 } }).port).toBe(7002);
    const json = file('pp.json', JSON.stringify({ windows: ['30s', '2m'], strategy: 'zset' }));
    expect(loadConfig({ env: {}, configPath: json })).toMatchObject({ windows: ['30s', '2m'], strategy: 'zset' });
  });

  it('reports every bad field on its own line, named as it was given', () => {
    const yaml = file('bad.yaml', 'prot: 80\nwindows: [5m, soon]\nthresholds: { warn: 0.8, major: 0.9, critical: 0.5 }\n');
    const lines = errorLines(() =>
      loadConfig({ env: { PORT: 'eighty', REDIS_URL: 'http://cache:7000', PAYPULSE_MIN_SAMPLES: '0' }, configPath: yaml }),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: .*number.*\(got "eighty"\)$/),
        'REDIS_URL: must start with redis://, rediss:// or redis+sentinel:// (got "http://cache:7000")',
        expect.stringMatching(/^PAYPULSE_MIN_SAMPLES: .*1/),
        `${yaml}: prot: unknown setting`,
        `${yaml}: windows.1: must look like 30s, 5m or 1h (got "soon")`,
        expect.stringMatching(new RegExp(`^${yaml.replace(/[.]/g, '\\.')}: thresholds: must satisfy critical < major < warn`)),
      ]),
    );
    expect(lines).toHaveLength(6);
  });

  it('refuses a non-loopback address without a token, and a short token', () => {
    expect(errorLines(() => loadConfig({ env: { HOST: '0.0.0.0' } }))).toEqual([
      expect.stringMatching(/^PAYPULSE_TOKEN: required when host is 0\.0\.0\.0 \(not loopback\)/),
    ]);
    const short = errorLines(() => loadConfig({ env: { HOST: '0.0.0.0', PAYPULSE_TOKEN: 'abc' } }));
    expect(short).toEqual(['PAYPULSE_TOKEN: must be at least 16 characters']);
    // The token itself never appears in an error.
    expect(short.join()).not.toContain('abc"');
    expect(loadConfig({ env: { HOST: '0.0.0.0', PAYPULSE_TOKEN: 'a-long-enough-token' } }).token).toBe('a-long-enough-token');
  });

  it("refuses the removed strategy 'zset-sharded', naming the field and what to use instead", () => {
    const lines = errorLines(() => loadConfig({ env: { PAYPULSE_STRATEGY: 'zset-sharded' } }));
    expect(lines).toEqual([expect.stringMatching(/^PAYPULSE_STRATEGY: .*'zset-sharded' was removed, use 'buckets'.*'zset'/)]);
  });

  it('names an unreadable or malformed file', () => {
    expect(errorLines(() => loadConfig({ env: {}, configPath: join(dir, 'missing.yaml') }))[0]).toMatch(/missing\.yaml: cannot be read/);
    expect(errorLines(() => loadConfig({ env: {}, configPath: file('broken.json', '{ "port": ') }))[0]).toMatch(/broken\.json: not valid JSON/);
    expect(errorLines(() => loadConfig({ env: {}, configPath: file('list.yaml', '- 1\n- 2\n') }))[0]).toMatch(/must hold an object/);
  });

  it.each([
    ['proto.json', '{"__proto__": {"token": "abcdefghijklmnopqrstu"}, "host": "0.0.0.0"}', ['__proto__']],
    ['proto.yaml', '__proto__:\n  token: abcdefghijklmnopqrstu\nhost: 0.0.0.0\n', ['__proto__']],
    ['nested.json', '{"alerts": {"constructor": {"prototype": {"window": "1m"}}}, "routing": {"channels": {"__proto__": {"weight": 2}}}}', ['alerts.constructor', 'routing.channels.__proto__']],
    ['listed.json', '{"dimensions": [["method"], {"__proto__": ["x"]}]}', ['dimensions[1].__proto__']],
  ])('refuses prototype keys in %s, naming each path, and never takes a setting through them', (name, text, paths) => {
    const path = file(name, text);
    const lines = errorLines(() => loadConfig({ env: {}, configPath: path }));
    expect(lines).toEqual(paths.map((p) => `${path}: ${p}: prototype keys (__proto__, constructor, prototype) are not settings`));
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('redisUrl', () => {
  it('takes a Sentinel URL, which the library resolves to the current primary', () => {
    const url = 'redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster';
    expect(loadConfig({ env: { REDIS_URL: url } }).redisUrl).toBe(url);
  });
});

describe('dimensions and thresholds', () => {
  it('reads dimension sets from the file and from PAYPULSE_DIMENSIONS, naming a bad name where it came from', () => {
    const yaml = file('dims.yaml', 'dimensions: [[method], [method, currency]]\n');
    expect(loadConfig({ env: {}, configPath: yaml }).dimensions).toEqual([['method'], ['method', 'currency']]);
    expect(loadConfig({ env: { PAYPULSE_DIMENSIONS: 'method; method, currency' }, configPath: yaml }).dimensions).toEqual([['method'], ['method', 'currency']]);
    expect(loadConfig({ env: {} }).dimensions).toEqual([]);
    expect(errorLines(() => loadConfig({ env: { PAYPULSE_DIMENSIONS: 'method;cur-rency' } }))).toEqual([
      expect.stringMatching(/^PAYPULSE_DIMENSIONS\.1\.0: dimension name must be 1–32 characters of .* \(got "cur-rency"\)$/),
    ]);
  });

  it('reads per-channel thresholds from the file and the default levels from PAYPULSE_THRESHOLDS_*', () => {
    const json = file('levels.json', JSON.stringify({ thresholds: { warn: 0.95, major: 0.8, critical: 0.5, channels: { alipay: { warn: 0.9, major: 0.7, critical: 0.4 } } } }));
    const config = loadConfig({ env: { PAYPULSE_THRESHOLDS_WARN: '0.97', PAYPULSE_THRESHOLDS_CRITICAL: '0.6' }, configPath: json });
    expect(config.thresholds).toEqual({ warn: 0.97, major: 0.8, critical: 0.6, channels: { alipay: { warn: 0.9, major: 0.7, critical: 0.4 } } });
    expect(errorLines(() => loadConfig({ env: { PAYPULSE_THRESHOLDS_MAJOR: 'high' } }))).toEqual([
      expect.stringMatching(/^PAYPULSE_THRESHOLDS_MAJOR: .*number.*\(got "high"\)$/),
    ]);
    const disordered = file('disordered.json', JSON.stringify({ thresholds: { warn: 0.95, major: 0.8, critical: 0.5, channels: { alipay: { warn: 0.5, major: 0.7, critical: 0.4 } } } }));
    expect(errorLines(() => loadConfig({ env: {}, configPath: disordered }))).toEqual([
      expect.stringMatching(new RegExp(`^${disordered.replace(/[.]/g, '\\.')}: thresholds\\.channels\\.alipay: must satisfy critical < major < warn`)),
    ]);
  });

  it('gives the alerts the per-channel levels, an alerts.channels level still winning', () => {
    const json = file('alerting.json', JSON.stringify({
      alerts: { channels: { 'bank-x': { thresholds: { warn: 0.85, major: 0.6, critical: 0.3 } } } },
      thresholds: { warn: 0.95, major: 0.8, critical: 0.5, channels: { alipay: { warn: 0.9, major: 0.7, critical: 0.4 }, 'bank-x': { warn: 0.8, major: 0.6, critical: 0.3 } } },
    }));
    expect(loadConfig({ env: {}, configPath: json }).alerts).toEqual({
      channels: { alipay: { thresholds: { warn: 0.9, major: 0.7, critical: 0.4 } }, 'bank-x': { thresholds: { warn: 0.85, major: 0.6, critical: 0.3 } } },
    });
  });
});
