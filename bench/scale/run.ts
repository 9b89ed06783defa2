// `npm run bench:scale`: the shape that hurt the service before its bounds — thousands of channels.
//  A. Redis, 5,000 active channels, ingest at 5,000 outcomes/s: health snapshot age (bar ≤ 2 s), GET /v1/channels
//     p99 (bar ≤ 1 s), and Redis CPU of the snapshot alone, after ingest stops (bar ≤ 25 % of a core), the history
//     job held off; then the same service with the history job, once its first copy is done.
//  B. Embedded store, 50,000 attempted channel names (the limit refuses past 10,000): service RSS (bar < 600 MB)
//     and /healthz p99 (bar < 50 ms) throughout.
//  C. Embedded store, 1,000 channels ingesting: 2,000 stream clients that never read, then 20,000 slow-body
//     sockets (sockets.ts): /healthz p99 (bar < 100 ms) and service RSS (bar < 600 MB) in each phase.
// BENCH_SCALE_ONLY=AC runs some of them; BENCH_SCALE_PROFILE_DIR profiles the service (profile.ts).
// The service runs in a child process on loopback, built (serve.mjs); everything started is stopped. Never
// part of `npm test`.
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../../src/server/config.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis } from '../../test/support/redisServer.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable, percentile } from '../support/report.js';
import { writeLatestResult } from '../support/results.js';
import { startServiceChild, stopServiceChild } from '../support/serviceChild.js';
import { ingest, outcomesFor, post, rssMb, sleep, timed, watchHealth } from './clients.js';
import { openSilentStreams, startSlowBodies } from './sockets.js';

const seconds = Number(process.env.BENCH_SCALE_SECONDS ?? 15);
const activeChannels = 5_000;
const ingestPerSec = 5_000;
const attemptedNames = 50_000;

const profileDir = process.env.BENCH_SCALE_PROFILE_DIR;
// Node writes both profiles when the child exits; the heap one is sampled and holds what is still allocated.
const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--heap-prof', `--heap-prof-dir=${profileDir}`] : [];
const serveScript = fileURLToPath(new URL('./serve.mjs', import.meta.url));

const startChild = (redisUrl?: string, env: Record<string, string> = {}) => startServiceChild(serveScript, { BENCH_REDIS_URL: redisUrl ?? '', ...env }, profileArgs);

/** Redis's CPU, in cores, over `ms`. */
async function redisCpuOver(admin: RedisConnection, ms: number): Promise<number> {
  const before = await sampleRedis(admin);
  const started = performance.now();
  await sleep(ms);
  const after = await sampleRedis(admin);
  return (after.cpuSec - before.cpuSec) / ((performance.now() - started) / 1000);
}

const stopChild = stopServiceChild;

async function activeOnRedis() {
  const redis = await startRedis();
  const admin = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 10_000 });
  // The history job copies every channel's minutes every 10 s; held off here, measured on its own below.
  const { url, child } = await startChild(redis.url, { BENCH_NAMESPACE: 'scaleA', BENCH_HISTORY_INTERVAL_MS: String(3600_000) });
  const ages: number[] = [];
  const listMs: number[] = [];
  const listStatuses = new Map<number, number>();
  try {
    // Every channel once first, so the snapshot holds all 5,000 from the start.
    for (let i = 0; i < activeChannels; i += 1_000) await post(url, outcomesFor((n) => `ch${n}`, 1_000, activeChannels));
    const end = Date.now() + seconds * 1000;
    const ingesting = ingest(url, activeChannels, ingestPerSec, () => Date.now() >= end);
    while (Date.now() < end) {
      const res = await timed(`${url}/v1/channels?sort=worst&limit=50`);
      listMs.push(res.ms);
      listStatuses.set(res.status, (listStatuses.get(res.status) ?? 0) + 1);
      if (res.status === 200) ages.push(Date.now() - (JSON.parse(res.body) as { asOf: number }).asOf);
      await sleep(250);
    }
    await ingesting;
    // The snapshot alone: ingest stopped, the 5,000 channels still within the horizon.
    const snapshotCpu = await redisCpuOver(admin, 5_000);
    await stopChild(child);
    const withHistoryCpu = await withHistoryJob(redis.url, admin);
    return { ageP99Ms: percentile(ages, 99), ageMaxMs: Math.max(...ages), listP99Ms: percentile(listMs, 99), snapshotCpu, withHistoryCpu, samples: ages.length, listStatuses: Object.fromEntries(listStatuses) };
  } finally {
    await stopChild(child);
    await admin.close();
    await redis.stop();
  }
}

/** Redis CPU of a service with the history job (default interval) over the same channels, after its first copy. */
async function withHistoryJob(redisUrl: string, admin: RedisConnection): Promise<number> {
  const { url, child } = await startChild(redisUrl, { BENCH_NAMESPACE: 'scaleA' });
  try {
    const runs = async () => Number(/^paypulse_history_snapshot_runs_total (\d+)/m.exec((await timed(`${url}/metrics`)).body)?.[1] ?? 0);
    for (const started = Date.now(); (await runs()) < 1 && Date.now() - started < 90_000; ) await sleep(500);
    return await redisCpuOver(admin, 20_000); // two copies and twenty snapshots
  } finally {
    await stopChild(child);
  }
}

async function attemptedNamesEmbedded() {
  const { url, child } = await startChild();
  const health = watchHealth(url, child.pid!);
  const statuses = new Map<number, number>();
  try {
    for (let sent = 0; sent < attemptedNames; sent += 1_000) {
      const status = await post(url, outcomesFor((n) => `name${n}`, 1_000, Number.MAX_SAFE_INTEGER));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    await sleep(2_000); // two more snapshots over the 10,000 channels admitted
    const h = await health.stop();
    return { healthP99Ms: percentile(h.ms, 99), healthFailures: h.failures, maxRssMb: h.maxRssMb, statuses: Object.fromEntries(statuses) };
  } finally {
    await health.stop();
    await stopChild(child);
  }
}

/** C: 1,000 channels ingesting, 2,000 stream clients that never read, then 20,000 slow-body sockets. */
async function hostileSockets() {
  const { url, child } = await startChild();
  const target = { host: new URL(url).hostname, port: Number(new URL(url).port) };
  let stopped = false;
  const ingesting = ingest(url, 1_000, 1_000, () => stopped);
  let health = watchHealth(url, child.pid!);
  const streams = await openSilentStreams(target, 2_000, defaultConfig.maxStreamsPerIp);
  const slow: ReturnType<typeof startSlowBodies>[] = [];
  try {
    await sleep(15_000); // past the stall grace: the silent streams are dropped in it
    const streamPhase = await health.stop();
    health = watchHealth(url, child.pid!);
    // Two children of 10,000 sockets each: one process's descriptor limit is 20,000 (ulimit -n).
    slow.push(startSlowBodies(target, 10_000), startSlowBodies(target, 10_000));
    let maxSlowOpen = 0;
    for (const started = Date.now(); Date.now() - started < 30_000; await sleep(500)) {
      maxSlowOpen = Math.max(maxSlowOpen, slow.reduce((n, s) => n + s.open(), 0));
    }
    const slowPhase = await health.stop();
    const phase = (h: typeof slowPhase) => ({ p99Ms: percentile(h.ms, 99), maxMs: Math.max(...h.ms), failures: h.failures, maxRssMb: h.maxRssMb });
    return { streamsOpened: streams.length, maxSlowOpen, streams: phase(streamPhase), slowBodies: phase(slowPhase) };
  } finally {
    stopped = true;
    await health.stop();
    for (const s of slow) await stopChild(s.child);
    for (const socket of streams) socket.destroy();
    await ingesting;
    await stopChild(child);
  }
}

const listMs = (a: { listStatuses: Record<string, number> }) => Object.values(a.listStatuses).reduce((n, c) => n + c, 0);

async function main(): Promise<void> {
  const only = process.env.BENCH_SCALE_ONLY ?? 'ABC';
  const report = <T>(name: string, result: T) => (console.log(name, JSON.stringify(result)), result);
  const a = only.includes('A') ? report('A', await activeOnRedis()) : undefined;
  const b = only.includes('B') ? report('B', await attemptedNamesEmbedded()) : undefined;
  const c = only.includes('C') ? report('C', await hostileSockets()) : undefined;
  const fmt = (n: number) => n.toFixed(1);
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  const rows: string[][] = [];
  if (a) {
    rows.push(
      ['A: 5,000 channels on Redis, 5,000/s', 'snapshot age p99 (max)', `${fmt(a.ageP99Ms)} ms (${fmt(a.ageMaxMs)})`, '≤ 2,000 ms', verdict(a.samples > 0 && a.ageMaxMs <= 2000)],
      ['A', 'GET /v1/channels?sort=worst&limit=50 p99', `${fmt(a.listP99Ms)} ms`, '≤ 1,000 ms', verdict(a.listP99Ms <= 1000)],
      ['A', 'GET /v1/channels statuses', JSON.stringify(a.listStatuses), 'all 200', verdict(a.samples === listMs(a))],
      ['A', 'Redis CPU of the snapshot alone', `${fmt(a.snapshotCpu * 100)} % of a core`, '≤ 25 %', verdict(a.snapshotCpu <= 0.25)],
      ['A', 'Redis CPU, snapshot and history job (every 10 s)', `${fmt(a.withHistoryCpu * 100)} % of a core`, '', ''],
    );
  }
  if (b) {
    rows.push(
      ['B: 50,000 names, embedded', 'service RSS max', `${fmt(b.maxRssMb)} MB`, '< 600 MB', verdict(b.maxRssMb < 600)],
      ['B', '/healthz p99 (failed)', `${fmt(b.healthP99Ms)} ms (${b.healthFailures})`, '< 50 ms', verdict(b.healthP99Ms < 50 && b.healthFailures === 0)],
      ['B', 'POST statuses (batches of 1,000)', JSON.stringify(b.statuses), '429 past 10,000', ''],
    );
  }
  if (c) {
    const rss = Math.max(c.streams.maxRssMb, c.slowBodies.maxRssMb);
    const phase = (p: typeof c.streams) => `${fmt(p.p99Ms)} ms, max ${fmt(p.maxMs)} (${p.failures})`;
    rows.push(
      ['C: 1,000 channels, 2,000 silent streams', '/healthz p99, max (failed)', phase(c.streams), '< 100 ms', verdict(c.streams.p99Ms < 100 && c.streams.failures === 0)],
      ['C, then 20,000 slow bodies', '/healthz p99, max (failed)', phase(c.slowBodies), '< 100 ms', verdict(c.slowBodies.p99Ms < 100 && c.slowBodies.failures === 0)],
      ['C', 'service RSS max (streams; slow bodies)', `${fmt(c.streams.maxRssMb)} MB; ${fmt(c.slowBodies.maxRssMb)} MB`, '< 600 MB', verdict(rss < 600)],
      ['C', 'streams opened; slow bodies open at most', `${c.streamsOpened}; ${c.maxSlowOpen}`, '', ''],
    );
  }
  console.log(formatTable(['scenario', 'measure', 'value', 'bar', ''], rows));
  console.log(`written: ${writeLatestResult('scale', { at: new Date().toISOString(), seconds, a, b, c })}`);
}

void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
