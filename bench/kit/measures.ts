// The measurements behind `npm run bench:kit`, one function per row group. Each takes a
// factory for "a process" (a kit on its own store/connection) so Redis and the embedded engine run the same code.
import type { Kit } from '../../src/kit/index.js';

export interface BenchRow {
  group: 'lock' | 'idempotency' | 'cache' | 'recency';
  measure: string;
  engine: 'redis' | 'memory';
  value: number;
  unit: string;
}

export type ProcessFactory = () => Promise<Kit>;

/** Redis server CPU (user + sys, µs) and script time (µs) so far: the recency designs differ in Redis CPU. */
export type RedisCpuProbe = () => Promise<{ cpuUs: number; scriptUs: number }>;

const elapsedUs = (startedNs: bigint) => Number(process.hrtime.bigint() - startedNs) / 1000;
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export async function measureLock(kit: Kit, engine: BenchRow['engine'], n: number): Promise<BenchRow[]> {
  let started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await (await kit.lock.acquire('bench:seq', { ttlMs: 10_000 }))!.release();
  const sequential = n / (elapsedUs(started) / 1e6);
  started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 50 }, async (_, worker) => {
      for (let i = 0; i < n / 50; i++) await (await kit.lock.acquire(`bench:par:${worker}`, { ttlMs: 10_000 }))!.release();
    }),
  );
  const parallel = n / (elapsedUs(started) / 1e6);
  return [
    { group: 'lock', measure: 'acquire + release, one caller', engine, value: Math.round(sequential), unit: 'pairs/s' },
    { group: 'lock', measure: 'acquire + release, 50 callers', engine, value: Math.round(parallel), unit: 'pairs/s' },
  ];
}

export async function measureIdempotency(kit: Kit, engine: BenchRow['engine'], n: number): Promise<BenchRow[]> {
  const handler = async () => ({ ok: true });
  let started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await handler();
  const bareUs = elapsedUs(started) / n;
  started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await kit.idempotency.run(`bench:cb:${i}`, { processingMs: 10_000 }, handler);
  const executedUs = elapsedUs(started) / n - bareUs;
  started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await kit.idempotency.run(`bench:cb:${i}`, { processingMs: 10_000 }, handler);
  const duplicateUs = elapsedUs(started) / n;
  return [
    { group: 'idempotency', measure: 'overhead per first call (mark + store result)', engine, value: round(executedUs), unit: 'µs/call' },
    { group: 'idempotency', measure: 'duplicate answered from the stored result', engine, value: round(duplicateUs), unit: 'µs/call' },
  ];
}

export async function measureCache(newProcess: ProcessFactory, engine: BenchRow['engine'], n: number): Promise<BenchRow[]> {
  const a = await newProcess();
  const b = await newProcess();
  const options = { ttlMs: 600_000 };
  const value = { merchant: 10086, feeRate: 0.006, channels: ['alipay', 'wechat', 'unionpay'] };
  for (let i = 0; i < n; i++) await a.cache.getOrLoad(`pay:merchant:${i}:config`, async () => value, options);
  let started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await a.cache.getOrLoad(`pay:merchant:${i}:config`, async () => value, options);
  const l1Us = elapsedUs(started) / n;
  started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await b.cache.getOrLoad(`pay:merchant:${i}:config`, async () => value, options); // b's L1 is empty
  const l2Us = elapsedUs(started) / n;
  let loads = 0;
  const slowLoader = async () => {
    loads++;
    await new Promise((r) => setTimeout(r, 20));
    return value;
  };
  started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 ? a : b).cache.getOrLoad('pay:channel:hot:config', slowLoader, options)));
  const stampedeMs = elapsedUs(started) / 1000;
  return [
    { group: 'cache', measure: 'L1 hit (in-process)', engine, value: round(l1Us, 2), unit: 'µs/get' },
    { group: 'cache', measure: 'L2 hit (store), L1 miss', engine, value: round(l2Us), unit: 'µs/get' },
    { group: 'cache', measure: 'loader calls for 1,000 concurrent misses on 2 processes', engine, value: loads, unit: 'calls' },
    { group: 'cache', measure: 'time to serve those 1,000 misses (20 ms loader)', engine, value: round(stampedeMs), unit: 'ms' },
  ];
}

/** 10,000 distinct ids plus as many revisits, then full 10,000-id queries, for each design. */
export async function measureRecency(kit: Kit, engine: BenchRow['engine'], cpu: RedisCpuProbe | undefined, ids: number, queries: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const design of ['buckets', 'zset'] as const) {
    const set = kit.recency(`bench:${design}`, { max: ids, within: '7d', tolerance: '1d', design });
    const touches = 2 * ids;
    let at = Date.now() - 3_600_000;
    let cpuBefore = await cpu?.();
    let started = process.hrtime.bigint();
    for (let i = 0; i < touches; i += 100) {
      const batch: Array<Promise<unknown>> = [];
      for (let j = i; j < i + 100; j++) batch.push(set.touch(`vehicle-${(j * 7919) % ids}`, (at += 1), { speed: j % 120 }));
      await Promise.all(batch);
    }
    const touchUs = elapsedUs(started) / touches;
    let cpuAfter = await cpu?.();
    if (cpuBefore && cpuAfter) {
      rows.push({ group: 'recency', measure: `${design}: Redis server CPU per touch (INFO used_cpu)`, engine, value: round((cpuAfter.cpuUs - cpuBefore.cpuUs) / touches, 2), unit: 'µs' });
      rows.push({ group: 'recency', measure: `${design}: script time per touch (INFO commandstats)`, engine, value: round((cpuAfter.scriptUs - cpuBefore.scriptUs) / touches, 2), unit: 'µs' });
    }
    rows.push({ group: 'recency', measure: `${design}: touch, end to end (100 in flight)`, engine, value: round(touchUs, 2), unit: 'µs' });
    cpuBefore = await cpu?.();
    started = process.hrtime.bigint();
    for (let q = 0; q < queries; q++) if ((await set.list()).length !== ids) throw new Error(`${design} list lost ids`);
    const queryMs = elapsedUs(started) / 1000 / queries;
    cpuAfter = await cpu?.();
    if (cpuBefore && cpuAfter) {
      rows.push({ group: 'recency', measure: `${design}: Redis server CPU per ${ids}-id query`, engine, value: round((cpuAfter.cpuUs - cpuBefore.cpuUs) / queries / 1000, 2), unit: 'ms' });
    }
    rows.push({ group: 'recency', measure: `${design}: ${ids}-id query, end to end`, engine, value: round(queryMs, 2), unit: 'ms' });
  }
  return rows;
}
