// Probes, metrics, OpenAPI, auth and unknown routes on both engines.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src/history/index.js';
import { startRedis } from '../support/redisServer.js';
import { engines, makeApp, outcome, post, type TestApp } from './harness.js';

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
const token = 'tok-0123456789abcdef';

describe.each(engines)('operations routes on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    await engine.start();
    t = await makeApp(engine);
    await t.pulse.recordMany([
      outcome(t.clock, { channel: 'wallet' }),
      outcome(t.clock, { channel: 'wallet', status: 'failure' }),
      outcome(t.clock, { channel: 'wallet', status: 'pending' }),
    ]);
  });
  afterAll(async () => {
    await t?.close();
    await engine.stop();
  });

  it('GET /healthz answers ok', async () => {
    const res = await t.app.inject({ url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz checks the store and the history store', async () => {
    const res = await t.app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      checks: {
        store: { ok: true, kind: `${engine.name}/buckets` },
        history: { ok: true, kind: 'pglite' },
        snapshot: { ok: true, kind: 'health snapshot' },
      },
      degradationLevel: 0,
      buffering: engine.name === 'memory' ? 'embedded store: nothing waits for a store' : expect.stringMatching(/^memory only: .* lost if the process dies/),
    });
  });

  it('GET /readyz is 503 while shutting down', async () => {
    t.app.paypulse.shuttingDown = true;
    try {
      const res = await t.app.inject({ url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json().checks.shutdown).toMatchObject({ ok: false });
    } finally {
      t.app.paypulse.shuttingDown = false;
    }
  });

  it('GET /readyz is 503 when the history store cannot answer', async () => {
    const history = await openHistory();
    const broken = await makeApp(engine, { history });
    try {
      await history.close();
      const res = await broken.app.inject({ url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'not ready', checks: { store: { ok: true }, history: { ok: false, kind: 'pglite' } } });
    } finally {
      await broken.app.close();
      await broken.pulse.close();
    }
  });

  it('GET /metrics has rates, sample counts, store health and ingest histograms', async () => {
    await post(t.app, outcome(t.clock, { channel: 'wallet' }));
    // Rates come from the health snapshot (at most one interval old): the clock stands still here, so refresh it.
    await t.pulse.snapshots.refresh();
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toContain('paypulse_success_ratio{channel="wallet",window="5m"} 0.6666666666666666');
    expect(text).toContain('paypulse_window_outcomes{channel="wallet",window="1h",status="success"} 2');
    expect(text).toContain('paypulse_window_outcomes{channel="wallet",window="1h",status="failure"} 1');
    expect(text).toContain('paypulse_window_pending_requests{channel="wallet",window="5m"}');
    expect(text).toContain(`paypulse_store_up{store="${engine.name}",strategy="buckets"} 1`);
    expect(text).toContain('paypulse_store_buffered_outcomes 0');
    expect(text).toContain('paypulse_ingest_duration_seconds_bucket');
    expect(text).toContain('paypulse_http_request_duration_seconds_count{method="POST",route="/v1/outcomes",status_code="200"} 1');
    expect(text).toMatch(/paypulse_store_operation_duration_seconds_count\{operation="recordMany"\} [1-9]/);
  });

  it.skipIf(!hasPromtool)('GET /metrics passes promtool check metrics', async () => {
    await t.app.inject({ url: '/v1/channels/wallet/rate' });
    const text = (await t.app.inject({ url: '/metrics' })).body;
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('serves the OpenAPI document and the docs page from the service itself', async () => {
    const json = await t.app.inject({ url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    const doc = json.json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/outcomes',
        '/v1/channels',
        '/v1/channels/{channel}/rate',
        '/v1/channels/{channel}/failures',
        '/v1/channels/{channel}/history',
        '/v1/stream',
        '/metrics',
        '/healthz',
        '/readyz',
      ]),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Rate', 'Outcome', 'ErrorReply']));
    const page = await t.app.inject({ url: '/docs' });
    expect(page.statusCode).toBe(200);
    // Every asset the page loads is served by the service (no CDN is reachable from a payment network).
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toContain('/docs/static/swagger-ui-bundle.js');
    for (const asset of assets) {
      expect(asset.startsWith('/docs/')).toBe(true);
      expect((await t.app.inject({ url: asset })).statusCode).toBe(200);
    }
  });

  it('answers unknown routes with PP_ERR_NOT_FOUND', async () => {
    const res = await t.app.inject({ url: '/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'PP_ERR_NOT_FOUND', message: 'no route GET /v1/nothing-here' } });
  });

  it('serves the dashboard at /', async () => {
    const res = await t.app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

describe('bearer token on /v1 routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeApp(engines[0]!, { config: { token } });
  });
  afterAll(async () => t?.close());

  it('refuses a write without a token, or with a wrong one, and records nothing', async () => {
    const missing = await post(t.app, outcome(t.clock, { channel: 'guarded' }));
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toContain('Bearer');
    expect(missing.json().error.code).toBe('PP_ERR_UNAUTHORIZED');
    const wrong = await post(t.app, outcome(t.clock, { channel: 'guarded' }), { authorization: 'Bearer not-the-token-at-all' });
    expect(wrong.statusCode).toBe(401);
    const basic = await post(t.app, outcome(t.clock, { channel: 'guarded' }), { authorization: `Basic ${token}` });
    expect(basic.statusCode).toBe(401);
    expect((await t.pulse.rate('guarded', { window: '1h' })).total).toBe(0);
  });

  it('takes a write with the token', async () => {
    const res = await post(t.app, outcome(t.clock, { channel: 'guarded' }), { authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(200);
    expect((await t.pulse.rate('guarded', { window: '1h' })).total).toBe(1);
  });

  it('keeps probes and metrics open, and reads need the token too', async () => {
    expect((await t.app.inject({ url: '/v1/channels' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/v1/channels', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(200);
  });
});

describe('when Redis goes away', () => {
  it('keeps answering: writes buffered, reads 503, /metrics and /readyz say so, and all recover', async () => {
    const redis = await startRedis();
    const engine = { name: 'redis' as const, start: async () => undefined, stop: async () => undefined, pulseOptions: () => ({ redis: redis.url, namespace: 'away' }) };
    const t = await makeApp(engine, { pulse: { recordTimeoutMs: 200 } });
    try {
      expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      await redis.kill();

      // Fail open: the gateway's POST succeeds and says the outcome waits in the buffer.
      const posted = await post(t.app, outcome(t.clock, { channel: 'away' }));
      expect(posted.statusCode).toBe(200);
      expect(posted.json()).toMatchObject({ accepted: 0, buffered: 1 });

      const rate = await t.app.inject({ url: '/v1/channels/away/rate' });
      expect(rate.statusCode).toBe(503);
      expect(rate.json().error.code).toBe('PP_ERR_STORE_UNAVAILABLE');

      const down = await t.app.inject({ url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json().checks.store.ok).toBe(false);
      expect(down.json().checks.history.ok).toBe(true);

      // The rates come from the health snapshot: one taken within its interval before Redis died is still
      // current, and the next one fails.
      let metrics = await t.app.inject({ url: '/metrics' });
      for (let i = 0; i < 50 && !metrics.body.includes('paypulse_rates_readable 0'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        metrics = await t.app.inject({ url: '/metrics' });
      }
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toContain('paypulse_store_up{store="redis",strategy="buckets"} 0');
      expect(metrics.body).toContain('paypulse_store_buffered_outcomes 1');
      expect(metrics.body).toContain('paypulse_rates_readable 0');
      if (hasPromtool) expect(spawnSync('promtool', ['check', 'metrics'], { input: metrics.body }).status).toBe(0);

      await redis.start();
      // The client reconnects on its own; readiness follows without a restart of the service.
      let back = 503;
      for (let i = 0; i < 100 && back !== 200; i++) {
        await t.pulse.flushBuffer().catch(() => false);
        back = (await t.app.inject({ url: '/readyz' })).statusCode;
        if (back !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(back).toBe(200);
      expect((await t.app.inject({ url: '/metrics' })).body).toContain('paypulse_rates_readable 1');
    } finally {
      await t.close();
      await redis.stop();
    }
  });
});
