// The alert routes through Fastify's inject: active alerts with evidence, the history from PGlite, mutes,
// and bad input answered with the field named.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertHistory } from '../../src/history/alertTransitions.js';
import { createAlerts, type Alerts } from '../../src/alerts/index.js';
import { registerAlertRoutes } from '../../src/server/routes/alerts.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { migrate } from '../../src/history/migrate.js';
import { openPglite } from '../../src/history/pgliteClient.js';
import type { SqlClient } from '../../src/store/ports/sqlClient.js';
import { installErrorHandlers } from '../../src/server/httpErrors.js';
import { channelParamsSchema, errorResponses, sharedSchemas } from '../../src/server/schemas.js';
import { dropAt, SteadyTraffic } from '../../src/sim/steadyTraffic.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';

const start = Date.UTC(2026, 7, 3, 14);
const clock = new ManualClock(start);
let app: FastifyInstance;
let alerts: Alerts;
let engine: SuccessRateEngine;
let db: SqlClient;
let refresh: () => Promise<unknown>;

beforeAll(async () => {
  const settings = resolveSettings({ windows: ['1m', '5m', '1h'] });
  const store = new MemoryStatsStore(settings);
  engine = new SuccessRateEngine(store, settings, clock);
  db = await openPglite();
  await migrate(db);
  const history = createAlertHistory(db);
  const snapshots = createHealthSnapshots({ store, clock, windows: ['1m', '5m', '1h'], minSamples: 100, horizonMs: settings.horizonMs, intervalMs: 5_000 });
  alerts = createAlerts({ rules: resolveAlertRules({ silent: false, log: false }), namespace: 'r', snapshots, coordination: new MemoryCoordinationStore(clock), clock, history, failures: (c, q) => engine.failures(c, q) });
  refresh = () => snapshots.refresh();
  app = Fastify();
  installErrorHandlers(app);
  for (const schema of sharedSchemas) app.addSchema(schema);
  registerAlertRoutes(app, { alerts, history, clock, schemas: { channelParams: channelParamsSchema, errorResponses } });
  await app.ready();
  const traffic = new SteadyTraffic([{ name: 'bank-x', perMinute: 600, successAt: dropAt(start + 6 * 60_000, 0.2) }], 17);
  while (clock.now() < start + 7 * 60_000) {
    const from = clock.now();
    clock.advance(5_000);
    await engine.recordMany(traffic.between(from, clock.now()));
    await snapshots.refresh();
    await alerts.evaluate();
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  await alerts?.stop();
  await engine?.close();
  await db?.close();
});

describe('alert routes', () => {
  it('GET /v1/alerts lists the firing alert with its evidence', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/alerts' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.paused).toBe(false);
    expect(body.alerts.map((a: { id: string; level: string }) => `${a.id}:${a.level}`)).toEqual(['rate/@bank-x:critical']);
    expect(body.alerts[0].evidence.failedRequests).toHaveLength(10);
  });

  it('GET /v1/alerts/history answers the transitions in a time range', async () => {
    const res = await app.inject({ method: 'GET', url: `/v1/alerts/history?from=${start}&to=${clock.now()}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().transitions.map((t: { transition: string }) => t.transition).reverse()).toEqual(['firing', 'escalated', 'escalated']);
    const none = await app.inject({ method: 'GET', url: `/v1/alerts/history?from=${start}&to=${start + 60_000}` });
    expect(none.json().transitions).toEqual([]);
    const bad = await app.inject({ method: 'GET', url: '/v1/alerts/history?from=yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].field).toBe('querystring.from');
  });

  it('PUT /v1/channels/:channel/mute mutes until a time, shown on the alert; bad bodies name the field', async () => {
    const until = new Date(clock.now() + 3_600_000).toISOString();
    const res = await app.inject({ method: 'PUT', url: '/v1/channels/bank-x/mute', payload: { until } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ channel: 'bank-x', mutedUntil: Date.parse(until) });
    expect((await app.inject({ method: 'GET', url: '/v1/channels/bank-x/mute' })).json().mutedUntil).toBe(Date.parse(until));
    clock.advance(5_000);
    await refresh();
    await alerts.evaluate();
    const shown = (await app.inject({ method: 'GET', url: '/v1/alerts' })).json().alerts[0];
    expect([shown.muted, shown.mutedUntil]).toEqual([true, Date.parse(until)]);
    const far = await app.inject({ method: 'PUT', url: '/v1/channels/bank-x/mute', payload: { until: clock.now() + 30 * 86_400_000 } });
    expect(far.statusCode).toBe(400);
    expect(far.json().error.details[0]).toMatchObject({ field: 'body.until' });
    const garbage = await app.inject({ method: 'PUT', url: '/v1/channels/bank-x/mute', payload: { until: 'soon' } });
    expect(garbage.statusCode).toBe(400);
    expect((await app.inject({ method: 'PUT', url: '/v1/channels/bank-x/mute', payload: {} })).statusCode).toBe(400);
  });

  it.each(['1e17', '99999999999999999999', '-5'])('GET /v1/alerts/history?from=%s is a 400 naming the field, as history reads are', async (from) => {
    const res = await app.inject({ method: 'GET', url: `/v1/alerts/history?from=${from}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0]).toMatchObject({ field: 'querystring.from' });
  });
});
