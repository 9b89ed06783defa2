// Config reload on a running service over a real socket: a threshold changed in the file takes effect on the
// next evaluation (an alert fires that did not), a broken file changes nothing (422, the old levels still
// answered, the failure in /metrics), a setting that needs a restart is named, not applied, and the router takes
// new channel fees and breaker levels from its next decision.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';

const dir = mkdtempSync(join(tmpdir(), 'paypulse-reload-'));
const file = join(dir, 'paypulse.json');
const source = { configPath: file, env: {} };

function writeConfig(warn: number, extra: Record<string, unknown> = {}): void {
  const config = {
    port: 0,
    minSamples: 50,
    thresholds: { warn, major: 0.6, critical: 0.3 },
    alerts: { evaluateEvery: '1s', log: false, minSamples: 50 },
    ...extra,
  };
  writeFileSync(file, JSON.stringify(config));
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('config reload', () => {
  let service: RunningService;
  const json = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${service.url}${path}`, init);
    return { status: response.status, body: await response.json() };
  };
  const reload = () => json('/v1/admin/reload', { method: 'POST' });
  const firing = async () => (await json('/v1/alerts')).body.alerts as Array<{ channel: string; level: string }>;

  beforeAll(async () => {
    writeConfig(0.8);
    service = await startService(loadConfig(source), { logger: pino({ level: 'silent' }), reloadFrom: source });
    // 85 % success: inside a warn level of 80 %, well below one of 95 %.
    const at = Date.now() - 1_000;
    const outcomes = Array.from({ length: 400 }, (_, i) => ({ channel: 'acq', requestId: `r${i}`, status: i % 20 < 17 ? 'success' : 'failure', at }));
    expect((await json('/v1/outcomes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) })).status).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a new threshold from the next evaluation on', async () => {
    const before = await waitFor(() => json('/v1/channels'), (r) => r.body.channels?.length === 1);
    expect(before.body.thresholds.warn).toBe(0.8);
    // Evaluations have run on the traffic: nothing fires at 80 %.
    await waitFor(async () => service.pulse.alerts!.status().evaluations, (n) => n >= 2);
    expect(await firing()).toEqual([]);

    writeConfig(0.95);
    const applied = await reload();
    // The alert rules take their levels from the thresholds: both change.
    expect(applied).toEqual({ status: 200, body: { applied: ['thresholds'], needsRestart: [] } });
    expect(service.pulse.alerts!.rules.defaults.thresholds.warn).toBe(0.95);
    expect((await json('/v1/channels')).body.thresholds.warn).toBe(0.95);
    const after = await waitFor(firing, (alerts) => alerts.length > 0);
    expect(after.map((a) => `${a.channel}:${a.level}`)).toEqual(['acq:warn']);
  }, 30_000);

  it('refuses a broken file whole: every bad field named, nothing changed, the failure in /metrics', async () => {
    writeConfig(0.5, { alerts: { evaluateEvery: '1s', log: false, minSamples: 0 } });
    const refused = await reload();
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('PP_ERR_CONFIG_REFUSED');
    const lines: string[] = refused.body.error.details;
    expect(lines.some((l) => l.includes('thresholds') && l.includes('critical < major < warn'))).toBe(true);
    expect(lines.some((l) => l.includes('alerts.minSamples'))).toBe(true);
    expect((await json('/v1/channels')).body.thresholds.warn).toBe(0.95);
    expect(service.pulse.alerts!.rules.defaults.minSamples).toBe(50);

    writeFileSync(file, '{"port": 0, ');
    expect((await reload()).status).toBe(422);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/^paypulse_config_reloads_total\{result="failure"\} 2$/m);
    expect(metrics).toMatch(/^paypulse_config_last_reload_successful 0$/m);
  });

  it('names what needs a restart and leaves it as it runs', async () => {
    writeConfig(0.95, { windows: ['1m', '5m'], alerts: { evaluateEvery: '5s', log: false, minSamples: 50 } });
    const report = await reload();
    expect(report.status).toBe(200);
    expect(report.body.needsRestart.sort()).toEqual(['alerts.evaluateEvery', 'windows']);
    expect(report.body.applied).toEqual(['alerts']);
    // evaluateEvery numbers the fleet's evaluation slots: it keeps its value until a restart.
    expect(service.pulse.alerts!.rules.evaluateEveryMs).toBe(1_000);
    expect(service.pulse.windows).toEqual(['1m', '5m', '15m', '1h']);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/^paypulse_config_last_reload_successful 1$/m);
  });

  it('routes by the new routing settings from the next decision, and names the routing settings that wait', async () => {
    const alerts = { evaluateEvery: '5s', log: false, minSamples: 50 };
    // The channels ranked first: exploration and looks may send a decision elsewhere, by design.
    const route = async () => {
      const { body } = await json('/v1/route', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ candidates: ['x', 'y'], amount: 100 }) });
      return `${body.channel}:${body.reason}`;
    };
    const chosen = async () => new Set((await Promise.all(Array.from({ length: 40 }, route))).filter((d) => !d.endsWith(':explored')));
    // A fixed fee of half the amount outweighs any success rate: the other channel is the better deal.
    writeConfig(0.95, { alerts, routing: { channels: { x: { fixedFee: 50 } } } });
    expect((await reload()).body).toEqual({ applied: ['routing'], needsRestart: [] });
    expect(await chosen()).toEqual(new Set(['y:cold-start']));

    writeConfig(0.95, { alerts, routing: { channels: { y: { fixedFee: 50 } }, breaker: { failureThreshold: 0.3, window: '1m' }, scoreWindows: ['1m', '5m'] } });
    const report = await reload();
    expect(report.status).toBe(200);
    expect(report.body.applied).toEqual(['routing']);
    expect(report.body.needsRestart.sort()).toEqual(['routing.breaker.window', 'routing.scoreWindows']);
    expect(await chosen()).toEqual(new Set(['x:cold-start']));
    expect(service.pulse.routing.settings.breaker.failureThreshold).toBe(0.3);
    expect(service.pulse.routing.settings.breaker.window).toBe('30s');
    expect(service.pulse.routing.settings.scoreWindows).toEqual(['10s', '1m', '5m', '15m', '1h']);
  });

  it('refuses routing settings the running engine cannot hold, and keeps the running ones', async () => {
    writeConfig(0.95, { alerts: { evaluateEvery: '5s', log: false, minSamples: 50 }, routing: { channels: { x: { fixedFee: 1 } }, breaker: { dims: [['method']] } } });
    const refused = await reload();
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([expect.stringContaining('routing.breaker.dims[0]')]);
    expect(service.pulse.routing.settings.channels.get('y')?.fixedFee).toBe(50);
    expect(service.pulse.routing.settings.channels.has('x')).toBe(false);
  });
});
