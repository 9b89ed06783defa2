// The write path on Redis: one round trip per batch however callers call, and fail open when Redis
// is down or slow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import type { PulseLogger } from '../../src/types.js';

const at = Date.UTC(2026, 0, 1, 12);
let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

function recordingLogger() {
  const lines: string[] = [];
  const logger: PulseLogger = {
    warn: (_o, msg) => lines.push(`warn ${msg}`),
    error: (_o, msg) => lines.push(`error ${msg}`),
    info: (_o, msg) => lines.push(`info ${msg}`),
  };
  return { lines, logger };
}

describe('recording on Redis', () => {
  it('coalesces concurrent record() calls into few store batches', async () => {
    const sizes: number[] = [];
    const pulse = await createPulse(
      { redis: redis.url, namespace: 'coalesce', clock: new ManualClock(at), recordTimeoutMs: 5000 },
      { onBatch: (size) => sizes.push(size) },
    );
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) => pulse.record({ channel: `ch${i % 5}`, requestId: `r${i}`, status: 'success', at })),
    );
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(sizes.length).toBeLessThanOrEqual(2);
    expect((await pulse.rates({ window: '1m' })).map((r) => r.total)).toEqual([200, 200, 200, 200, 200]);
    await pulse.close();
  });

  it('fails open while Redis is down: buffers, answers reads from the last known value, then catches up', async () => {
    const { lines, logger } = recordingLogger();
    const clock = new ManualClock(at);
    const pulse = await createPulse({ redis: redis.url, namespace: 'failopen', clock, logger, bufferLimit: 3 });
    await pulse.record({ channel: 'alipay', requestId: 'before', status: 'success', at });
    expect((await pulse.rate('alipay', { window: '1m' })).total).toBe(1);

    await redis.kill();
    const during = await pulse.recordMany(
      ['d1', 'd2', 'd3', 'd4'].map((requestId) => ({ channel: 'alipay', requestId, status: 'failure' as const, at })),
    );
    expect(during).toMatchObject({ accepted: 0, buffered: 3, dropped: 1 });
    expect(pulse.health()).toMatchObject({ storeReachable: false, bufferedOutcomes: 3, droppedOutcomes: 1 });
    const stale = await pulse.rate('alipay', { window: '1m' });
    expect(stale).toMatchObject({ total: 1, stale: true });
    expect(lines).toContain('warn paypulse: store unavailable, buffering outcomes (fail open)');
    expect(lines).toContain('error paypulse: outcome buffer full, outcomes dropped');

    await redis.start(); // an empty server, as after a crash without persistence
    await new Promise((r) => setTimeout(r, 300)); // let the client reconnect (real time, not a window)
    let flushed = false;
    for (let i = 0; i < 50 && !flushed; i++) {
      flushed = await pulse.flushBuffer();
      if (!flushed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(flushed).toBe(true);
    expect(pulse.health()).toMatchObject({ storeReachable: true, bufferedOutcomes: 0 });
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ total: 3, failure: 3, stale: false });
    await pulse.close();
  });

  it('fails open when Redis is slow, not only when it is down, and writes the outcomes afterwards', async () => {
    const pulse = await createPulse({ redis: redis.url, namespace: 'slow', clock: new ManualClock(at), recordTimeoutMs: 50 });
    const admin = await RedisConnection.connect({ url: redis.url });
    await admin.command('x', ['CLIENT', 'PAUSE', '400', 'ALL']); // every command waits 400 ms: a stalled Redis
    const result = await pulse.record({ channel: 'alipay', requestId: 'slow-1', status: 'success', at });
    expect(result).toMatchObject({ accepted: 0, buffered: 1 });
    expect(pulse.health().storeReachable).toBe(false);
    await new Promise((r) => setTimeout(r, 500)); // the pause ends (real time: Redis's own clock)
    expect(await pulse.flushBuffer()).toBe(true);
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ total: 1, stale: false });
    await admin.close();
    await pulse.close();
  });
});

describe('failing fast once Redis is known to be down', () => {
  const settled = (promise: Promise<unknown>) => {
    const state = { done: false };
    void promise.then(() => (state.done = true));
    return state;
  };
  // setImmediate runs after every pending microtask but before any timer: a record settled by then did not
  // wait for its timeout (or for Redis).
  const nextTurn = () => new Promise((r) => setImmediate(r));

  it('buffers writes after the first timeout without waiting, until the background probe sees Redis answer', async () => {
    const pulse = await createPulse({ redis: redis.url, namespace: 'failfast', clock: new ManualClock(at), recordTimeoutMs: 100 });
    await pulse.record({ channel: 'alipay', requestId: 'before', status: 'success', at });
    const admin = await RedisConnection.connect({ url: redis.url });
    await admin.command('x', ['CLIENT', 'PAUSE', '1500', 'ALL']);
    expect(await pulse.record({ channel: 'alipay', requestId: 'first', status: 'failure', at })).toMatchObject({ buffered: 1 });
    const storeErrors = pulse.health().storeErrors;

    const second = pulse.record({ channel: 'alipay', requestId: 'second', status: 'failure', at });
    const secondState = settled(second);
    const batch = settled(pulse.recordMany([{ channel: 'wechat', requestId: 'third', status: 'success', at }]));
    await nextTurn();
    expect(secondState.done).toBe(true);
    expect(batch.done).toBe(true);
    expect(await second).toMatchObject({ accepted: 0, buffered: 1 });
    // Nothing was asked of the store, so no new store error either.
    expect(pulse.health()).toMatchObject({ storeReachable: false, bufferedOutcomes: 3, storeErrors });

    // The probe (the buffer's background retry) writes the buffer once Redis answers again.
    const written = () => pulse.health().storeReachable && pulse.health().bufferedOutcomes === 0;
    for (let i = 0; i < 100 && !written(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pulse.health()).toMatchObject({ storeReachable: true, bufferedOutcomes: 0 });
    expect(await pulse.rate('alipay', { window: '1m' })).toMatchObject({ total: 3, failure: 2 });
    expect(await pulse.rate('wechat', { window: '1m' })).toMatchObject({ total: 1 });
    expect(await pulse.record({ channel: 'alipay', requestId: 'after', status: 'success', at })).toMatchObject({ accepted: 1 });
    await admin.close();
    await pulse.close();
  });
});
