// `node --expose-gc --import tsx bench/engine/nodeCost.ts [--per-sec 2000] [--batches 300]`: the library's own CPU per event on
// the record path (validation, name limits, the recorder, series, packing, reply parsing) against a
// connection that answers at once, so Redis and the network cost nothing; the sweep's traffic and batch.
import { parseArgs } from 'node:util';
import { ManualClock } from '../../src/clock.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { resolveSettings } from '../../src/stats/settings.js';
import type { RedisConnection, RedisReply } from '../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import type { LuaScript } from '../../src/store/redis/scripts.js';
import { batchesOf, trafficAt, volumePoints } from './traffic.js';

const { values } = parseArgs({ options: { 'per-sec': { type: 'string', default: '2000' }, batches: { type: 'string', default: '300' } } });
const point = volumePoints.find((p) => p.perChannelPerSec === Number(values['per-sec']))!;

/** Answers every record call with "accepted" for each outcome, read back from the packed batch's count. */
function instantConnection(): RedisConnection {
  const answer = (script: LuaScript, keys: string[], args: unknown[]): RedisReply => {
    const many = script.name.endsWith('/recordMany-1');
    if (!many && !script.name.endsWith('/record-1')) return 0;
    return codesFor(args[args.length - 1] as Buffer, keys.length, many);
  };
  return {
    isCluster: false,
    kind: 'standalone',
    runScript: async (script: LuaScript, keys: string[], args: unknown[]) => answer(script, keys, args),
    command: async () => 0,
  } as unknown as RedisConnection;
}

let lastCounts: number[] = [];
function codesFor(_packed: Buffer, channels: number, many: boolean): RedisReply {
  const codes = lastCounts.map((n) => '0'.repeat(n));
  return many ? codes : codes[0]!;
}

const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
const settings = resolveSettings({ strategy: 'buckets', namespace: 'bench', recordTimeoutMs: 30_000 });
const store = new RedisStatsStore(instantConnection(), settings);
const original = store.recordBatches.bind(store);
store.recordBatches = (batches, now, timeoutMs) => {
  lastCounts = batches.map((b) => b.outcomes.length);
  return original(batches, now, timeoutMs);
};
const engine = new SuccessRateEngine(store, settings, clock);
const traffic = trafficAt(point, Number(values.batches) * 2000, clock.now());
const all = [...batchesOf(traffic, 500)];
const run = async (from: number, to: number) => {
  for (let b = from; b < to; b += 4) {
    const group = all.slice(b, b + 4);
    clock.set(Math.max(clock.now(), group.at(-1)!.at(-1)!.at));
    await Promise.all(group.map((batch) => engine.recordMany(batch)));
  }
};
const warm = Math.floor(all.length / 3) & ~3;
await run(0, warm);
// The traffic is made beforehand; with --expose-gc it is moved to the old generation first, so that the
// timed part's collections are the library's own.
(globalThis as { gc?: () => void }).gc?.();
const cpu = process.cpuUsage();
const t0 = performance.now();
await run(warm, all.length);
const used = process.cpuUsage(cpu);
const events = (all.length - warm) * 500;
console.log(`${point.perChannelPerSec}/s × ${point.channels}: ${((used.user + used.system) / events).toFixed(3)} µs CPU/event, ${(((performance.now() - t0) * 1000) / events).toFixed(3)} µs wall/event`);
