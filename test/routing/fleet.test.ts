// Four routing instances on one real redis-server (stats and breaker states in it, each instance with its own
// connections and health snapshot): they agree on the breaker, write each transition once, and when Redis
// goes away they keep answering from their caches and say so.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { BreakerTransition } from '../../src/routing/sharedBreakers.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import { createStack, outcomes, t0, type Stack } from './stack.js';

let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

async function redisFleet(size: number, transitions: BreakerTransition[]) {
  const clock = new ManualClock(t0);
  const namespace = `f${randomBytes(3).toString('hex')}`;
  const connections: RedisConnection[] = [];
  const stacks: Stack[] = [];
  for (let i = 0; i < size; i++) {
    const connection = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 300 });
    connections.push(connection);
    const settings = resolveSettings({ namespace, minSamples: 20 });
    stacks.push(
      createStack(
        { scoring: 'mean', exploration: 0, breaker: { minSamples: 50 } },
        {
          clock,
          namespace,
          stats: { store: new RedisStatsStore(connection, settings), settings },
          coordination: new RedisCoordinationStore(connection),
          onTransition: (t) => transitions.push(t),
        },
      ),
    );
  }
  return {
    clock,
    stacks,
    async close() {
      for (const s of stacks) await s.close().catch(() => undefined);
      for (const c of connections) await c.close().catch(() => undefined);
    },
  };
}

describe('four instances on one Redis', () => {
  it('agree on one breaker and write its transition once', async () => {
    const transitions: BreakerTransition[] = [];
    const fleet = await redisFleet(4, transitions);
    try {
      const now = fleet.clock.now();
      await fleet.stacks[0]!.record([...outcomes('acq-a', 20, 80, now), ...outcomes('acq-b', 90, 10, now)]);
      await Promise.all(fleet.stacks.map((s) => s.routing.refresh()));
      expect(fleet.stacks.map((s) => s.routing.stateOf('acq-a'))).toEqual(['open', 'open', 'open', 'open']);
      expect(transitions.filter((t) => t.channel === 'acq-a')).toHaveLength(1);
      for (const s of fleet.stacks) expect((await s.routing.route({ candidates: ['acq-a', 'acq-b'] })).channel).toBe('acq-b');
    } finally {
      await fleet.close();
    }
  });

  it('answers from the cache during an outage, flagged stale, and never throws', async () => {
    const fleet = await redisFleet(1, []);
    const [s] = fleet.stacks;
    try {
      const now = fleet.clock.now();
      await s!.record([...outcomes('acq-a', 95, 5, now), ...outcomes('acq-b', 60, 40, now)]);
      await s!.routing.refresh();
      expect(await s!.routing.route({ candidates: ['acq-b', 'acq-a'] })).toMatchObject({ channel: 'acq-a', stale: false });
      await redis.kill();
      fleet.clock.advance(1000);
      await s!.routing.refresh();
      const during = await s!.routing.route({ candidates: ['acq-b', 'acq-a'], requestId: 'during-outage' });
      expect(during).toMatchObject({ channel: 'acq-a', stale: true, failOpen: false });
      await expect(s!.routing.breaker('acq-a').state()).rejects.toMatchObject({ code: 'PP_ERR_STORE_UNAVAILABLE' });
    } finally {
      await redis.start();
      await fleet.close();
    }
  });
});
