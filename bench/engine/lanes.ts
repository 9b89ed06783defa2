// The lanes of the volume sweep behind one shape: the seed's design, and PayPulse's strategies
// through the library (createPulse, recordMany), each on a Redis server of its own.
import { createClient } from 'redis';
import type { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { redisStrategy, scriptsOfStrategy } from '../../src/store/redis/strategies.js';
import type { Outcome, Strategy } from '../../src/types.js';
import { SeedLane } from './seedLane.js';

export type LaneName = 'seed' | Strategy;

export interface Lane {
  name: LaneName;
  recordMany(outcomes: Outcome[]): Promise<void>;
  /** Records outcomes sent before and returns how many the lane still knew (counted as duplicates). */
  duplicatesAmong(outcomes: Outcome[]): Promise<number>;
  /** Events counted in the 5-minute window ending now. */
  rate5m(channel: string): Promise<number>;
  close(): Promise<void>;
}

const windowMs = 5 * 60_000;

export async function openLane(name: LaneName, url: string, clock: ManualClock): Promise<Lane> {
  if (name === 'seed') {
    const seed = await SeedLane.open(url);
    return {
      name,
      recordMany: async (outcomes) => void (await seed.recordMany(outcomes)),
      duplicatesAmong: (outcomes) => seed.recordMany(outcomes),
      rate5m: async (channel) => (await seed.rate(channel, windowMs, clock.now())).total,
      close: () => seed.close(),
    };
  }
  await loadScripts(name, url);
  // A generous record timeout: on a loaded machine a slow call must be measured, not buffered.
  const pulse = await createPulse({ redis: url, strategy: name, clock, namespace: 'bench', recordTimeoutMs: 30_000 });
  return {
    name,
    async recordMany(outcomes) {
      const r = await pulse.recordMany(outcomes);
      if (r.accepted !== outcomes.length) throw new Error(`${name}: ${outcomes.length} outcomes, ${JSON.stringify(r)}`);
    },
    duplicatesAmong: async (outcomes) => (await pulse.recordMany(outcomes)).duplicates,
    rate5m: async (channel) => (await pulse.rate(channel, { window: '5m' })).total,
    close: () => pulse.close(),
  };
}

/**
 * Loads a strategy's scripts, as the seed's lane loads its own when it opens: a script's first call would
 * otherwise compile it (up to ≈ 60 KB of Lua, a record script) and store its body within what a benchmark measures.
 */
async function loadScripts(strategy: Strategy, url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for (const script of scriptsOfStrategy(redisStrategy(strategy))) await client.sendCommand(['SCRIPT', 'LOAD', script.source]);
  } finally {
    await client.close();
  }
}
