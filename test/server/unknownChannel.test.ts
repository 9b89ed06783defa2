// Right after start, before the first health snapshot, this process knows only the channels it recorded
// itself. A rate of a channel nobody wrote is a 404 from the very first request, one that another instance
// wrote is answered, and only while the store has never been read (nothing known at all) is the answer 503
// PP_ERR_WARMING_UP. Over a socket, on a Redis of our own.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/index.js';
import { freePort } from '../support/redisServer.js';
import { engines, makeApp, t0 } from './harness.js';

const redis = engines[1]!;

describe('an unknown channel right after start', () => {
  beforeAll(() => redis.start(), 30_000);
  afterAll(() => redis.stop());

  it('is a 404 from the first request; a channel another instance wrote is answered', async () => {
    const namespace = `t${randomBytes(4).toString('hex')}`;
    const writer = await createPulse({ ...redis.pulseOptions(), namespace, clock: new ManualClock(t0) });
    try {
      await writer.record({ channel: 'alipay', requestId: 'r1', status: 'success', at: t0 - 1_000 });
    } finally {
      await writer.close();
    }
    const t = await makeApp(redis, { pulse: { namespace } });
    try {
      const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const unknown = await fetch(`${base}/v1/channels/nope/rate?window=1m`);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('PP_ERR_NOT_FOUND');
      const known = await fetch(`${base}/v1/channels/alipay/rate?window=1m`);
      expect(known.status).toBe(200);
      expect(await known.json()).toMatchObject({ channel: 'alipay', total: 1 });
    } finally {
      await t.close();
    }
  });

  it('is a 503 PP_ERR_WARMING_UP while the store has never answered', async () => {
    const port = await freePort();
    const t = await makeApp(redis, { pulse: { redis: `redis://127.0.0.1:${port}` } });
    try {
      const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const res = await fetch(`${base}/v1/channels/nope/rate?window=1m`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PP_ERR_WARMING_UP');
    } finally {
      await t.close();
    }
  });
});
