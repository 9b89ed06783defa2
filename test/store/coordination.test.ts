// The coordination port's conformance suite: the same behaviour on the embedded store and on a real
// redis-server of this test's own, including many connections racing for one compare-and-set or one lease.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import type { CoordinationStore } from '../../src/store/ports/coordination.js';
import { coordinationKey } from '../../src/store/keys/coordination.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

interface Engine {
  name: string;
  /** `instances` stores that share state, as separate processes would (own connections on Redis). */
  open(instances: number): Promise<{ stores: CoordinationStore[]; clock: ManualClock; close(): Promise<void> }>;
}

let redis: LocalRedis | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

const engines: Engine[] = [
  {
    name: 'memory',
    async open(instances) {
      const clock = new ManualClock(Date.UTC(2026, 5, 1));
      const shared = new MemoryCoordinationStore(clock);
      return { stores: Array.from({ length: instances }, () => shared), clock, close: async () => undefined };
    },
  },
  {
    name: 'redis',
    async open(instances) {
      const clock = new ManualClock(Date.UTC(2026, 5, 1));
      const connections = await Promise.all(
        Array.from({ length: instances }, () => RedisConnection.connect({ url: redis!.url, commandTimeoutMs: 2000 })),
      );
      return {
        stores: connections.map((c) => new RedisCoordinationStore(c)),
        clock,
        close: async () => void (await Promise.all(connections.map((c) => c.close()))),
      };
    },
  },
];

const key = (kind: 'alert' | 'probes' = 'alert') => coordinationKey(`t${randomBytes(4).toString('hex')}`, 'bank-x', kind, 'method=card');

describe.each(engines)('coordination store on $name', (engine) => {
  it('writes version 1 over nothing, then only over the version it was given', async () => {
    const { stores, close } = await engine.open(1);
    const store = stores[0]!;
    const k = key();
    try {
      expect(await store.readStates([k])).toEqual([null]);
      expect(await store.compareAndSetState(k, 1, 'x', 60_000)).toEqual({ written: false, current: null });
      expect(await store.compareAndSetState(k, 0, '{"a":1}', 60_000)).toEqual({ written: true, version: 1 });
      expect(await store.compareAndSetState(k, 0, 'late', 60_000)).toEqual({ written: false, current: { version: 1, value: '{"a":1}' } });
      expect(await store.compareAndSetState(k, 1, '{"a":2}', 60_000)).toEqual({ written: true, version: 2 });
      expect(await store.readStates([k, key()])).toEqual([{ version: 2, value: '{"a":2}' }, null]);
    } finally {
      await close();
    }
  });

  it('lets exactly one of many racing instances write each version', async () => {
    const { stores, close } = await engine.open(4);
    const k = key();
    try {
      for (let version = 0; version < 5; version++) {
        const attempts = stores.flatMap((store, i) =>
          Array.from({ length: 10 }, (_, j) => store.compareAndSetState(k, version, `i${i}-${j}`, 60_000)),
        );
        const replies = await Promise.all(attempts);
        expect(replies.filter((r) => r.written)).toEqual([{ written: true, version: version + 1 }]);
      }
      expect((await stores[3]!.readStates([k]))[0]?.version).toBe(5);
    } finally {
      await close();
    }
  });

  it('never grants more leases than the quota, however many instances race', async () => {
    const { stores, clock, close } = await engine.open(4);
    const k = key('probes');
    try {
      const now = clock.now();
      const replies = await Promise.all(
        stores.flatMap((store, i) => Array.from({ length: 10 }, (_, j) => store.takeLease(k, `h${i}-${j}`, 3, 10_000, now))),
      );
      expect(replies.filter((r) => r.granted)).toHaveLength(3);
      expect(Math.max(...replies.map((r) => r.held))).toBe(3);
    } finally {
      await close();
    }
  });

  it('grants a holder its own lease again without taking a second one, and frees released and expired leases', async () => {
    const { stores, clock, close } = await engine.open(1);
    const store = stores[0]!;
    const k = key('probes');
    try {
      const now = clock.now();
      expect(await store.takeLease(k, 'a', 2, 10_000, now)).toEqual({ granted: true, held: 1 });
      expect(await store.takeLease(k, 'a', 2, 10_000, now)).toEqual({ granted: true, held: 1 });
      expect(await store.takeLease(k, 'b', 2, 10_000, now)).toEqual({ granted: true, held: 2 });
      expect(await store.takeLease(k, 'c', 2, 10_000, now)).toEqual({ granted: false, held: 2 });
      expect(await store.releaseLease(k, 'b')).toBe(true);
      expect(await store.releaseLease(k, 'b')).toBe(false);
      expect(await store.takeLease(k, 'c', 2, 10_000, now + 1)).toEqual({ granted: true, held: 2 });
      // 'a' expires at now + 10 s: a crashed holder's slot comes back without anyone cleaning up.
      expect(await store.takeLease(k, 'd', 2, 10_000, now + 10_000)).toEqual({ granted: true, held: 2 });
      await store.clearLeases(k);
      expect(await store.takeLease(k, 'e', 1, 10_000, now + 10_001)).toEqual({ granted: true, held: 1 });
    } finally {
      await close();
    }
  });
});

describe('coordination state expiry', () => {
  it('forgets a state after its ttl (memory, on the injected clock)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const store = new MemoryCoordinationStore(clock);
    const k = key();
    await store.compareAndSetState(k, 0, 'v', 1000);
    clock.advance(999);
    expect((await store.readStates([k]))[0]?.version).toBe(1);
    clock.advance(1);
    expect(await store.readStates([k])).toEqual([null]);
  });

  it('sets a ttl on every write (redis)', async () => {
    const connection = await RedisConnection.connect({ url: redis!.url, commandTimeoutMs: 2000 });
    try {
      const k = key();
      await new RedisCoordinationStore(connection).compareAndSetState(k, 0, 'v', 60_000);
      const ttl = Number(await connection.command(k, ['PTTL', k]));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await connection.close();
    }
  });
});
