// Bounds on connections: request, header, idle and keep-alive timeouts, the connection cap and the per-address
// stream cap, over real sockets. The limits are set short here; the test waits for the server to act and
// asserts what it did, never how long it took.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfig } from '../../src/server/config.js';
import { engines, makeApp, type TestApp } from './harness.js';
import { firstResponse, openRaw, trickle } from './rawSocket.js';
import { openSse } from './sse.js';

const limits = {
  requestTimeoutMs: 1_000,
  headersTimeoutMs: 1_000,
  idleTimeoutMs: 1_500,
  keepAliveTimeoutMs: 500,
  maxConnections: 6,
  maxStreamsPerIp: 2,
};

describe('connection limits', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await makeApp(engines[0]!, { config: limits });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it('cuts a body sent at a trickle with a 408 in the service error format', async () => {
    const client = await openRaw(port);
    client.socket.write('POST /v1/outcomes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n');
    await trickle(client, '{"outcomes":[', 100, 10_000);
    expect(client.isClosed()).toBe(true);
    const { status, body } = firstResponse(client.received());
    expect(status).toBe(408);
    expect(body).toEqual({ error: { code: 'PP_ERR_REQUEST_TIMEOUT', message: expect.any(String) } });
  });

  it('cuts headers sent at a trickle', async () => {
    const client = await openRaw(port);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    await trickle(client, 'X-Slow: aaaaaaaa', 100, 10_000);
    expect(client.isClosed()).toBe(true);
    expect(firstResponse(client.received()).status).toBe(408);
  });

  it('closes a connection that sends nothing, and a kept-alive one that asks nothing more', async () => {
    const silent = await openRaw(port);
    const kept = await openRaw(port);
    kept.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await Promise.race([Promise.all([silent.closed, kept.closed]), new Promise((r) => setTimeout(r, 10_000))]);
    expect(silent.isClosed()).toBe(true);
    expect(kept.isClosed()).toBe(true);
    expect(firstResponse(kept.received()).status).toBe(200);
  });

  it('refuses connections past the cap and takes new ones once some close', async () => {
    const held = await Promise.all(Array.from({ length: limits.maxConnections }, () => openRaw(port)));
    // A request on each proves the server has accepted all of them before the next one arrives.
    for (const c of held) c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await Promise.race([Promise.all(held.map(async (c) => { while (!c.received().includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 10)); })), new Promise((r) => setTimeout(r, 5_000))]);
    const extra = await openRaw(port);
    await Promise.race([extra.closed, new Promise((r) => setTimeout(r, 5_000))]);
    expect(extra.isClosed()).toBe(true);
    expect(extra.received()).toBe('');
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    // The server notices the closes on its own schedule; the first healthy answer is what counts.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      status = res?.status ?? 0;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/paypulse_http_refused_connections_total\{reason="max_connections"\} [1-9]/);
  });

  it('answers 429 to a stream past the per-address cap, and takes one again after a close', async () => {
    const url = `http://127.0.0.1:${port}/v1/stream`;
    const first = await openSse(url);
    const second = await openSse(url);
    try {
      const res = await fetch(url);
      expect(res.status).toBe(429);
      expect((await res.json()).error.code).toBe('PP_ERR_TOO_MANY_STREAMS');
      first.close();
      await first.ended;
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        const again = await openSse(url);
        status = again.status;
        again.close();
        if (status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(200);
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('connection limit settings', () => {
  it('has non-zero defaults for every timeout and cap', () => {
    for (const key of ['requestTimeoutMs', 'headersTimeoutMs', 'idleTimeoutMs', 'keepAliveTimeoutMs', 'maxConnections', 'maxPipelinedRequests', 'maxStreamsPerIp'] as const) {
      expect(defaultConfig[key]).toBeGreaterThan(0);
    }
  });

  it('reads them from the environment and refuses a header deadline past the request deadline', () => {
    const config = loadConfig({ env: { PAYPULSE_REQUEST_TIMEOUT_MS: '20000', PAYPULSE_MAX_CONNECTIONS: '500', PAYPULSE_MAX_STREAMS_PER_IP: '3' } });
    expect(config).toMatchObject({ requestTimeoutMs: 20_000, maxConnections: 500, maxStreamsPerIp: 3 });
    expect(() => loadConfig({ env: { PAYPULSE_REQUEST_TIMEOUT_MS: '5000', PAYPULSE_HEADERS_TIMEOUT_MS: '8000' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { PAYPULSE_IDLE_TIMEOUT_MS: '5000' } })).toThrow(/PAYPULSE_IDLE_TIMEOUT_MS/);
  });
});
