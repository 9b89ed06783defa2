// `npm run bench:http`: the service against the library, side by side in one run, on the embedded store
// and on Redis (a redis-server of our own on a free port).
//  1. ingest: library recordMany in batches of 500 vs HTTP POST /v1/outcomes in batches of 500
//     (bar: HTTP >= 100,000 outcomes/s, or >= half of the library);
//     and, on Redis, the stream consumer draining the same outcomes XADDed to the outcome stream (bar: stream
//     >= 0.8 x HTTP POST in the same run);
//  2. reads: GET /v1/channels/:channel/rate vs GET /healthz requests/s with autocannon (bar: rate >= 50 %).
// The service runs in a child process, as in production, so autocannon's own CPU is not charged to it.
// Prints a table, writes bench/http/results/latest.json. Never part of `npm test`.
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createPulse } from '../../src/index.js';
import { defaultConfig } from '../../src/server/config.js';
import { streamSettingsSchema } from '../../src/ingest/stream/streamSettings.js';
import { startService } from '../../src/server/service.js';
import { startRedis, type LocalRedis } from '../../test/support/redisServer.js';
import type { Outcome } from '../../src/types.js';
import { writeLatestResult } from '../support/results.js';
import { streamIngest } from './streamLane.js';
import { startServiceChild, stopServiceChild } from '../support/serviceChild.js';

const batchSize = 500;
const channels = ['alipay', 'wechatpay', 'stripe-card', 'adyen-card', 'paypal', 'bank-transfer'];
const ingestSeconds = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
const readSeconds = Number(process.env.BENCH_READ_SECONDS ?? 3);
const readPairs = Number(process.env.BENCH_READ_PAIRS ?? 8);
const ingestConnections = 4;
const readConnections = 32;

/** Child mode: run the service and print its URL. */
async function serveChild(): Promise<void> {
  const redisUrl = process.env.BENCH_REDIS_URL || undefined;
  const service = await startService({
    ...defaultConfig,
    port: 0,
    redisUrl,
    namespace: process.env.BENCH_NAMESPACE || `bench${process.pid}`,
    logLevel: 'warn',
    ...(process.env.BENCH_STREAM ? { stream: streamSettingsSchema.parse({}) } : {}),
    // A one-off bench database: the embedded in-memory history, copied at the usual pace.
  });
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  process.on('SIGTERM', () => {
    void service.close().then(() => process.exit(0));
  });
}

let batchSeq = 0;
/** One batch body of unique outcomes, 97 % successes, completed within the last 30 s. */
function batchBody(now: number): string {
  const batch = ++batchSeq;
  const parts: string[] = [];
  for (let i = 0; i < batchSize; i++) {
    const channel = channels[i % channels.length];
    const status = (i * 7919 + batch) % 100 < 3 ? 'failure' : 'success';
    parts.push(`{"channel":"${channel}","requestId":"b${batch}-${i}","status":"${status}","at":${now - ((i * 53) % 30_000)}}`);
  }
  return `{"outcomes":[${parts.join(',')}]}`;
}

function batchOutcomes(now: number): Outcome[] {
  return (JSON.parse(batchBody(now)) as { outcomes: Outcome[] }).outcomes;
}

interface IngestCount {
  /** Outcomes written to the store per second (buffered ones excluded: they were not written yet). */
  outcomesPerSec: number;
  /** Outcomes that the store did not take in time and went to the fail-open buffer. */
  buffered: number;
}

/** Library alone: the same batches, the same number in flight as HTTP connections. */
async function libraryIngest(redisUrl: string | undefined): Promise<IngestCount> {
  const pulse = await createPulse({ redis: redisUrl, namespace: `benchlib${process.pid}` });
  const batches = Array.from({ length: 200 }, () => batchOutcomes(Date.now()));
  let recorded = 0;
  let buffered = 0;
  const deadline = Date.now() + ingestSeconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: ingestConnections }, async () => {
      while (Date.now() < deadline) {
        // Fresh ids each time (a reused batch would measure the duplicate path): re-prefix a prepared batch.
        const template = batches[batchSeq++ % batches.length]!;
        const now = Date.now();
        const seq = batchSeq;
        const outcomes = template.map((o, i) => ({ ...o, requestId: `l${seq}-${i}`, at: now - ((i * 53) % 30_000) }));
        const r = await pulse.recordMany(outcomes);
        recorded += r.accepted + r.duplicates + r.corrected + r.stale;
        buffered += r.buffered;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pulse.close();
  return { outcomesPerSec: recorded / seconds, buffered };
}

const startChild = (redisUrl: string | undefined) => startServiceChild(fileURLToPath(import.meta.url), { BENCH_REDIS_URL: redisUrl ?? '' });

const stopChild = stopServiceChild;

function checked(name: string, result: autocannon.Result): autocannon.Result {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} errors — the numbers would lie`);
  }
  return result;
}

/** The service's own count of what it did with the outcomes, from /metrics. */
async function recordedByResult(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^paypulse_outcomes_recorded_total\{result="(\w+)"\} (\d+)/gm)) counts[m[1]!] = Number(m[2]);
  return counts;
}

async function httpIngest(url: string): Promise<IngestCount & { p99Ms: number }> {
  const result = checked(
    'ingest',
    await autocannon({
      url,
      connections: ingestConnections,
      duration: ingestSeconds,
      requests: [
        {
          method: 'POST',
          path: '/v1/outcomes',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => ({ ...req, body: batchBody(Date.now()) }),
        },
      ],
    }),
  );
  const counts = await recordedByResult(url);
  const buffered = counts.buffered ?? 0;
  // autocannon's own duration: 2xx answers × batch size, less what only reached the buffer.
  return { outcomesPerSec: (result['2xx'] * batchSize - buffered) / (result.duration || ingestSeconds), buffered, p99Ms: result.latency.p99 };
}

/** Each connection cycles through `paths` (the rate run asks for every channel in turn, as pollers do). */
async function requestsPerSec(url: string, paths: string[], seconds = readSeconds): Promise<{ rps: number; p99Ms: number }> {
  const result = checked(
    paths[0]!,
    await autocannon({ url, connections: readConnections, duration: seconds, requests: paths.map((path) => ({ method: 'GET', path })) }),
  );
  return { rps: result.requests.average, p99Ms: result.latency.p99 };
}

/**
 * Short runs of healthz and rate back to back, in alternating order, several times; the medians are reported.
 * On a shared 2-core machine the load from elsewhere swings healthz alone by 2× within a minute, so only
 * runs taken seconds apart compare fairly, and the median of their ratios is the number that holds still.
 */
async function compareReads(url: string) {
  const healthzPaths = ['/healthz'];
  const ratePaths = channels.map((c) => `/v1/channels/${c}/rate?window=5m`);
  // Warm-up: JIT, compiled serializers, Redis script cache.
  await requestsPerSec(url, healthzPaths, 2);
  await requestsPerSec(url, ratePaths, 2);
  const pairs: { healthz: { rps: number; p99Ms: number }; rate: { rps: number; p99Ms: number } }[] = [];
  for (let i = 0; i < readPairs; i++) {
    if (i % 2 === 0) {
      const healthz = await requestsPerSec(url, healthzPaths);
      pairs.push({ healthz, rate: await requestsPerSec(url, ratePaths) });
    } else {
      const rate = await requestsPerSec(url, ratePaths);
      pairs.push({ rate, healthz: await requestsPerSec(url, healthzPaths) });
    }
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return {
    healthz: { rps: median(pairs.map((p) => p.healthz.rps)), p99Ms: median(pairs.map((p) => p.healthz.p99Ms)) },
    rate: { rps: median(pairs.map((p) => p.rate.rps)), p99Ms: median(pairs.map((p) => p.rate.p99Ms)) },
    ratio: median(pairs.map((p) => p.rate.rps / p.healthz.rps)),
    pairs,
  };
}

interface EngineResult {
  engine: string;
  libraryOutcomesPerSec: number;
  libraryBuffered: number;
  httpOutcomesPerSec: number;
  httpBuffered: number;
  httpIngestP99Ms: number;
  ingestRatio: number;
  ingestBarMet: boolean;
  /** Redis only: outcomes/s the stream consumer recorded and acknowledged, and its ratio to HTTP POST. */
  streamOutcomesPerSec?: number;
  streamRatio?: number;
  streamBarMet?: boolean;
  rateRps: number;
  rateP99Ms: number;
  healthzRps: number;
  healthzP99Ms: number;
  /** Median over the pairs of rate ÷ healthz taken back to back. */
  readRatio: number;
  readBarMet: boolean;
  readPairs: { healthzRps: number; rateRps: number }[];
}

/**
 * One engine: library first, then the service. On Redis each phase gets a redis-server of its own, so the
 * service does not pay for the million outcomes the library phase left behind.
 */
async function runEngine(engine: 'memory' | 'redis'): Promise<EngineResult> {
  const redisFor = async (): Promise<LocalRedis | undefined> => (engine === 'redis' ? startRedis() : undefined);
  process.stderr.write(`[${engine}] library recordMany …\n`);
  const libraryRedis = await redisFor();
  let library: IngestCount;
  try {
    library = await libraryIngest(libraryRedis?.url);
  } finally {
    await libraryRedis?.stop();
  }
  const serviceRedis = await redisFor();
  const { url, child } = await startChild(serviceRedis?.url);
  try {
    process.stderr.write(`[${engine}] HTTP ingest …\n`);
    const ingest = await httpIngest(url);
    process.stderr.write(`[${engine}] GET rate and GET /healthz …\n`);
    const { healthz, rate, ratio, pairs } = await compareReads(url);
    const ingestRatio = ingest.outcomesPerSec / library.outcomesPerSec;
    const stream = engine === 'redis' ? await streamLane(ingest.outcomesPerSec) : undefined;
    return {
      engine,
      libraryOutcomesPerSec: library.outcomesPerSec,
      libraryBuffered: library.buffered,
      httpOutcomesPerSec: ingest.outcomesPerSec,
      httpBuffered: ingest.buffered,
      httpIngestP99Ms: ingest.p99Ms,
      ingestRatio,
      ingestBarMet: ingest.outcomesPerSec >= 100_000 || ingestRatio >= 0.5,
      ...stream,
      rateRps: rate.rps,
      rateP99Ms: rate.p99Ms,
      healthzRps: healthz.rps,
      healthzP99Ms: healthz.p99Ms,
      readRatio: ratio,
      readBarMet: ratio >= 0.5,
      readPairs: pairs.map((p) => ({ healthzRps: Math.round(p.healthz.rps), rateRps: Math.round(p.rate.rps) })),
    };
  } finally {
    await stopChild(child);
    await serviceRedis?.stop();
  }
}

/** The stream lane on a Redis and a service of its own, like each phase here. */
async function streamLane(httpOutcomesPerSec: number): Promise<Pick<EngineResult, 'streamOutcomesPerSec' | 'streamRatio' | 'streamBarMet'>> {
  process.stderr.write('[redis] stream ingest …\n');
  const redis = await startRedis();
  try {
    const namespace = `benchstream${process.pid}`;
    const { outcomesPerSec } = await streamIngest({
      redisUrl: redis.url,
      namespace,
      entries: Number(process.env.BENCH_STREAM_ENTRIES ?? 300_000),
      channels,
      startService: async () => {
        const { child } = await startServiceChild(fileURLToPath(import.meta.url), { BENCH_REDIS_URL: redis.url, BENCH_STREAM: '1', BENCH_NAMESPACE: namespace });
        return () => stopChild(child);
      },
    });
    const streamRatio = outcomesPerSec / httpOutcomesPerSec;
    return { streamOutcomesPerSec: outcomesPerSec, streamRatio, streamBarMet: streamRatio >= 0.8 };
  } finally {
    await redis.stop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number) => `${(n * 100).toFixed(0)} %`;
const buffered = (n: number) => (n > 0 ? ` +${fmt(n)} buffered` : '');

function table(results: EngineResult[]): string {
  const streamRows = results.filter((r) => r.streamOutcomesPerSec !== undefined);
  const streamTable = [
    '',
    '| engine | HTTP POST /v1/outcomes ×500 (outcomes/s) | stream, batches of 500 (outcomes/s) | stream ÷ HTTP | stream bar |',
    '| --- | ---: | ---: | ---: | --- |',
    ...streamRows.map((r) => `| ${r.engine} | ${fmt(r.httpOutcomesPerSec)} | ${fmt(r.streamOutcomesPerSec!)} | ${pct(r.streamRatio!)} | ${r.streamBarMet ? 'met' : 'MISSED'} |`),
  ];
  const rows = [
    '| engine | library recordMany (outcomes/s) | HTTP POST /v1/outcomes ×500 (outcomes/s) | HTTP ÷ library | ingest bar | GET rate (req/s) | GET /healthz (req/s) | rate ÷ healthz | read bar |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${fmt(r.libraryOutcomesPerSec)}${buffered(r.libraryBuffered)} | ${fmt(r.httpOutcomesPerSec)} (p99 ${r.httpIngestP99Ms} ms)${buffered(r.httpBuffered)} | ${pct(r.ingestRatio)} | ${r.ingestBarMet ? 'met' : 'MISSED'} | ${fmt(r.rateRps)} (p99 ${r.rateP99Ms} ms) | ${fmt(r.healthzRps)} (p99 ${r.healthzP99Ms} ms) | ${pct(r.readRatio)} | ${r.readBarMet ? 'met' : 'MISSED'} |`,
    ),
  ];
  return [...rows, ...(streamRows.length > 0 ? streamTable : [])].join('\n');
}

async function main(): Promise<void> {
  const results: EngineResult[] = [];
  // BENCH_ENGINES=redis runs one engine only (for iterating; the committed results have both).
  const engines = (process.env.BENCH_ENGINES ?? 'memory,redis').split(',') as ('memory' | 'redis')[];
  for (const engine of engines) results.push(await runEngine(engine));

  const date = new Date().toISOString();
  const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version };
  const settings = { batchSize, ingestSeconds, readSeconds, readPairs, ingestConnections, readConnections };
  const text = table(results);
  process.stdout.write(`\n${text}\n\n`);

  const file = writeLatestResult('http', { date, machine, settings, results });
  process.stdout.write(`wrote ${file}\n`);
}

if (process.argv.includes('--serve')) await serveChild();
else await main();
