// Each strategy of the Redis engine as a small descriptor: the scripts of its operations and what it can do.
// Nothing else names a strategy: the store asks the descriptor (statsStore.ts, recordCalls.ts). A Redis call
// runs the script named after its operation, `lua/<strategy>/<operation>-<numberOfKeys>.lua`.
import type { Strategy } from '../../types.js';
import { loadScript, type LuaScript } from './scripts.js';

/** The operations every strategy has, each one script of one key (its channel's prefix, or its first channel's). */
const operations = ['record', 'sweep', 'windows', 'windowsMany', 'lastN', 'failures', 'minutes'] as const;
type Operation = (typeof operations)[number];

export interface RedisStrategy {
  name: Strategy;
  scripts: Record<Operation, LuaScript>;
  /**
   * Several channels' batches in one call (buckets/recordMany-1.lua): at a few events a second per channel,
   * a call per channel costs Redis more than the channel's outcomes.
   */
  recordMany?: LuaScript;
  /** The health snapshot's carried read (buckets/windowsDelta-1.lua, windowsCarry.ts). */
  windowsDelta?: LuaScript;
  /** The client counts each terminal outcome as if new, and the script takes back the duplicates' counts. */
  clientCounts: boolean;
  /** Outcomes carry their request's ledger shard and its key (layouts.ts, ledgerShard). */
  ledger: boolean;
}

function scriptsOf(name: Strategy): Record<Operation, LuaScript> {
  return Object.fromEntries(operations.map((op) => [op, loadScript(`${name}/${op}-1.lua`)])) as Record<Operation, LuaScript>;
}

const descriptors: Record<Strategy, () => RedisStrategy> = {
  // The default: a ledger of small hashes for dedup, per-second counters for windows (docs/storage.md).
  buckets: () => ({
    name: 'buckets',
    scripts: scriptsOf('buckets'),
    recordMany: loadScript('buckets/recordMany-1.lua'),
    windowsDelta: loadScript('buckets/windowsDelta-1.lua'),
    clientCounts: true,
    ledger: true,
  }),
  // The classic sorted sets, which are also the dedup state: the benchmarks' baseline (docs/storage.md).
  zset: () => ({ name: 'zset', scripts: scriptsOf('zset'), clientCounts: false, ledger: false }),
};

const loaded = new Map<Strategy, RedisStrategy>();

/** The descriptor of `name`, its scripts loaded once. */
export function redisStrategy(name: Strategy): RedisStrategy {
  let strategy = loaded.get(name);
  if (!strategy) {
    strategy = descriptors[name]();
    loaded.set(name, strategy);
  }
  return strategy;
}

/** Every script of a strategy, to load ahead of its first call. */
export function scriptsOfStrategy(strategy: RedisStrategy): LuaScript[] {
  return [...Object.values(strategy.scripts), ...(strategy.recordMany ? [strategy.recordMany] : []), ...(strategy.windowsDelta ? [strategy.windowsDelta] : [])];
}
