// Nothing waits for Redis to start: createPulse and the service come up at once against a port nobody listens
// on, records are buffered as in an outage, reads say the store is unavailable (or stale), /readyz says why;
// once a redis-server starts on that port every buffered outcome lands. connectTimeoutMs makes createPulse fail fast.
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock } from '../../src/clock.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { createPulse } from '../../src/index.js';
import { defaultConfig } from '../../src/server/config.js';
import { startService } from '../../src/server/service.js';
import { freePort, startRedis, type LocalRedis } from '../support/redisServer.js';
import { createTestDatabase } from '../history/databases.js';
import { eventually } from '../kit/engines.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe('start without Redis', () => {
  it('createPulse returns at once, buffers records, and writes them once Redis starts', async () => {
    const port = await freePort();
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 9, 0));
    const pulse = await createPulse({ redis: `redis://127.0.0.1:${port}`, clock, namespace: `nostart${process.pid}` });
    cleanups.push(() => pulse.close());
    const at = clock.now() - 1_000;
    expect(await pulse.record({ channel: 'alipay', requestId: 'a', status: 'success', at })).toMatchObject({ buffered: 1, accepted: 0 });
    expect(await pulse.recordMany([{ channel: 'alipay', requestId: 'b', status: 'failure', at }])).toMatchObject({ buffered: 1 });
    expect(pulse.health()).toMatchObject({ storeReachable: false, bufferedOutcomes: 2 });
    await expect(pulse.rate('alipay')).rejects.toBeInstanceOf(StoreUnavailableError); // nothing known yet
    await expect(pulse.rate('alipay')).rejects.toThrow(/waiting for Redis at redis:\/\/127\.0\.0\.1:\d+/);

    let redis: LocalRedis | undefined;
    cleanups.push(async () => redis?.stop());
    redis = await startRedis([], { port });
    await eventually(() => pulse.flushBuffer(), 10_000);
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ total: 2, success: 1, failure: 1, stale: false });
    expect(pulse.health()).toMatchObject({ storeReachable: true, bufferedOutcomes: 0 });
  });

  it('createPulse rejects within connectTimeoutMs when asked to fail fast', async () => {
    const port = await freePort();
    await expect(createPulse({ redis: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 })).rejects.toThrow(/connectTimeoutMs 300/);
  });

  it('paypulse serve listens at once, /readyz says why it is not ready, and recording resumes when Redis starts', async () => {
    const port = await freePort();
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    // Resolving at all is the proof: before, startService waited for Redis forever.
    const service = await startService(
      { ...defaultConfig, port: 0, redisUrl: `redis://127.0.0.1:${port}`, namespace: `nostartsvc${process.pid}`, databaseUrl: database.url },
      { logger: pino({ level: 'silent' }) },
    );
    cleanups.push(() => service.close());
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(503);
    const readiness = await ready.json();
    expect(readiness.checks.store.detail).toMatch(/waiting for Redis at redis:\/\/127\.0\.0\.1:\d+/);
    expect(readiness).toMatchObject({ degradationLevel: 0, buffering: expect.stringMatching(/^memory only: .* lost if the process dies/) });
    const at = Date.now() - 1_000;
    const posted = await fetch(`${service.url}/v1/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'upi', requestId: 'x', status: 'success', at }),
    });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toMatchObject({ buffered: 1 });

    let redis: LocalRedis | undefined;
    cleanups.push(async () => redis?.stop());
    redis = await startRedis([], { port });
    await eventually(async () => (await fetch(`${service.url}/readyz`)).status === 200, 15_000);
    await eventually(async () => (await (await fetch(`${service.url}/v1/channels/upi/rate?window=1m`)).json()).total === 1, 10_000);
  });
});
