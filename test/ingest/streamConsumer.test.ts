// Stream ingestion against a real redis-server and a real pulse: valid entries counted once, invalid ones
// dead-lettered with their reason, a dead consumer's entries taken over and still counted once, and the
// trim never removing an entry some group has not acknowledged.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPulse, type Pulse } from '../../src/index.js';
import { startStreamConsumer, type StreamConsumer } from '../../src/ingest/stream/streamConsumer.js';
import { streamSettingsSchema } from '../../src/ingest/stream/streamSettings.js';
import { deadLetterStreamKey, outcomeStreamKey } from '../../src/store/keys/ingestStream.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { connectGateway, pendingCount, streamEntries, waitUntil, xaddOutcome, type GatewayClient } from './streamGateway.js';

let redis: LocalRedis;
let gateway: GatewayClient;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  redis = await startRedis();
  gateway = await connectGateway(redis.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await gateway?.close();
  await redis?.stop();
});

interface Setup {
  namespace: string;
  key: string;
  pulse: Pulse;
  start(overrides?: Record<string, unknown>): Promise<StreamConsumer>;
}

async function setup(options: { maxChannels?: number } = {}): Promise<Setup> {
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const pulse = await createPulse({ redis: redis.url, namespace, dimensions: [['method']], ...options });
  cleanups.push(() => pulse.close());
  return {
    namespace,
    key: outcomeStreamKey(namespace, 0),
    pulse,
    async start(overrides = {}) {
      const connection = await RedisConnection.connect({ url: redis.url });
      const settings = streamSettingsSchema.parse({ blockMs: 100, claimIntervalMs: 200, trimIntervalMs: 200, ...overrides });
      const consumer = startStreamConsumer({
        redis: connection,
        recorder: pulse,
        namespace,
        settings: { ...settings, consumer: settings.consumer ?? `c-${randomBytes(3).toString('hex')}` },
        spillIsDurable: false,
      });
      cleanups.push(async () => {
        await consumer.stop();
        await connection.close();
      });
      return consumer;
    },
  };
}

const now = () => Date.now();

describe('stream consumer', () => {
  it('records valid entries once, with dims and code, and leaves nothing pending', async () => {
    const s = await setup();
    for (let i = 0; i < 40; i++) {
      await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: `r${i}`, status: i % 4 === 0 ? 'failure' : 'success', at: now(), dims: { method: 'card' }, ...(i % 4 === 0 ? { code: 'E51' } : {}) });
    }
    // The same requestId written twice by a gateway's retry: dedup counts it once.
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'r1', status: 'success', at: now() });
    const consumer = await s.start();
    await waitUntil(() => consumer.stats().recorded === 41, 15_000, 'all entries recorded');
    const rate = await s.pulse.rate('alipay', { window: '5m' });
    expect(rate).toMatchObject({ total: 40, success: 30, failure: 10 });
    expect((await s.pulse.rate('alipay', { window: '5m', dims: { method: 'card' } })).total).toBe(40);
    expect((await s.pulse.failures('alipay', { window: '5m', limit: 1 }))[0]?.code).toBe('E51');
    expect(await pendingCount(gateway, s.key, 'paypulse')).toBe(0);
    expect(consumer.stats().deadLetters).toEqual({ validation: 0, limit: 0 });
  });

  it('dead-letters invalid entries with the field and reason, keeping the original fields, and acks them', async () => {
    const s = await setup();
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'ok-1', status: 'success', at: now() });
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'bad-status', status: 'maybe', at: now() });
    await xaddOutcome(gateway, s.key, { channel: 'has space', requestId: 'bad-channel', status: 'success', at: now() });
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'bad-at', status: 'success', at: 'yesterday' });
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'typo', status: 'success', at: now(), latncyMs: '12' });
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'bad-dim', status: 'success', at: now(), dims: { method: 'two words' } });
    await xaddOutcome(gateway, s.key, { channel: 'alipay', requestId: 'ok-2', status: 'failure', at: now() });
    const consumer = await s.start();
    await waitUntil(() => consumer.stats().recorded + consumer.stats().deadLetters.validation === 7, 15_000, 'every entry settled');
    expect(consumer.stats().recorded).toBe(2);
    expect((await s.pulse.rate('alipay', { window: '5m' })).total).toBe(2);
    const dead = await streamEntries(gateway, deadLetterStreamKey(s.namespace, 0));
    const byRequest = new Map(dead.map((d) => [d.fields.requestId, d.fields]));
    expect([...byRequest.keys()].sort()).toEqual(['bad-at', 'bad-channel', 'bad-dim', 'bad-status', 'typo']);
    expect(byRequest.get('bad-status')).toMatchObject({ channel: 'alipay', status: 'maybe', 'paypulse.field': 'status', 'paypulse.class': 'validation' });
    expect(byRequest.get('bad-status')!['paypulse.reason']).toMatch(/success/);
    expect(byRequest.get('bad-channel')!['paypulse.field']).toBe('channel');
    expect(byRequest.get('bad-at')).toMatchObject({ at: 'yesterday', 'paypulse.field': 'at' });
    expect(byRequest.get('typo')).toMatchObject({ latncyMs: '12', 'paypulse.field': 'latncyMs', 'paypulse.reason': 'is not a known field' });
    expect(byRequest.get('bad-dim')).toMatchObject({ 'dims.method': 'two words', 'paypulse.field': 'dims.method' });
    expect(byRequest.get('bad-dim')!['paypulse.stream']).toBe(s.key);
    expect(await pendingCount(gateway, s.key, 'paypulse')).toBe(0);
  });

  it('dead-letters what the engine refuses (a channel past maxChannels) and records the rest of the batch', async () => {
    const s = await setup({ maxChannels: 2 });
    for (const [i, channel] of ['a1', 'a2', 'a3', 'a1', 'a3', 'a2'].entries()) {
      await xaddOutcome(gateway, s.key, { channel, requestId: `m${i}`, status: 'success', at: now() });
    }
    const consumer = await s.start();
    await waitUntil(() => consumer.stats().recorded + consumer.stats().deadLetters.limit === 6, 15_000, 'every entry settled');
    expect(consumer.stats().deadLetters).toEqual({ validation: 0, limit: 2 });
    const dead = await streamEntries(gateway, deadLetterStreamKey(s.namespace, 0));
    expect(dead.map((d) => [d.fields.requestId, d.fields['paypulse.class'], d.fields['paypulse.field']])).toEqual([
      ['m2', 'limit', 'channel'],
      ['m4', 'limit', 'channel'],
    ]);
    expect((await s.pulse.rate('a1', { window: '5m' })).total + (await s.pulse.rate('a2', { window: '5m' })).total).toBe(4);
    expect(await pendingCount(gateway, s.key, 'paypulse')).toBe(0);
  });

  it("takes over a dead consumer's pending entries (XAUTOCLAIM) and counts them once", async () => {
    const s = await setup();
    await gateway.sendCommand(['XGROUP', 'CREATE', s.key, 'paypulse', '0', 'MKSTREAM']);
    const outcomes = Array.from({ length: 30 }, (_, i) => ({ channel: 'stripe', requestId: `d${i}`, status: 'success' as const, at: now() }));
    for (const o of outcomes) await xaddOutcome(gateway, s.key, o);
    // A consumer reads everything and dies: half of it recorded (its ack never sent), half not recorded at all.
    await gateway.sendCommand(['XREADGROUP', 'GROUP', 'paypulse', 'doomed', 'COUNT', '100', 'STREAMS', s.key, '>']);
    await s.pulse.recordMany(outcomes.slice(0, 15));
    expect(await pendingCount(gateway, s.key, 'paypulse')).toBe(30);
    const consumer = await s.start({ claimIdleMs: 1_000 });
    await waitUntil(async () => (await pendingCount(gateway, s.key, 'paypulse')) === 0, 15_000, 'the dead consumer’s entries acknowledged');
    expect(consumer.stats().reclaimed).toBe(30);
    expect((await s.pulse.rate('stripe', { window: '5m' })).total).toBe(30);
  });

  it('trims what every group acknowledged and nothing another group still needs', async () => {
    const s = await setup();
    await gateway.sendCommand(['XGROUP', 'CREATE', s.key, 'paypulse', '0', 'MKSTREAM']);
    // A second group (an audit reader) that read 10 entries and acknowledged only the first 5.
    await gateway.sendCommand(['XGROUP', 'CREATE', s.key, 'audit', '0']);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await xaddOutcome(gateway, s.key, { channel: 'adyen', requestId: `t${i}`, status: 'success', at: now() }));
    await gateway.sendCommand(['XREADGROUP', 'GROUP', 'audit', 'a1', 'COUNT', '10', 'STREAMS', s.key, '>']);
    await gateway.sendCommand(['XACK', s.key, 'audit', ...ids.slice(0, 5)]);
    const consumer = await s.start();
    await waitUntil(() => consumer.stats().recorded === 20 && consumer.stats().trimmed > 0, 15_000, 'recorded and trimmed');
    const left = (await streamEntries(gateway, s.key)).map((e) => e.id);
    // The audit group's oldest pending entry (the 6th) and everything after it stay.
    expect(left).toEqual(ids.slice(5));
    expect(consumer.stats().streams.get(s.key)).toMatchObject({ pending: 0 });
  });
});
