// The kit on a real 3-master Redis Cluster: every script's keys share one `{…}` hash tag, so none is
// cross-slot, and invalidations published on one node reach a subscriber connected to another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKit, type Kit } from '../../src/kit/index.js';
import { startCluster, type LocalCluster } from '../support/redisServer.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisKitStore } from '../../src/store/redis/kit/index.js';
import { eventually, freshNamespace } from './engines.js';

let cluster: LocalCluster;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  cluster = await startCluster(3);
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await cluster?.stop();
});

async function clusterKit(namespace: string): Promise<Kit> {
  const connection = await RedisConnection.connect({ url: cluster.urls.join(','), commandTimeoutMs: 2000 });
  const store = new RedisKitStore(connection);
  const kit = createKit({ store, namespace });
  closers.push(async () => {
    await kit.close();
    await store.close();
    await connection.close();
  });
  return kit;
}

describe('kit on Redis Cluster', () => {
  it('runs locks, idempotency, cache and both recency designs across many slots', async () => {
    const namespace = freshNamespace();
    const a = await clusterKit(namespace);
    const b = await clusterKit(namespace);
    for (let i = 0; i < 30; i++) {
      const handle = await a.lock.acquire(`order:${i}`, { ttlMs: 5000 });
      expect(await b.lock.acquire(`order:${i}`, { ttlMs: 5000 })).toBeNull();
      expect(await handle!.release()).toBe(true);
      expect(await a.idempotency.run(`cb:${i}`, { processingMs: 1000 }, async () => i)).toMatchObject({ status: 'executed', result: i });
      expect(await b.idempotency.run(`cb:${i}`, { processingMs: 1000 }, async () => -1)).toEqual({ status: 'duplicate', result: i });
    }
    for (const design of ['buckets', 'zset'] as const) {
      const set = a.recency(`fleet-${design}`, { max: 5, within: '1d', tolerance: '1h', design });
      for (let i = 0; i < 20; i++) await set.touch(`v-${i}`, Date.now() - 1000 + i);
      expect((await set.list()).map((x) => x.id)).toEqual(['v-19', 'v-18', 'v-17', 'v-16', 'v-15']);
    }
    let version = 1;
    const loader = async () => ({ version });
    for (let i = 0; i < 10; i++) {
      await a.cache.getOrLoad(`pay:m:${i}:fee`, loader, { ttlMs: 60_000 });
      expect(await b.cache.getOrLoad(`pay:m:${i}:fee`, loader, { ttlMs: 60_000 })).toEqual({ version: 1 });
    }
    version = 2;
    for (let i = 0; i < 10; i++) await a.cache.invalidate(`pay:m:${i}:fee`);
    await eventually(async () => {
      const seen = await Promise.all(Array.from({ length: 10 }, (_, i) => b.cache.getOrLoad(`pay:m:${i}:fee`, loader, { ttlMs: 60_000 })));
      return seen.every((v) => v?.version === 2);
    }, 3000);
  });
});
