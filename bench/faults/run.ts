// `npm run bench:faults`: steady HTTP ingest (2,000 outcomes/s, batches of 100 every 50 ms) against a service in
// its own process, with a data folder (durable spill) and a PostgreSQL server, while a fault happens:
//   (a) Redis SIGSTOPped for 10 s, then continued;
//   (b) Redis killed and restarted empty;
//   (c) Redis SIGSTOPped, the service SIGKILLed with outcomes in its journal, a new service started on the same
//       data folder, then Redis continued;
//   (d) a Sentinel failover (SENTINEL FAILOVER: the replica promoted, the old primary demoted).
// Then the kit's rows (kit.ts; alone with `-- --kit`).
// For each: outcomes acknowledged (answered 200), outcomes the store counts afterwards, 5xx answers, failed
// requests (no answer), the longest request, and seconds from the fault's end until a batch is recorded
// (not buffered) again. Never part of `npm test`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { formatTable } from '../support/report.js';
import { writeLatestResult } from '../support/results.js';
import { startServiceChild, stopServiceChild } from '../support/serviceChild.js';
import { defaultConfig, startService } from '../../src/server/index.js';
import { createTestDatabase } from '../../test/history/databases.js';
import { startRedis, type LocalRedis } from '../../test/support/redisServer.js';
import { startSentinelGroup, type SentinelGroup } from '../../test/support/sentinelGroup.js';
import { runKitScenarios } from './kit.js';

const script = new URL(import.meta.url).pathname;
const batchSize = 100;
const batchEveryMs = 50;
const requestTimeoutMs = 5_000;
const beforeMs = 5_000;
const faultMs = 10_000;
const afterMs = 15_000;
const channels = ['alipay', 'card-visa', 'upi', 'bank-x'];

async function serveChild(): Promise<void> {
  const service = await startService({
    ...defaultConfig,
    port: Number(process.env.BENCH_PORT ?? 0),
    redisUrl: process.env.BENCH_REDIS_URL,
    databaseUrl: process.env.BENCH_DATABASE_URL,
    dataDir: process.env.BENCH_DATA_DIR,
    namespace: 'benchfaults',
    logLevel: 'warn',
  });
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
}

interface Tally {
  acknowledged: number;
  /** Acknowledged as accepted (in Redis's memory) before a fault that wipes it. */
  acceptedBeforeWipe: number;
  http5xx: number;
  noAnswer: number;
  longestMs: number;
}

/** Posts a batch every 50 ms to whatever `target()` names now (the service may be replaced mid-run). */
function startIngest(target: () => string, tally: Tally, wiped: () => boolean): { stop(): Promise<void> } {
  let seq = 0;
  const inFlight = new Set<Promise<void>>();
  const send = async () => {
    const now = Date.now();
    const outcomes = Array.from({ length: batchSize }, (_, i) => ({
      channel: channels[i % channels.length],
      requestId: `f${process.pid}-${++seq}`,
      status: i % 33 === 0 ? 'failure' : 'success',
      at: now,
    }));
    const started = performance.now();
    // Outcomes accepted by a request sent before Redis lost its memory landed in that memory.
    const beforeWipe = !wiped();
    try {
      const res = await fetch(`${target()}/v1/outcomes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcomes }),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      const body = (await res.json()) as { accepted?: number; buffered?: number };
      if (res.status >= 500) tally.http5xx++;
      if (res.status === 200) {
        tally.acknowledged += outcomes.length;
        if (beforeWipe) tally.acceptedBeforeWipe += body.accepted ?? 0;
      }
    } catch {
      tally.noAnswer++;
    } finally {
      tally.longestMs = Math.max(tally.longestMs, performance.now() - started);
    }
  };
  const timer = setInterval(() => {
    const p = send().finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, batchEveryMs);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every channel's count over the last hour, and whether any came from the store (not a stale last value). */
async function storeTotal(url: string): Promise<{ total: number; live: boolean }> {
  let total = 0;
  let live = true;
  for (const channel of channels) {
    const rate = (await (await fetch(`${url}/v1/channels/${channel}/rate?window=1h`, { signal: AbortSignal.timeout(requestTimeoutMs) })).json()) as { total?: number; stale?: boolean };
    total += rate.total ?? 0;
    live &&= rate.total !== undefined && !rate.stale;
  }
  return { total, live };
}

/**
 * Seconds from `since` until the store's counts grow again: two live reads in a row, the second higher. The
 * answers may still say `buffered` then (degradation level 1 keeps the record path on the journal until the
 * store has been healthy for 60 s); what counts is that outcomes reach the store.
 */
async function secondsUntilRecording(url: () => string, since: number, untilMs: number): Promise<number | null> {
  let previous: number | null = null;
  while (Date.now() < untilMs) {
    const read = await storeTotal(url()).catch(() => ({ total: 0, live: false }));
    if (read.live && previous !== null && read.total > previous) return Number(((Date.now() - since) / 1000).toFixed(1));
    previous = read.live ? read.total : null;
    await sleep(250);
  }
  return null;
}

/** The store's count of every outcome within the last hour, once nothing waits in a buffer or journal. */
async function countedAfter(url: string): Promise<number> {
  for (let i = 0; i < 120; i++) {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const waiting = [...metrics.matchAll(/^paypulse_store_(?:buffered|spilled)_outcomes (\d+)/gm)].reduce((t, m) => t + Number(m[1]), 0);
    if (waiting === 0) break;
    await sleep(500);
  }
  return (await storeTotal(url)).total;
}

interface FaultContext {
  /** The standalone server, or the Sentinel group's servers behind `group`. */
  redis: LocalRedis;
  group?: SentinelGroup;
  replaceService(): Promise<void>;
  markWiped(): void;
}

interface Scenario {
  name: string;
  /** A primary, a replica and three Sentinels instead of one server. */
  sentinel?: boolean;
  /** Runs the fault; returns when it has ended (Redis continued, restarted, failed over, or the new service listening). */
  fault(ctx: FaultContext): Promise<void>;
}

const scenarios: Scenario[] = [
  {
    name: '(a) Redis SIGSTOP 10 s',
    async fault({ redis }) {
      redis.pause();
      await sleep(faultMs);
      redis.resume();
    },
  },
  {
    name: '(b) Redis killed, restarted empty',
    async fault({ redis, markWiped }) {
      await redis.kill();
      markWiped();
      await sleep(faultMs);
      await redis.start();
    },
  },
  {
    name: '(c) service SIGKILL while spilled',
    async fault({ redis, replaceService }) {
      redis.pause();
      await sleep(faultMs / 2);
      await replaceService();
      await sleep(faultMs / 2);
      redis.resume();
    },
  },
  {
    name: '(d) Sentinel failover',
    sentinel: true,
    async fault({ group }) {
      const old = group!.primaryPort();
      group!.failover();
      await group!.waitForPrimaryOtherThan(old);
    },
  },
];

async function runScenario(scenario: Scenario) {
  const group = scenario.sentinel ? await startSentinelGroup() : undefined;
  const redis = group ? group.servers[0]! : await startRedis();
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'paypulse-bench-faults-'));
  const env = { BENCH_REDIS_URL: group?.url ?? redis.url, BENCH_DATABASE_URL: database.url, BENCH_DATA_DIR: dataDir };
  let service: { url: string; child: ChildProcess } = await startServiceChild(script, env);
  const port = new URL(service.url).port;
  const tally: Tally = { acknowledged: 0, acceptedBeforeWipe: 0, http5xx: 0, noAnswer: 0, longestMs: 0 };
  let wiped = false;
  const ingest = startIngest(() => service.url, tally, () => wiped);
  try {
    await sleep(beforeMs);
    await scenario.fault({
      redis,
      group,
      markWiped: () => {
        wiped = true;
      },
      replaceService: async () => {
        service.child.kill('SIGKILL');
        await new Promise((r) => service.child.once('exit', r));
        service = await startServiceChild(script, { ...env, BENCH_PORT: port });
      },
    });
    const faultEnded = Date.now();
    const resumeSec = await secondsUntilRecording(() => service.url, faultEnded, faultEnded + afterMs);
    await sleep(Math.max(0, faultEnded + afterMs - Date.now()));
    await ingest.stop();
    const counted = await countedAfter(service.url);
    const expected = tally.acknowledged - (wiped ? tally.acceptedBeforeWipe : 0);
    return {
      scenario: scenario.name,
      acknowledged: tally.acknowledged,
      lostWithRedisMemory: wiped ? tally.acceptedBeforeWipe : 0,
      counted,
      missing: expected - counted,
      http5xx: tally.http5xx,
      noAnswer: tally.noAnswer,
      longestMs: Math.round(tally.longestMs),
      resumeSec,
    };
  } finally {
    await ingest.stop();
    await stopServiceChild(service.child);
    await (group ?? redis).stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows = [];
  for (const scenario of scenarios) rows.push(await runScenario(scenario));
  const load = spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
  const table = formatTable(
    ['fault', 'acknowledged', 'accepted before Redis lost its memory', 'counted after', 'missing', '5xx', 'no answer (5 s)', 'longest ms', 'resumed after s'],
    rows.map((r) => [r.scenario, String(r.acknowledged), String(r.lostWithRedisMemory), String(r.counted), String(r.missing), String(r.http5xx), String(r.noAnswer), String(r.longestMs), String(r.resumeSec ?? '—')]),
  );
  process.stdout.write(`${table}\n\nload: ${load}\n`);
  process.stdout.write(`wrote ${writeLatestResult('faults', { load, batchSize, batchEveryMs, faultMs, rows })}\n`);
  // Operator state has a table of its own: its columns are alerts, overrides and mutes, not outcomes.
  const { operatorStateRestart, operatorStateTable } = await import('./operatorState.js');
  process.stdout.write(`\n${operatorStateTable(await operatorStateRestart())}\n`);
}

if (process.argv.includes('--serve')) await serveChild();
else if (process.argv.includes('--kit')) process.stdout.write(`${await runKitScenarios()}\n`);
else {
  await main();
  process.stdout.write(`\n${await runKitScenarios()}\n`);
}
