// The kit with a kit database: PostgreSQL is the one authority for callback marks and locks, whatever Redis
// does and whatever the degradation level. The finding this guards: marks and locks taken while Redis was down
// were forgotten once the process went back to Redis, so a duplicate callback ran again and a lock had two holders.
// Real redis-server (killed and restarted), real PostgreSQL server, virtual time driving the degradation switch.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse, type Pulse } from '../../src/index.js';
import { createTestDatabase } from '../history/databases.js';
import { eventually } from './engines.js';
import { startRedis } from '../support/redisServer.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** Record calls on virtual seconds: the record path is what feeds the degradation switch. */
async function recordSeconds(pulse: Pulse, clock: ManualClock, seconds: number, tag: string): Promise<void> {
  for (let s = 0; s < seconds; s++) {
    await pulse.record({ channel: 'alipay', requestId: `${tag}${s}`, status: 'success', at: clock.now() });
    clock.advance(1_000);
  }
}

describe('kit with a kit database', () => {
  it('keeps marks and locks taken during a Redis outage after the process is back at level 0', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const clock = new ManualClock(Date.now());
    const pulse = await createPulse({
      redis: redis.url,
      clock,
      namespace: `kitauth${process.pid}`,
      degradation: { level1ForSec: 2, recoverForSec: 2 },
      kitDatabase: database.url,
    });
    cleanups.push(() => pulse.close());
    const runs: string[] = [];
    const callback = (key: string) => pulse.idempotency.run(key, { processingMs: 60_000 }, () => void runs.push(key));

    await redis.kill();
    await recordSeconds(pulse, clock, 4, 'down');
    expect(pulse.health().degradationLevel).toBe(1);
    const first = await pulse.lock.acquire('order:9', { ttlMs: 120_000 });
    expect(first).not.toBeNull();
    await callback('cb:A');

    await redis.start();
    await eventually(() => pulse.flushBuffer(), 10_000);
    await recordSeconds(pulse, clock, 4, 'up');
    expect(pulse.health().degradationLevel).toBe(0);

    expect(await pulse.lock.acquire('order:9', { ttlMs: 120_000 })).toBeNull();
    expect(await callback('cb:A')).toMatchObject({ status: 'duplicate' });
    expect(runs).toEqual(['cb:A']);
  });

  it('returns to level 0 on its own probes once Redis is healthy, though the process makes no calls', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const pulse = await createPulse({ redis: redis.url, namespace: `kitprobe${process.pid}`, degradation: { level1ForSec: 1, recoverForSec: 2 } });
    cleanups.push(() => pulse.close());
    await redis.kill();
    for (let i = 0; i < 30 && pulse.health().degradationLevel === 0; i++) {
      await pulse.record({ channel: 'alipay', requestId: `p${i}`, status: 'success', at: Date.now() });
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(pulse.health().degradationLevel).toBe(1);
    await redis.start();
    await eventually(() => pulse.flushBuffer(), 10_000);
    // From here on the process makes no store call of its own.
    await eventually(async () => pulse.health().degradationLevel === 0, 10_000);
  });
});
