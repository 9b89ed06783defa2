// Four routing instances on one real redis-server (stats and breaker states in it, each instance with its own
// connections and health snapshot): they agree on the breaker, write each transition once, and when Redis
// goes away they keep answering from their caches and say so. Four instances, on Redis and on the memory
// engines, report one experiment: the sum of what each counted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { BreakerTransition } from '../../src/routing/sharedBreakers.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import type { ExperimentReport } from '../../src/routing/experiment.js';
import { createStack, memoryStats, outcomes, t0, type Stack } from './stack.js';

let redis: LocalRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());

// A breaker that never opens here: the static arm must be free to pick the worse channel.
const experiment = { experiment: { share: 0.4 }, channels: { 'acq-a': { weight: 1 }, 'acq-b': { weight: 1 } }, breaker: { minSamples: 1_000_000 } };

async function redisFleet(size: number, transitions: BreakerTransition[], routing: object = {}) {
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
        { scoring: 'mean', exploration: 0, breaker: { minSamples: 50 }, ...routing },
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

function memoryFleet(size: number) {
  const clock = new ManualClock(t0);
  const stats = memoryStats();
  const coordination = new MemoryCoordinationStore(clock);
  const stacks = Array.from({ length: size }, () => createStack({ scoring: 'mean', exploration: 0, ...experiment }, { clock, stats, coordination }));
  return { clock, stacks, close: () => Promise.all(stacks.map((s) => s.close())) };
}

type Tally = Record<'router' | 'static', { decisions: number; success: number; failure: number }>;

/** Each instance routes its own payments and records their outcomes; returns what the fleet did in all. */
async function runExperiment(stacks: Stack[], now: number, perInstance: number): Promise<Tally> {
  const tally: Tally = { router: { decisions: 0, success: 0, failure: 0 }, static: { decisions: 0, success: 0, failure: 0 } };
  await Promise.all(
    stacks.map(async (s, i) => {
      const recorded = [];
      for (let k = 0; k < perInstance; k++) {
        const requestId = `e${i}-${k}-${now}`;
        const d = await s.routing.route({ candidates: ['acq-a', 'acq-b'], requestId });
        tally[d.arm].decisions++;
        // acq-b fails one payment in two, acq-a one in ten: the router's arm should do better.
        const ok = d.channel === 'acq-a' ? k % 10 !== 0 : k % 2 === 0;
        tally[d.arm][ok ? 'success' : 'failure']++;
        recorded.push({ channel: d.channel, requestId, status: ok ? ('success' as const) : ('failure' as const), at: now });
      }
      await s.record(recorded);
    }),
  );
  return tally;
}

async function expectOneExperiment(stacks: Stack[], tally: Tally): Promise<ExperimentReport> {
  // Every instance adds its counts on its next refresh, concurrently with the others.
  await Promise.all(stacks.map((s) => s.routing.refresh()));
  const reports = await Promise.all(stacks.map((s) => s.routing.experimentReport()));
  for (const r of reports) expect(r).toEqual(reports[0]);
  for (const arm of ['router', 'static'] as const) expect(reports[0]!.arms[arm]).toMatchObject(tally[arm]);
  return reports[0]!;
}

describe('one experiment across four instances', () => {
  it('on the memory engines', async () => {
    const fleet = memoryFleet(4);
    try {
      const now = fleet.clock.now();
      await fleet.stacks[0]!.record([...outcomes('acq-a', 90, 10, now), ...outcomes('acq-b', 50, 50, now)]);
      await Promise.all(fleet.stacks.map((s) => s.routing.refresh()));
      const tally = await runExperiment(fleet.stacks, now, 500);
      expect(tally.static.decisions).toBeGreaterThan(600);
      const report = await expectOneExperiment(fleet.stacks, tally);
      expect(report.difference).toBeGreaterThan(0);
      expect(report.significant).toBe(true);
    } finally {
      await fleet.close();
    }
  });

  it('on Redis, keeping counts made while Redis was away', async () => {
    const fleet = await redisFleet(4, [], experiment);
    try {
      const now = fleet.clock.now();
      await fleet.stacks[0]!.record([...outcomes('acq-a', 90, 10, now), ...outcomes('acq-b', 50, 50, now)]);
      await Promise.all(fleet.stacks.map((s) => s.routing.refresh()));
      const before = await runExperiment(fleet.stacks, now, 300);
      await expectOneExperiment(fleet.stacks, before);
      await redis.kill();
      const during = await runExperiment(fleet.stacks.slice(0, 1), now + 1, 100);
      fleet.clock.advance(1000);
      await fleet.stacks[0]!.routing.refresh();
      await expect(fleet.stacks[0]!.routing.experimentReport()).rejects.toMatchObject({ code: 'PP_ERR_STORE_UNAVAILABLE' });
      await redis.start();
      // The clients reconnect on their own schedule (wall time): wait for every instance to read again.
      for (const s of fleet.stacks) await expect.poll(() => s.routing.experimentReport().then(() => true, () => false), { timeout: 15_000, interval: 100 }).toBe(true);
      // The restarted server is empty: what it holds now is what instance 0 counted while it was away.
      await expectOneExperiment(fleet.stacks, during);
    } finally {
      await fleet.close();
    }
  });
});

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
