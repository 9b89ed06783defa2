// The process's degradation level through createPulse: fed by the record path's store calls, reported by
// health() (and so /metrics and /readyz) and logged on each change. Real redis-server, virtual time.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/index.js';
import type { PulseLogger } from '../../src/types.js';
import { eventually } from '../kit/engines.js';
import { freePort, startRedis, type LocalRedis } from '../support/redisServer.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe('degradation level', () => {
  it('rises to 1 after ten seconds of failed writes and falls back to 0 after sixty good ones', async () => {
    const port = await freePort();
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 9, 45));
    const lines: string[] = [];
    const logger: PulseLogger = { warn: (_o, m) => void lines.push(m), info: (_o, m) => void lines.push(m), error: (_o, m) => void lines.push(m) };
    const pulse = await createPulse({ redis: `redis://127.0.0.1:${port}`, clock, logger, namespace: `degrade${process.pid}` });
    cleanups.push(() => pulse.close());
    let n = 0;
    const recordEachSecond = async (seconds: number) => {
      for (let s = 0; s < seconds; s++) {
        await pulse.record({ channel: 'alipay', requestId: `d${n++}`, status: 'success', at: clock.now() });
        clock.advance(1_000);
      }
    };
    await recordEachSecond(10);
    expect(pulse.health()).toMatchObject({ degradationLevel: 1, storeReachable: false });
    expect(lines).toContain('paypulse: degradation level 0 → 1');

    let redis: LocalRedis | undefined;
    cleanups.push(async () => redis?.stop());
    redis = await startRedis([], { port });
    await eventually(() => pulse.flushBuffer(), 10_000);
    clock.advance(1_000); // the second Redis came back in saw failed retries too
    // Background retries (on real timers) may add good calls around the restart, so the edges get slack:
    // still degraded well before sixty good seconds, back to 0 just after them.
    await recordEachSecond(50);
    expect(pulse.health().degradationLevel).toBe(1);
    await recordEachSecond(11);
    expect(pulse.health().degradationLevel).toBe(0);
    expect(lines).toContain('paypulse: degradation level 1 → 0');
  });
});
