// Reads degrade, they do not disappear: with the service's Redis killed, GET /v1/channels keeps answering 200
// with the last snapshot, every rate flagged stale and the time the store became unreachable; /failures answers
// a typed 503 naming that time; the stream says so with a `store` event. Once Redis is back the flags clear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { defaultConfig } from '../../src/server/config.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { eventually } from '../kit/engines.js';

let redis: LocalRedis;
let database: TestDatabase;
let service: RunningService;

const getJson = async (path: string) => {
  const response = await fetch(`${service.url}${path}`);
  return { status: response.status, body: await response.json() };
};

beforeAll(async () => {
  redis = await startRedis();
  database = await createTestDatabase();
  service = await startService(
    { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: `degraded${process.pid}`, databaseUrl: database.url, windows: ['1m', '5m'] },
    { logger: pino({ level: 'silent' }) },
  );
});

afterAll(async () => {
  await service?.close();
  await redis?.stop();
  await database?.drop();
});

describe('reads while the store is down', () => {
  it('/v1/channels answers the last snapshot flagged stale, /failures says since when, both clear on return', async () => {
    const at = Date.now() - 1_000;
    const outcomes = [
      ...Array.from({ length: 9 }, (_, i) => ({ channel: 'alipay', requestId: `ok-${i}`, status: 'success', at })),
      { channel: 'alipay', requestId: 'bad-1', status: 'failure', at, code: 'do_not_honor' },
    ];
    const posted = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
    expect(posted.status).toBe(200);
    await eventually(async () => (await getJson('/v1/channels')).body.channels?.[0]?.rates['1m']?.total === 10, 10_000);
    const live = await getJson('/v1/channels');
    expect(live.body.stale).toBeUndefined();
    expect(live.body.storeUnreachableSince).toBeUndefined();

    const killedAt = Date.now();
    await redis.kill();
    await eventually(async () => (await getJson('/v1/channels')).body.stale === true, 15_000);
    const stale = await getJson('/v1/channels');
    expect(stale.status).toBe(200);
    expect(stale.body.storeUnreachableSince).toBeGreaterThanOrEqual(killedAt);
    expect(stale.body.channels).toHaveLength(1);
    expect(stale.body.channels[0]).toMatchObject({ channel: 'alipay', rates: { '1m': { total: 10, success: 9, failure: 1, stale: true }, '5m': { stale: true } } });

    const failures = await getJson('/v1/channels/alipay/failures?window=5m');
    expect(failures.status).toBe(503);
    expect(failures.body.error.code).toBe('PP_ERR_STORE_UNAVAILABLE');
    expect(failures.body.error.message).toContain(`unreachable since ${new Date(stale.body.storeUnreachableSince).toISOString()}`);
    expect(failures.body.error.details).toEqual({ since: stale.body.storeUnreachableSince });

    // Back, empty (a killed Redis without persistence): the answer is live again, whatever it now holds.
    await redis.start();
    await eventually(async () => (await getJson('/v1/channels')).body.stale === undefined, 20_000);
    const back = await getJson('/v1/channels');
    expect(back.body.storeUnreachableSince).toBeUndefined();
    expect((await getJson('/v1/channels/alipay/failures?window=5m')).status).toBe(200);
  });

  it('a process started while the store is down answers /v1/channels from history, stale', async () => {
    const at = Date.now() - 1_000;
    const outcomes = [
      ...Array.from({ length: 7 }, (_, i) => ({ channel: 'wechat', requestId: `h-ok-${i}`, status: 'success', at })),
      ...Array.from({ length: 3 }, (_, i) => ({ channel: 'wechat', requestId: `h-bad-${i}`, status: 'failure', at, code: 'issuer_down' })),
    ];
    const posted = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
    expect(posted.status).toBe(200);
    await eventually(async () => (await service.pulse.rate('wechat', { window: '1m' })).total === 10, 10_000);
    await service.snapshots.runOnce();
    await service.close();
    await redis.kill();

    service = await startService(
      { ...defaultConfig, port: 0, redisUrl: redis.url, namespace: `degraded${process.pid}`, databaseUrl: database.url, windows: ['1m', '5m'] },
      { logger: pino({ level: 'silent' }) },
    );
    await eventually(async () => (await getJson('/v1/channels')).body.stale === true, 15_000);
    const fromHistory = await getJson('/v1/channels');
    expect(fromHistory.status).toBe(200);
    const wechat = fromHistory.body.channels.find((c: { channel: string }) => c.channel === 'wechat');
    expect(wechat).toMatchObject({ rates: { '1m': { total: 10, success: 7, failure: 3, stale: true }, '5m': { total: 10, stale: true } } });
  });
});
