// The routed world (src/sim/routedWorld.ts) on each engine: the embedded stores, and a redis-server of the test's own.
import { randomBytes } from 'node:crypto';
import { resolveAlertRules, type AlertRulesInput } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { createRoutedWorld, type RoutedWorld, type RoutedWorldOptions } from '../../bench/alerts/routedWorld.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisCoordinationStore } from '../../src/store/redis/coordination.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import { fileRedis } from './fleet.js';

export const worldStart = Date.UTC(2026, 2, 2, 10, 0, 0);

export type WorldOptions = Omit<RoutedWorldOptions, 'clock' | 'stats' | 'coordination' | 'rules'> & { alerts?: AlertRulesInput };
export type WorldEngine = { name: string; open(options: WorldOptions): Promise<RoutedWorld> };

const windows = ['1m', '5m', '15m', '1h'];

/** Registers the file's redis-server and returns the two engines. */
export function routedWorldEngines(): WorldEngine[] {
  const redis = fileRedis();
  return [
    {
      name: 'memory',
      async open({ alerts, ...options }) {
        const clock = new ManualClock(worldStart);
        const settings = resolveSettings({ namespace: 'routed', windows });
        const store = new MemoryStatsStore(settings);
        const world = createRoutedWorld({ ...options, clock, stats: { store, settings }, coordination: new MemoryCoordinationStore(clock), rules: resolveAlertRules(alerts) });
        return { ...world, close: async () => world.close() };
      },
    },
    {
      name: 'redis',
      async open({ alerts, ...options }) {
        const clock = new ManualClock(worldStart);
        const settings = resolveSettings({ namespace: `w${randomBytes(4).toString('hex')}`, windows, recordTimeoutMs: 5_000 });
        const connection = await RedisConnection.connect({ url: redis().url, commandTimeoutMs: 5_000 });
        const world = createRoutedWorld({
          ...options, clock, stats: { store: new RedisStatsStore(connection, settings), settings },
          coordination: new RedisCoordinationStore(connection), rules: resolveAlertRules(alerts),
        });
        return { ...world, close: async () => {
          await world.close();
          await connection.close();
        } };
      },
    },
  ];
}
