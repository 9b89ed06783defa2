// Stream ingestion on a real three-master Redis Cluster: three shard streams (docs/ingestion.md, the key
// scheme) land on different nodes, one instance reads them all, and the dead letters of a shard sit in its slot.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPulse } from '../../src/index.js';
import { startStreamConsumer } from '../../src/ingest/stream/streamConsumer.js';
import { streamSettingsSchema } from '../../src/ingest/stream/streamSettings.js';
import { deadLetterStreamKey, outcomeStreamKey } from '../../src/store/keys/ingestStream.js';
import { clusterSlot } from '../../src/store/keys/clusterSlot.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startCluster, type LocalCluster } from '../support/redisServer.js';
import { entryFields, waitUntil } from './streamGateway.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster(3);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

/** The gateway's documented shard choice: crc32(channel) % shards. */
function shardOf(channel: string, shards: number): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(channel)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ((crc ^ 0xffffffff) >>> 0) % shards;
}

describe('stream ingestion on Redis Cluster', () => {
  it('reads every shard stream, spread over the nodes, and counts each outcome once', async () => {
    const namespace = `c${randomBytes(3).toString('hex')}`;
    const url = cluster.urls.join(',');
    const shards = 3;
    const keys = Array.from({ length: shards }, (_, i) => outcomeStreamKey(namespace, i));
    const gateway = await RedisConnection.connect({ url, connectTimeoutMs: 10_000 });
    const pulse = await createPulse({ redis: url, namespace });
    const reader = await RedisConnection.connect({ url, connectTimeoutMs: 10_000 });
    const settings = streamSettingsSchema.parse({ shards, blockMs: 100, trimIntervalMs: 200 });
    const consumer = startStreamConsumer({ redis: reader, recorder: pulse, namespace, settings: { ...settings, consumer: 'one' }, spillIsDurable: false });
    try {
      expect(new Set(keys.map((k) => gateway.masterOfSlot(clusterSlot(k)))).size).toBeGreaterThan(1);
      const channels = ['alipay', 'wechatpay', 'stripe-card', 'adyen-card', 'paypal', 'bank-transfer'];
      for (let i = 0; i < 300; i++) {
        const channel = channels[i % channels.length]!;
        const key = keys[shardOf(channel, shards)]!;
        await gateway.command(key, ['XADD', key, '*', ...entryFields({ channel, requestId: `q${i}`, status: 'success', at: Date.now() })]);
      }
      const badKey = keys[shardOf('alipay', shards)]!;
      await gateway.command(badKey, ['XADD', badKey, '*', ...entryFields({ channel: 'alipay', requestId: 'bad', status: 'nope', at: Date.now() })]);
      await waitUntil(() => consumer.stats().recorded === 300 && consumer.stats().deadLetters.validation === 1, 40_000, 'every shard read');
      let total = 0;
      for (const channel of channels) total += (await pulse.rate(channel, { window: '5m' })).total;
      expect(total).toBe(300);
      const deadKey = deadLetterStreamKey(namespace, shardOf('alipay', shards));
      expect(clusterSlot(deadKey)).toBe(clusterSlot(badKey));
      expect(Number(await gateway.command(deadKey, ['XLEN', deadKey]))).toBe(1);
    } finally {
      await consumer.stop();
      await reader.close();
      await pulse.close();
      await gateway.close();
    }
  }, 60_000);
});
