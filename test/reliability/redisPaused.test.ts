// A Redis that stops answering without closing its sockets (SIGSTOP: a hung host, a long fork) is the fault a
// timeout must catch: through the service with a data folder, every POST answers within its record timeout
// (buffered, spilled to the journal) while Redis is stopped, and once it continues every acknowledged outcome
// is counted, none twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { defaultConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { eventually } from '../kit/engines.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

const recordTimeoutMs = 300;
let redis: LocalRedis;
let database: TestDatabase;
let dataDir: string;
let service: RunningService;
let serial = 0;

async function post(count: number): Promise<{ status: number; body: { accepted: number; buffered: number } }> {
  const at = Date.now() - 1_000;
  const outcomes = Array.from({ length: count }, () => ({ channel: 'paused', requestId: `p${++serial}`, status: 'success', at }));
  const response = await fetch(`${service.url}/v1/outcomes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcomes }),
    // Far above the record timeout: a request still open at 5 s hangs, which the test must not allow.
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  redis = await startRedis();
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'paypulse-paused-'));
  service = await startService(
    { ...defaultConfig, port: 0, redisUrl: redis.url, databaseUrl: database.url, dataDir, recordTimeoutMs, namespace: `paused${process.pid}` },
    { logger: pino({ level: 'silent' }) },
  );
});

afterAll(async () => {
  redis?.resume();
  await service?.close();
  await redis?.stop();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Redis stopped (SIGSTOP) under ingest', () => {
  it('answers every POST within its timeout while Redis is stopped, and counts every acknowledged outcome after', async () => {
    let acknowledged = 0;
    const first = await post(50);
    expect(first).toMatchObject({ status: 200, body: { accepted: 50 } });
    acknowledged += 50;

    redis.pause();
    let buffered = 0;
    try {
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        const answer = await post(20);
        expect(answer.status).toBe(200);
        // The record timeout plus the time to answer; a hung request would have been aborted at 5 s.
        expect(performance.now() - started).toBeLessThan(5_000);
        acknowledged += 20;
        buffered += answer.body.buffered;
      }
    } finally {
      redis.resume();
    }
    expect(buffered).toBeGreaterThan(0);

    await eventually(async () => {
      const health = service.pulse.health();
      return health.bufferedOutcomes === 0 && health.spilledOutcomes === 0;
    }, 20_000);
    const rate = await (await fetch(`${service.url}/v1/channels/paused/rate?window=5m`)).json();
    expect(rate.total).toBe(acknowledged);
  });
});
