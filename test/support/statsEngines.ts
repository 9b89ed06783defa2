// Every engine the success-rate conformance suite runs on: the embedded store, Redis with each
// strategy, and Redis Cluster (three masters this suite starts) with each strategy.
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse, type Pulse } from '../../src/pulse.js';
import { startCluster, startRedis, type LocalCluster, type LocalRedis } from './redisServer.js';
import type { PulseOptions } from '../../src/options.js';
import type { Strategy } from '../../src/types.js';
import { strategies } from '../../src/stats/settings.js';

export interface EngineCase {
  name: string;
  strategy?: Strategy;
  make(options?: PulseOptions): Promise<{ pulse: Pulse; clock: ManualClock }>;
}

let counter = 0;
const freshNamespace = () => `t${process.pid}-${++counter}`;

export const start = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A Redis (and, with `cluster`, a Redis Cluster) for the file, started before its tests and stopped after. */
export function useRedisServers({ cluster = true } = {}): { redis?: LocalRedis; cluster?: LocalCluster } {
  const servers: { redis?: LocalRedis; cluster?: LocalCluster } = {};
  beforeAll(async () => {
    servers.redis = await startRedis();
    if (cluster) servers.cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await servers.redis?.stop();
    await servers.cluster?.stop();
  });
  return servers;
}

/** Registers the servers for the file and returns the cases; `cluster` adds the Cluster cases. */
export function statsEngines({ cluster = true } = {}): EngineCase[] {
  const servers = useRedisServers({ cluster });
  const make = (base: () => PulseOptions) => async (options: PulseOptions = {}) => {
    const clock = new ManualClock(start);
    // A generous record timeout: these suites test counting, and a loaded 2-core machine must not
    // turn a slow answer into fail-open buffering (test/stats/recording.test.ts covers that on purpose).
    const pulse = await createPulse({ recordTimeoutMs: 5000, ...base(), namespace: freshNamespace(), clock, ...options });
    return { pulse, clock };
  };
  return [
    { name: 'memory', make: make(() => ({})) },
    ...strategies.map((strategy) => ({
      name: `redis/${strategy}`,
      strategy,
      make: make(() => ({ redis: servers.redis!.url, strategy })),
    })),
    ...(cluster
      ? strategies.map((strategy) => ({
          name: `cluster/${strategy}`,
          strategy,
          make: make(() => ({ redis: servers.cluster!.urls.join(','), strategy })),
        }))
      : []),
  ];
}
