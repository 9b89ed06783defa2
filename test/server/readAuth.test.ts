// With a token set, reads need it too: every /v1 route, the stream (header or ?token=, for EventSource).
// /healthz, /readyz, /docs and the dashboard's files stay open; /metrics needs PAYPULSE_METRICS_TOKEN when
// that is set. /docs shows the bearer scheme on every operation that needs it.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, outcome, post, type TestApp } from './harness.js';
import { openSse } from './sse.js';

const token = 'tok-0123456789abcdef';
const metricsToken = 'met-0123456789abcdef';
const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

const reads = [
  '/v1/channels',
  '/v1/channels/alipay/rate?window=5m',
  '/v1/channels/alipay/failures',
  '/v1/channels/alipay/history',
];

describe('reads need the token when one is set', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await makeApp(engines[0]!, { config: { token, metricsToken } });
    // A channel seen within the horizon: one never seen answers 404 whoever asks.
    expect((await post(t.app, outcome(t.clock, { channel: 'alipay' }), bearer(token))).statusCode).toBe(200);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it.each(reads)('GET %s: 401 without the token or with a wrong one, 200 with it', async (url) => {
    const missing = await t.app.inject({ url });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('PP_ERR_UNAUTHORIZED');
    expect((await t.app.inject({ url, headers: bearer('wrong-token-0123456789') })).statusCode).toBe(401);
    expect((await t.app.inject({ url, headers: bearer(token) })).statusCode).toBe(200);
  });

  it('takes ?token= on the stream only', async () => {
    expect((await t.app.inject({ url: `/v1/channels?token=${token}` })).statusCode).toBe(401);
    const refused = await fetch(`http://127.0.0.1:${port}/v1/stream`);
    expect(refused.status).toBe(401);
    const wrong = await fetch(`http://127.0.0.1:${port}/v1/stream?token=wrong-token-0123456789`);
    expect(wrong.status).toBe(401);
    for (const open of [() => openSse(`http://127.0.0.1:${port}/v1/stream?token=${token}`), () => openSse(`http://127.0.0.1:${port}/v1/stream`, bearer(token))]) {
      const stream = await open();
      expect(stream.status).toBe(200);
      stream.close();
    }
  });

  it('keeps the probes, /docs and the dashboard open', async () => {
    for (const url of ['/healthz', '/readyz', '/docs/json', '/', '/assets/app.js']) {
      expect((await t.app.inject({ url })).statusCode, url).toBe(200);
    }
  });

  it('/metrics needs the metrics token, not the API token', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/metrics', headers: bearer(token) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/metrics', headers: bearer(metricsToken) })).statusCode).toBe(200);
  });

  it('/docs shows the bearer scheme and a 401 on every /v1 operation, and on none of the open ones', async () => {
    const spec = (await t.app.inject({ url: '/docs/json' })).json();
    for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const guarded = path.startsWith('/v1/') || path === '/metrics';
        expect(operation.security, `${method} ${path}`).toEqual(guarded ? [{ bearer: [] }] : undefined);
        if (guarded) expect(operation.responses['401'], `${method} ${path}`).toBeDefined();
      }
    }
  });
});

describe('without a metrics token', () => {
  it('/metrics stays open while the API needs its token', async () => {
    const t = await makeApp(engines[0]!, { config: { token } });
    try {
      expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/v1/channels' })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
