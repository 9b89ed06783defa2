// The shared breaker on both coordination engines: four instances (own connections on Redis, one store
// shared in memory) see one breaker, exactly one of them writes each transition, and the probe leases of a
// half-open breaker never exceed their quota however many payments race for them.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { resolveRoutingSettings } from '../../src/routing/settings.js';
import { SharedBreakers, type BreakerTransition } from '../../src/routing/sharedBreakers.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import type { CoordinationStore } from '../../src/store/ports/coordination.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';

let redis: LocalRedis | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

interface Fleet {
  clock: ManualClock;
  breakers: SharedBreakers[];
  transitions: BreakerTransition[];
  close(): Promise<void>;
}

const settings = resolveRoutingSettings().breaker;

async function fleet(engine: 'memory' | 'redis', instances = 4): Promise<Fleet> {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  let stores: CoordinationStore[];
  let close = async () => {};
  if (engine === 'memory') {
    const shared = new MemoryCoordinationStore(clock);
    stores = Array.from({ length: instances }, () => shared);
  } else {
    const connections = await Promise.all(Array.from({ length: instances }, () => RedisConnection.connect({ url: redis!.url, commandTimeoutMs: 2000 })));
    stores = connections.map((c) => new RedisCoordinationStore(c));
    close = async () => void (await Promise.all(connections.map((c) => c.close())));
  }
  const transitions: BreakerTransition[] = [];
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const breakers = stores.map((store) => new SharedBreakers({ store, namespace, settings, clock, onTransition: (t) => transitions.push(t) }, 30));
  return { clock, breakers, transitions, close };
}

// 30 calls a second over minutes: the open wait is the 6.7 s that makes one probe round 0.5 % of them.
const failing = [{ channel: 'bank-x', scope: '', window: { success: 40, failure: 60, callsPerSec: 30 } }];
const openWaitMs = 6_700;
const quiet = [{ channel: 'bank-x', scope: '', window: { success: 0, failure: 0 } }];

describe.each(['memory', 'redis'] as const)('shared breaker on %s', (engine) => {
  it('opens once for the whole fleet when four instances see the same failing window', async () => {
    const f = await fleet(engine);
    try {
      await Promise.all(f.breakers.map((b) => b.sync(failing)));
      expect(f.transitions).toEqual([{ channel: 'bank-x', scope: '', from: 'closed', to: 'open', mode: 'auto', at: f.clock.now() }]);
      const views = f.breakers.map((b) => b.view('bank-x'));
      expect(new Set(views.map((v) => `${v.state}/${v.version}`))).toEqual(new Set(['open/1']));
      // Seeing the same window again changes nothing: open waits for its time.
      await Promise.all(f.breakers.map((b) => b.sync(failing)));
      expect(f.transitions).toHaveLength(1);
    } finally {
      await f.close();
    }
  });

  it('goes half-open after the wait and grants one probe lease to payments racing on every instance', async () => {
    const f = await fleet(engine);
    try {
      await f.breakers[0]!.sync(failing);
      f.clock.advance(openWaitMs);
      await Promise.all(f.breakers.map((b) => b.sync(quiet)));
      expect(f.transitions.map((t) => t.to)).toEqual(['open', 'half-open']);
      expect(f.breakers.every((b) => b.view('bank-x').state === 'half-open')).toBe(true);
      const attempts = f.breakers.flatMap((b, i) => Array.from({ length: 10 }, (_, k) => b.admitProbe('bank-x', '', `pay-${i}-${k}`)));
      const granted = (await Promise.all(attempts)).filter(Boolean).length;
      // One probe in flight until its outcome is credited: a dead channel costs one failed payment a round.
      expect(granted).toBe(1);
    } finally {
      await f.close();
    }
  });

  it('closes on successful probes credited by whichever instance receives their outcomes', async () => {
    const f = await fleet(engine);
    try {
      await f.breakers[0]!.sync(failing);
      f.clock.advance(openWaitMs);
      await f.breakers[0]!.sync(quiet);
      // An outcome of a payment that held no lease is not a probe.
      expect(await f.breakers[3]!.creditOutcome('bank-x', '', 'not-a-probe', true)).toBe(false);
      // Rounds of 1, 2 and 2 probes, each admitted by one instance and credited by another; the quota an
      // instance grants follows the successes it has read.
      let n = 0;
      for (const round of [1, 2, 2]) {
        const admitter = f.breakers[n % 4]!;
        await admitter.sync(quiet);
        const holders = Array.from({ length: round }, () => `p${++n}`);
        for (const h of holders) expect(await admitter.admitProbe('bank-x', '', h)).toBe(true);
        // Quotas 1, 2, then 4: the first two rounds fill theirs.
        if (n <= 3) expect(await admitter.admitProbe('bank-x', '', 'one-too-many')).toBe(false);
        f.clock.advance(1_000);
        for (const h of holders) expect(await f.breakers[(n + 1) % 4]!.creditOutcome('bank-x', '', h, true)).toBe(true);
      }
      expect(f.transitions.map((t) => t.to)).toEqual(['open', 'half-open', 'closed']);
      await Promise.all(f.breakers.map((b) => b.sync(quiet)));
      expect(f.breakers.map((b) => b.view('bank-x').state)).toEqual(['closed', 'closed', 'closed', 'closed']);
    } finally {
      await f.close();
    }
  });

  it('reopens on failed probes', async () => {
    const f = await fleet(engine);
    try {
      await f.breakers[0]!.sync(failing);
      f.clock.advance(openWaitMs);
      await f.breakers[0]!.sync(quiet);
      for (const h of ['a', 'b', 'c']) {
        await f.breakers[1]!.admitProbe('bank-x', '', h);
        await f.breakers[2]!.creditOutcome('bank-x', '', h, false);
      }
      expect(f.transitions.map((t) => t.to)).toEqual(['open', 'half-open', 'open']);
    } finally {
      await f.close();
    }
  });

  it('applies a manual override fleet-wide and freezes it against the windows', async () => {
    const f = await fleet(engine);
    try {
      await f.breakers[0]!.setMode('bank-x', 'force-open');
      await Promise.all(f.breakers.map((b) => b.sync(quiet)));
      expect(f.breakers.map((b) => `${b.view('bank-x').state}/${b.view('bank-x').mode}`)).toEqual(Array(4).fill('open/force-open'));
      f.clock.advance(3600_000);
      await Promise.all(f.breakers.map((b) => b.sync(quiet)));
      expect(f.breakers[3]!.view('bank-x').state).toBe('open');
      await f.breakers[2]!.setMode('bank-x', 'force-closed');
      await Promise.all(f.breakers.map((b) => b.sync(failing)));
      expect(f.breakers[1]!.view('bank-x')).toMatchObject({ state: 'closed', mode: 'force-closed' });
      await f.breakers[1]!.setMode('bank-x', 'auto');
      await Promise.all(f.breakers.map((b) => b.sync(failing)));
      expect(f.breakers[0]!.view('bank-x')).toMatchObject({ state: 'open', mode: 'auto' });
      expect((await f.breakers[3]!.read('bank-x')).state).toBe('open');
    } finally {
      await f.close();
    }
  });
});
