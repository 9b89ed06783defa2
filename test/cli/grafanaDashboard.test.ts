// The Grafana dashboard `paypulse dashboard` prints: every query parses (promtool, with Grafana's variables
// replaced as Grafana would), reads only metrics a running service exports, and the panels tile the grid.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { dashboardQueries, grafanaDashboard } from '../../src/cli/grafanaDashboard.js';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
const levels = { warn: 0.95, major: 0.8, critical: 0.5 };
const asGrafanaSends = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$window', '1m').replaceAll('$channel', '.*');

interface GridPanel { id: number; gridPos: { x: number; y: number; w: number; h: number }; targets: Array<{ expr: string }> }

let service: RunningService;
beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', alerts: { evaluateEvery: '1s', silent: false, log: false } });
  const now = Date.now();
  const outcomes = Array.from({ length: 200 }, (_, i) => ({
    channel: i % 2 ? 'acq-a' : 'acq-b', requestId: `g-${i}`, status: i % 5 === 0 ? 'failure' : 'success', at: now - 1_000, ...(i % 5 === 0 ? { code: 'do_not_honor' } : {}),
  }));
  const sent = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
  expect(sent.status).toBeLessThan(300);
  await service.pulse.snapshots.refresh();
  const routed = await fetch(`${service.url}/v1/route`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ candidates: ['acq-a', 'acq-b'] }) });
  expect(routed.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe('paypulse dashboard', () => {
  it.skipIf(!hasPromtool)('has queries that parse as PromQL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paypulse-grafana-'));
    try {
      const rules = { groups: [{ name: 'dashboard', rules: dashboardQueries(levels).map((expr, i) => ({ record: `paypulse_dashboard:query${i}`, expr: asGrafanaSends(expr) })) }] };
      writeFileSync(join(dir, 'rules.yml'), stringify(rules));
      const check = spawnSync('promtool', ['check', 'rules', join(dir, 'rules.yml')], { encoding: 'utf8' });
      expect(check.stdout + check.stderr).toContain('SUCCESS');
      expect(check.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads only metrics the service exports', async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const read = new Set(dashboardQueries(levels).flatMap((q) => [...q.matchAll(/\bpaypulse_[a-z_]+/g)].map((m) => m[0])));
    expect(read.size).toBeGreaterThan(8);
    expect([...read].filter((name) => !exported.has(name))).toEqual([]);
    expect(text).toContain('paypulse_outcomes_total{channel="acq-b",status="failure",code="do_not_honor"}');
    // The codes panel reads the one outcomes counter, not the failure-codes counter it replaced.
    expect(read.has('paypulse_outcomes_total')).toBe(true);
    expect(read.has('paypulse_failure_codes_total')).toBe(false);
    expect(text).toMatch(/paypulse_route_decisions_total\{channel="acq-[ab]",reason="(best|explored)"\} 1/);
  });

  it('is importable JSON whose panels tile the grid and whose variables are defined', () => {
    const dashboard = JSON.parse(JSON.stringify(grafanaDashboard(levels))) as { panels: GridPanel[]; templating: { list: Array<{ name: string }> }; __inputs: Array<{ name: string }> };
    expect(dashboard.__inputs.map((i) => i.name)).toEqual(['DS_PROMETHEUS']);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const { gridPos: g } of dashboard.panels) {
      expect(g.x + g.w).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) for (let y = g.y; y < g.y + g.h; y++) {
        expect(cells.has(`${x},${y}`)).toBe(false);
        cells.add(`${x},${y}`);
      }
    }
    const defined = new Set(dashboard.templating.list.map((v) => v.name));
    for (const p of dashboard.panels) for (const t of p.targets) {
      for (const [, name] of t.expr.matchAll(/\$(\w+)/g)) if (!name!.startsWith('__')) expect(defined.has(name!)).toBe(true);
    }
  });
});
