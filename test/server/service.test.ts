// startService end to end over real sockets, on both engines, with the history on a PostgreSQL server
// (a database of this test's own): requests, probes, and a graceful shutdown that drains an in-flight
// request and copies its outcomes to history before closing.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '../../src/history/postgresClient.js';
import { createHistoryStore } from '../../src/history/historyStore.js';
import { defaultConfig, type ServiceConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { pino } from 'pino';
import { createPulse } from '../../src/index.js';
import { startRedis } from '../support/redisServer.js';
import { engines } from './harness.js';

const silent = pino({ level: 'silent' });

describe.each(engines)('startService on $name with PostgreSQL history', (engine) => {
  let database: TestDatabase;
  let config: ServiceConfig;
  beforeAll(async () => {
    await engine.start();
    database = await createTestDatabase();
    const { redis, namespace } = engine.pulseOptions();
    config = { ...defaultConfig, port: 0, redisUrl: redis, namespace: namespace ?? 'paypulse', databaseUrl: database.url };
  });
  afterAll(async () => {
    await database?.drop();
    await engine.stop();
  });

  it('serves the API over a socket', async () => {
    const service = await startService(config, { logger: silent });
    try {
      expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const at = Date.now() - 1_000;
      const posted = await fetch(`${service.url}/v1/outcomes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcomes: [{ channel: 'e2e', requestId: 'a', status: 'success', at }, { channel: 'e2e', requestId: 'b', status: 'failure', at }] }),
      });
      expect(posted.status).toBe(200);
      expect(await posted.json()).toMatchObject({ accepted: 2 });
      const rate = await (await fetch(`${service.url}/v1/channels/e2e/rate?window=1m`)).json();
      expect(rate).toMatchObject({ channel: 'e2e', total: 2, rate: 0.5 });
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toMatch(/^paypulse_store_write_duration_seconds_count [1-9]/m);
      expect(metrics).toMatch(/^paypulse_store_write_batch_outcomes_sum [2-9]/m);
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).checks.history).toEqual({ ok: true, kind: 'postgres' });
      const bad = await fetch(`${service.url}/v1/channels/e2e/rate?n=-1`);
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.code).toBe('PP_ERR_VALIDATION');
    } finally {
      await service.close();
    }
  });

  it('drains an in-flight request on close, copies it to history, then refuses connections', async () => {
    const service: RunningService = await startService(config, { logger: silent });
    const { port } = new URL(service.url);
    const at = Date.now() - 2_000;
    const body = JSON.stringify({ outcomes: Array.from({ length: 50 }, (_, i) => ({ channel: 'drained', requestId: `d${i}`, status: 'success', at })) });

    // Send the headers and half the body, start the shutdown, then send the rest.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let response = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (response += chunk));
    const answered = new Promise<void>((resolve) => socket.once('end', () => resolve()));
    socket.write(`POST /v1/outcomes HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`);
    const received = new Promise<void>((resolve) => service.app.server.once('request', () => resolve()));
    socket.write(body.slice(0, 100));
    // The server has the request (headers parsed, body still coming) before the shutdown starts.
    await received;

    const closed = service.close();
    await new Promise((r) => setImmediate(r));
    // write, not end: a FIN before the answer makes Node abort the request (no half-open HTTP).
    socket.write(body.slice(100));
    await answered;
    await closed;

    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain('"accepted":50');
    // The last snapshot ran after the request: its minute is in the database.
    const db = connectPostgres(database.url);
    try {
      const minutes = await createHistoryStore(db).minutes('drained', { from: at - 120_000, to: at + 120_000 });
      expect(minutes.reduce((sum, m) => sum + m.success, 0)).toBe(50);
    } finally {
      await db.close();
    }
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
  });

  it('requires the bearer token for writes when one is configured', async () => {
    const service = await startService({ ...config, token: 'service-test-token-123' }, { logger: silent });
    try {
      const outcome = { channel: 'tok', requestId: 'x', status: 'success', at: Date.now() };
      const refused = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(outcome) });
      expect(refused.status).toBe(401);
      const taken = await fetch(`${service.url}/v1/outcomes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer service-test-token-123' },
        body: JSON.stringify(outcome),
      });
      expect(taken.status).toBe(200);
    } finally {
      await service.close();
    }
  });
});

describe('graceful shutdown after a Redis outage', () => {
  it('writes the outcomes buffered during the outage once Redis is back, before exiting', async () => {
    const redis = await startRedis();
    try {
      const config = { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: 'outage', recordTimeoutMs: 200 };
      const service = await startService(config, { logger: silent });
      await redis.kill();
      const at = Date.now() - 1_000;
      const res = await fetch(`${service.url}/v1/outcomes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcomes: [{ channel: 'outage', requestId: 'a', status: 'success', at }, { channel: 'outage', requestId: 'b', status: 'failure', at }] }),
      });
      expect(await res.json()).toMatchObject({ buffered: 2 });
      await redis.start();
      // The client is still reconnecting: close() keeps offering the buffer within its shutdown budget.
      await service.close();

      const pulse = await createPulse({ redis: redis.url, namespace: 'outage' });
      try {
        expect(await pulse.rate('outage', { window: '5m' })).toMatchObject({ success: 1, failure: 1 });
      } finally {
        await pulse.close();
      }
    } finally {
      await redis.stop();
    }
  });
});

describe('startService failures', () => {
  it('fails to start on a port already taken, leaving the running one untouched', async () => {
    const first = await startService({ ...defaultConfig, port: 0 }, { logger: silent });
    try {
      const port = Number(new URL(first.url).port);
      await expect(startService({ ...defaultConfig, port }, { logger: silent })).rejects.toThrow(/EADDRINUSE/);
      // The first one is untouched.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await first.close();
    }
  });

  it('fails to start when the history database is unreachable', async () => {
    const config = { ...defaultConfig, port: 0, databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere' };
    await expect(startService(config, { logger: silent })).rejects.toThrow();
  });
});
