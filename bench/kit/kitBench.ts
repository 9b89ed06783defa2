// `npm run bench:kit`: lock pairs per second, idempotency overhead, cache L1/L2 hit latency and a 1,000-miss
// stampede, and the recency designs' Redis CPU per touch and per query at 10,000 ids (the claim that a sorted
// set costs more Redis CPU than time buckets, reproduced or refuted; docs/background.md). Prints a table and
// writes bench/kit/results/latest.json.
import { randomBytes } from 'node:crypto';
import { startRedis } from '../../test/support/redisServer.js';
import { MemoryKitStore } from '../../src/store/memory/kit/index.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisKitStore } from '../../src/store/redis/kit/index.js';
import { measureCache, measureIdempotency, measureLock, measureRecency, type BenchRow, type RedisCpuProbe } from './measures.js';
import { createKit, type Kit } from '../../src/kit/index.js';
import { redisVersion as readRedisVersion, sampleRedis } from '../support/redisInfo.js';
import { writeLatestResult } from '../support/results.js';

export interface KitBenchOptions {
  /** A Redis to measure against; default: a throw-away redis-server started for the run. Never flushed. */
  redisUrl?: string;
  /** Smaller counts, for a smoke run. */
  quick?: boolean;
  log?: (line: string) => void;
}

export interface KitBenchResult {
  rows: BenchRow[];
  table: string;
  file: string;
}

function cpuProbe(connection: RedisConnection): RedisCpuProbe {
  return async () => {
    const sample = await sampleRedis(connection);
    return { cpuUs: sample.cpuSec * 1e6, scriptUs: sample.evalUsec };
  };
}

export function formatKitTable(rows: BenchRow[]): string {
  const byMeasure = new Map<string, { group: string; measure: string; unit: string; redis?: number; memory?: number }>();
  for (const row of rows) {
    const key = `${row.group}|${row.measure}`;
    const entry = byMeasure.get(key) ?? { group: row.group, measure: row.measure, unit: row.unit };
    entry[row.engine] = row.value;
    byMeasure.set(key, entry);
  }
  const cell = (v?: number) => (v === undefined ? '—' : v.toLocaleString('en-US'));
  const lines = ['| part | measure | Redis | embedded | unit |', '| --- | --- | ---: | ---: | --- |'];
  for (const e of byMeasure.values()) lines.push(`| ${e.group} | ${e.measure} | ${cell(e.redis)} | ${cell(e.memory)} | ${e.unit} |`);
  return lines.join('\n');
}

export async function runKitBench(options: KitBenchOptions = {}): Promise<KitBenchResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const n = options.quick ? 200 : 2000;
  const ids = options.quick ? 1000 : 10_000;
  const queries = options.quick ? 5 : 50;
  const local = options.redisUrl ? undefined : await startRedis();
  const url = options.redisUrl ?? local!.url;
  const namespace = `bench${randomBytes(4).toString('hex')}`;
  const closers: Array<() => Promise<unknown>> = [];
  const redisProcess = async (): Promise<Kit> => {
    const connection = await RedisConnection.connect({ url, commandTimeoutMs: 5000 });
    const store = new RedisKitStore(connection);
    const kit = createKit({ store, namespace });
    closers.push(async () => {
      await kit.close();
      await store.close();
      await connection.close();
    });
    return kit;
  };
  const memoryStore = new MemoryKitStore();
  const memoryProcess = async (): Promise<Kit> => {
    const kit = createKit({ store: memoryStore, namespace });
    closers.push(() => kit.close());
    return kit;
  };
  const rows: BenchRow[] = [];
  let redisVersion = 'unknown';
  try {
    const probeConnection = await RedisConnection.connect({ url, commandTimeoutMs: 5000 });
    closers.push(() => probeConnection.close());
    redisVersion = await readRedisVersion(probeConnection);
    for (const [engine, newProcess] of [['redis', redisProcess], ['memory', memoryProcess]] as const) {
      log(`kit bench: ${engine}…`);
      const kit = await newProcess();
      rows.push(...(await measureLock(kit, engine, n)));
      rows.push(...(await measureIdempotency(kit, engine, n)));
      rows.push(...(await measureCache(newProcess, engine, n)));
      rows.push(...(await measureRecency(kit, engine, engine === 'redis' ? cpuProbe(probeConnection) : undefined, ids, queries)));
    }
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    // LocalRedis unrefs its child, so nothing else keeps the loop alive while we wait for the exit event.
    const keepAlive = setInterval(() => undefined, 1000);
    await local?.stop().finally(() => clearInterval(keepAlive));
  }
  const table = formatKitTable(rows);
  const environment = { node: process.version, redisVersion, redis: local ? 'local redis-server started for the run' : url, quick: Boolean(options.quick) };
  const file = writeLatestResult('kit', { date: new Date().toISOString(), environment, rows });
  log(table);
  log(`written ${file}`);
  return { rows, table, file };
}
