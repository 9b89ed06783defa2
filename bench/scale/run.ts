// `npm run bench:scale`: the shape that hurt the service before its bounds — thousands of channels.
//  A. Redis, 5,000 active channels, ingest at 5,000 outcomes/s: health snapshot age (bar ≤ 2 s), GET /v1/channels
//     p99 (bar ≤ 1 s), and Redis CPU of the snapshot alone, after ingest stops (bar ≤ 25 % of a core).
//  B. Embedded store, 50,000 attempted channel names (the limit refuses past 10,000): service RSS (bar < 600 MB)
//     and /healthz p99 (bar < 50 ms) throughout.
// The service runs in a child process on loopback; everything started is stopped. Never part of `npm test`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../../src/server/config.js';
import { startService } from '../../src/server/service.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis } from '../../test/support/redisServer.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable, percentile } from '../support/report.js';
import { writeLatestResult } from '../support/results.js';
import { startServiceChild, stopServiceChild } from '../support/serviceChild.js';

const seconds = Number(process.env.BENCH_SCALE_SECONDS ?? 15);
const activeChannels = 5_000;
const ingestPerSec = 5_000;
const attemptedNames = 50_000;

async function serveChild(): Promise<void> {
  const service = await startService({ ...defaultConfig, port: 0, redisUrl: process.env.BENCH_REDIS_URL || undefined, namespace: `scale${process.pid}`, logLevel: 'warn' });
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
}

const startChild = (redisUrl?: string) => startServiceChild(fileURLToPath(import.meta.url), { BENCH_REDIS_URL: redisUrl ?? '' });

const stopChild = stopServiceChild;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed(url: string): Promise<{ ms: number; body: string; status: number }> {
  const started = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  return { ms: performance.now() - started, body, status: res.status };
}

async function post(url: string, outcomes: object[]): Promise<number> {
  const res = await fetch(`${url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
  await res.arrayBuffer();
  return res.status;
}

let seq = 0;
function outcomesFor(names: (i: number) => string, count: number, modulo: number) {
  const now = Date.now();
  return Array.from({ length: count }, () => {
    const n = ++seq;
    return { channel: names(n % modulo), requestId: `s${n}`, status: n % 17 === 0 ? 'failure' : 'success', at: now - 500 };
  });
}

async function activeOnRedis() {
  const redis = await startRedis();
  const admin = await RedisConnection.connect({ url: redis.url });
  const { url, child } = await startChild(redis.url);
  const ages: number[] = [];
  const listMs: number[] = [];
  try {
    // Every channel once first, so the snapshot holds all 5,000 from the start.
    for (let i = 0; i < activeChannels; i += 1_000) await post(url, outcomesFor((n) => `ch${n}`, 1_000, activeChannels));
    const end = Date.now() + seconds * 1000;
    const ingest = (async () => {
      while (Date.now() < end) {
        const tickStart = Date.now();
        await post(url, outcomesFor((n) => `ch${n}`, ingestPerSec / 10, activeChannels));
        await sleep(Math.max(0, 100 - (Date.now() - tickStart)));
      }
    })();
    while (Date.now() < end) {
      const res = await timed(`${url}/v1/channels?sort=worst&limit=50`);
      listMs.push(res.ms);
      if (res.status === 200) ages.push(Date.now() - (JSON.parse(res.body) as { asOf: number }).asOf);
      await sleep(250);
    }
    await ingest;
    // The snapshot alone: ingest stopped, the 5,000 channels still within the horizon.
    const before = await sampleRedis(admin);
    const quietStart = performance.now();
    await sleep(5_000);
    const after = await sampleRedis(admin);
    const snapshotCpu = (after.cpuSec - before.cpuSec) / ((performance.now() - quietStart) / 1000);
    return { ageP99Ms: percentile(ages, 99), ageMaxMs: Math.max(...ages), listP99Ms: percentile(listMs, 99), snapshotCpu, samples: ages.length };
  } finally {
    await stopChild(child);
    await admin.close();
    await redis.stop();
  }
}

async function attemptedNamesEmbedded() {
  const { url, child } = await startChild();
  const healthMs: number[] = [];
  let maxRss = 0;
  const statuses = new Map<number, number>();
  try {
    let sent = 0;
    const send = (async () => {
      while (sent < attemptedNames) {
        const status = await post(url, outcomesFor((n) => `name${n}`, 1_000, Number.MAX_SAFE_INTEGER));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        sent += 1_000;
      }
    })();
    let done = false;
    void send.then(() => (done = true));
    while (!done) {
      healthMs.push((await timed(`${url}/healthz`)).ms);
      maxRss = Math.max(maxRss, rssMb(child.pid!));
      await sleep(50);
    }
    for (let i = 0; i < 40; i++) {
      healthMs.push((await timed(`${url}/healthz`)).ms);
      maxRss = Math.max(maxRss, rssMb(child.pid!));
      await sleep(50);
    }
    return { healthP99Ms: percentile(healthMs, 99), maxRssMb: maxRss, statuses: Object.fromEntries(statuses) };
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<void> {
  const a = await activeOnRedis();
  const b = await attemptedNamesEmbedded();
  const fmt = (n: number) => n.toFixed(1);
  const rows = [
    ['A: 5,000 channels on Redis, 5,000/s', 'snapshot age p99 (max)', `${fmt(a.ageP99Ms)} ms (${fmt(a.ageMaxMs)})`, '≤ 2,000 ms', a.ageMaxMs <= 2000 ? 'met' : 'missed'],
    ['A', 'GET /v1/channels?sort=worst&limit=50 p99', `${fmt(a.listP99Ms)} ms`, '≤ 1,000 ms', a.listP99Ms <= 1000 ? 'met' : 'missed'],
    ['A', 'Redis CPU of the snapshot alone', `${fmt(a.snapshotCpu * 100)} % of a core`, '≤ 25 %', a.snapshotCpu <= 0.25 ? 'met' : 'missed'],
    ['B: 50,000 names, embedded', 'service RSS max', `${fmt(b.maxRssMb)} MB`, '< 600 MB', b.maxRssMb < 600 ? 'met' : 'missed'],
    ['B', '/healthz p99', `${fmt(b.healthP99Ms)} ms`, '< 50 ms', b.healthP99Ms < 50 ? 'met' : 'missed'],
    ['B', 'POST statuses (batches of 1,000)', JSON.stringify(b.statuses), '429 past 10,000', ''],
  ];
  console.log(formatTable(['scenario', 'measure', 'value', 'bar', ''], rows));
  console.log(`written: ${writeLatestResult('scale', { at: new Date().toISOString(), seconds, a, b })}`);
}

if (process.argv.includes('--serve')) void serveChild();
else void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
