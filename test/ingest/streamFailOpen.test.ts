// Fail open: with Redis gone the consumer backs off, says so once, never throws into the process, and reads
// again (recreating its group on the emptied server) when Redis is back.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPulse } from '../../src/index.js';
import { startStreamConsumer } from '../../src/ingest/stream/streamConsumer.js';
import { streamSettingsSchema } from '../../src/ingest/stream/streamSettings.js';
import { outcomeStreamKey } from '../../src/store/keys/ingestStream.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { connectGateway, waitUntil, xaddOutcome } from './streamGateway.js';

let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('stream consumer while Redis is down', () => {
  it('backs off, logs the outage once, and consumes again after Redis comes back empty', async () => {
    const namespace = `t${randomBytes(4).toString('hex')}`;
    const key = outcomeStreamKey(namespace, 0);
    const pulse = await createPulse({ redis: redis.url, namespace });
    const connection = await RedisConnection.connect({ url: redis.url });
    const warnings: string[] = [];
    const logger = { info: () => undefined, error: () => undefined, warn: (_: object, msg: string) => void warnings.push(msg) };
    const settings = streamSettingsSchema.parse({ blockMs: 100, claimIntervalMs: 200, trimIntervalMs: 200 });
    const consumer = startStreamConsumer({ redis: connection, recorder: pulse, namespace, settings: { ...settings, consumer: 'c' }, spillIsDurable: false, logger });
    try {
      await waitUntil(() => consumer.stats().streams.has(key), 15_000, 'the group in use');
      await redis.kill();
      await waitUntil(() => consumer.stats().errors >= 3, 15_000, 'several failed attempts');
      expect(warnings.filter((w) => w.includes('stream consumer cannot reach Redis'))).toHaveLength(1);
      await redis.start();
      const gateway = await connectGateway(redis.url);
      try {
        await xaddOutcome(gateway, key, { channel: 'alipay', requestId: 'after', status: 'success', at: Date.now() });
        await waitUntil(() => consumer.stats().recorded === 1, 20_000, 'the entry written after the outage recorded');
      } finally {
        await gateway.close();
      }
    } finally {
      await consumer.stop();
      await connection.close();
      await pulse.close();
    }
  }, 60_000);
});
