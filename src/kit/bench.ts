// `paypulse bench kit` (issue 4 item 5): lock pairs per second, idempotency overhead, cache L1/L2 hit
// latency and a 1,000-miss stampede, and the recency designs' Redis CPU per touch and per query at 10,000
// ids (seed 002's claim, reproduced or refuted). Prints a table and writes JSON to bench/results/.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRedis } from '../sim/redisServer.js';
import { MemoryKitStore } from '../store/memory/kit/index.js';
import { RedisConnection } from '../store/redis/connection.js';
import { RedisKitStore } from '../store/redis/kit/index.js';
import { measureCache, measureIdempotency, measureLock, measureRecency, type BenchRow, type RedisCpuProbe } from './benchMeasures.js';
import { createKit, type Kit } from './index.js';

export interface KitBenchOptions {
  /** A Redis to measure against; default: a throw-away redis-server started for the run. Never flushed. */
  redisUrl?: string;
  /** Where the JSON goes. Default `bench/results` under the working directory. */
  outDir?: string;
  /** Smaller counts, for a smoke run. */
  quick?: boolean;
  log?: (line: string) => void;
}

export interface KitBenchResult {
  rows: BenchRow[];
  table: string;
  file: string;
}

function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

function cpuProbe(connection: RedisConnection): RedisCpuProbe {
  return async () => {
    const info = parseInfo(String(await connection.command('', ['INFO', 'everything'])));
    const cpuUs = (Number(info.get('used_cpu_user')) + Number(info.get('used_cpu_sys'))) * 1e6;
    const usecOf = (name: string) => Number(/usec=(\d+)/.exec(info.get(name) ?? '')?.[1] ?? 0);
    return { cpuUs, scriptUs: usecOf('cmdstat_evalsha') + usecOf('cmdstat_eval') };
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
    redisVersion = parseInfo(String(await probeConnection.command('', ['INFO', 'server']))).get('redis_version') ?? redisVersion;
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
  const outDir = options.outDir ?? join('bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const date = new Date().toISOString().slice(0, 10);
  const file = join(outDir, `kit-${date}.json`);
  const environment = { node: process.version, redisVersion, redis: local ? 'local redis-server started for the run' : url, quick: Boolean(options.quick) };
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), environment, rows }, null, 2)}\n`);
  log(table);
  log(`written ${file}`);
  return { rows, table, file };
}
