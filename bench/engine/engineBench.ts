// `npm run bench`: the three strategies side by side, each on a fresh Redis server this benchmark starts,
// with the same events: ingest through the library, Redis CPU and memory per event, rate queries.
import { ManualClock } from '../../src/clock.js';
import { createPulse, type Pulse } from '../../src/pulse.js';
import { startRedis } from '../../test/support/redisServer.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import type { Outcome, Strategy } from '../../src/types.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable, percentile } from '../support/report.js';
import { writeLatestResult } from '../support/results.js';

export interface EngineBenchOptions {
  channels?: number;
  eventsPerChannel?: number;
  strategies?: Strategy[];
  /** Outcomes per recordMany call. */
  batch?: number;
  queries?: number;
  log?: (line: string) => void;
}

export interface StrategyResult {
  strategy: Strategy;
  /** The strategy, or what else sets the run apart. */
  label: string;
  /** Measured after as much traffic 76 minutes earlier, more than one ledger period (see runStrategy). */
  periodLater: boolean;
  events: number;
  eventsPerSec: number;
  redisCpuUsPerEvent: number;
  /** This process (validation, batching, encoding): the other half of ingest throughput. */
  clientCpuUsPerEvent: number;
  redisBytesPerEvent: number;
  queryP50Ms: number;
  queryP99Ms: number;
  redisUsPerQuery: number;
}

const windowMs = 5 * 60_000;
const warmUpQueries = 1000;

/** 20-character request ids like a gateway's order numbers; 95 % success, failures with a code. */
function eventsFor(channel: string, index: number, perChannel: number, start: number, idPrefix: string): Outcome {
  const requestId = `${idPrefix}${String(index).padStart(16, '0')}`;
  const at = start + Math.floor((index / perChannel) * (windowMs - 1000));
  return index % 20 === 7
    ? { channel, requestId, status: 'failure', at, code: 'do_not_honor' }
    : { channel, requestId, status: 'success', at };
}

/** Records five minutes of traffic from `start` on, in calls of `o.batch` outcomes. */
async function ingest(pulse: Pulse, clock: ManualClock, channels: string[], start: number, idPrefix: string, o: Required<EngineBenchOptions>) {
  const inFlight = new Set<Promise<unknown>>();
  let batch: Outcome[] = [];
  for (let i = 0; i < o.eventsPerChannel; i++) {
    for (const channel of channels) batch.push(eventsFor(channel, i, o.eventsPerChannel, start, idPrefix));
    if (batch.length >= o.batch || i === o.eventsPerChannel - 1) {
      clock.set(batch[batch.length - 1].at);
      const p = pulse.recordMany(batch).finally(() => inFlight.delete(p));
      inFlight.add(p);
      batch = [];
      // Enough calls in flight to keep the recorder's batches full, without queueing everything.
      if (inFlight.size >= 4) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
}

/**
 * `periodLater`: the measured traffic comes after as much traffic 76 minutes earlier, more than one
 * ledger period (horizon + skew, 71 min with the default windows), as in a long-running deployment:
 * those requests are forgotten by then, so `buckets` cleans every ledger shard at its first write,
 * while `zset` still holds them in its sets (kept for the 2-hour minute counts).
 */
async function measure(url: string, strategy: Strategy, o: Required<EngineBenchOptions>, periodLater: boolean): Promise<StrategyResult> {
  const admin = await RedisConnection.connect({ url });
  const start = Date.UTC(2026, 0, 1, 12);
  const clock = new ManualClock(start);
  const pulse = await createPulse({ redis: url, strategy, clock, namespace: 'bench', recordTimeoutMs: 30_000 });
  const channels = Array.from({ length: o.channels }, (_, i) => `channel-${String(i).padStart(2, '0')}`);
  if (periodLater) await ingest(pulse, clock, channels, start - 76 * 60_000, 'old_', o);
  const before = await sampleRedis(admin);
  const clientCpuBefore = process.cpuUsage();
  const began = performance.now();
  await ingest(pulse, clock, channels, start, 'ord_', o);
  const seconds = (performance.now() - began) / 1000;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const afterIngest = await sampleRedis(admin);
  const events = o.channels * o.eventsPerChannel;
  clock.set(start + windowMs - 1000);

  // Right after millions of writes, both processes are still settling (garbage collection, allocator
  // purges): a plain PING shows the same millisecond tail then. Queries are timed once that has passed.
  for (let q = 0; q < warmUpQueries; q++) await pulse.rate(channels[q % channels.length], { window: '5m' });
  const latencies: number[] = [];
  for (let q = 0; q < o.queries; q++) {
    const t0 = performance.now();
    const rate = await pulse.rate(channels[q % channels.length], { window: '5m' });
    latencies.push(performance.now() - t0);
    if (q === 0 && rate.total !== o.eventsPerChannel) {
      throw new Error(`${strategy}: 5m window holds ${rate.total} events, expected ${o.eventsPerChannel}`);
    }
  }
  const afterQueries = await sampleRedis(admin);
  await pulse.close();
  await admin.close();
  return {
    strategy,
    label: periodLater ? `${strategy}, a period later` : strategy,
    periodLater,
    events,
    eventsPerSec: Math.round(events / seconds),
    redisCpuUsPerEvent: ((afterIngest.cpuSec - before.cpuSec) * 1e6) / events,
    clientCpuUsPerEvent: (clientCpu.user + clientCpu.system) / events,
    // A period later, forgotten requests are dropped as new ones come: the delta is not a size.
    redisBytesPerEvent: periodLater ? NaN : (afterIngest.usedMemory - before.usedMemory) / events,
    queryP50Ms: percentile(latencies, 50),
    queryP99Ms: percentile(latencies, 99),
    redisUsPerQuery: (afterQueries.evalUsec - afterIngest.evalUsec) / Math.max(1, afterQueries.evalCalls - afterIngest.evalCalls),
  };
}

/**
 * Each run on a Redis server of its own, started for it: emptied with FLUSHALL, a server still carries
 * the previous run's state (its allocator's pages, its tables' sizes), and that slowed the next run
 * by up to a quarter.
 */
async function runStrategy(strategy: Strategy, o: Required<EngineBenchOptions>, periodLater = false): Promise<StrategyResult> {
  const redis = await startRedis();
  try {
    return await measure(redis.url, strategy, o, periodLater);
  } finally {
    await redis.stop();
  }
}

export async function runEngineBench(options: EngineBenchOptions = {}): Promise<StrategyResult[]> {
  const o: Required<EngineBenchOptions> = {
    channels: 20,
    eventsPerChannel: 300_000,
    strategies: ['zset', 'buckets'],
    batch: 5000,
    queries: 2000,
    log: (line) => console.log(line),
    ...options,
  };
  const results: StrategyResult[] = [];
  for (const strategy of o.strategies) {
    o.log(`${strategy}: recording ${o.channels} × ${o.eventsPerChannel.toLocaleString('en')} events…`);
    results.push(await runStrategy(strategy, o));
  }
  // Long-running deployments: the sorted-set design against the default, each after earlier traffic.
  for (const strategy of o.strategies.filter((s) => s === 'zset' || s === 'buckets')) {
    o.log(`${strategy}, a period later: the same again, after as much traffic 76 minutes earlier…`);
    results.push(await runStrategy(strategy, o, true));
  }
  // Each run against the zset run of its kind: fresh against fresh, a period later against a period later.
  const baseOf = (r: StrategyResult) => results.find((b) => b.strategy === 'zset' && b.periodLater === r.periodLater) ?? r;
  o.log('');
  o.log(formatTable(
    ['strategy', 'events/s', 'vs zset', 'Redis CPU µs/event', 'vs zset', 'Redis B/event', 'vs zset', 'client CPU µs/event', 'query p50 ms', 'query p99 ms', 'Redis µs/query'],
    results.map((r) => [r, baseOf(r)]).map(([r, base]) => [
      r.label,
      r.eventsPerSec.toLocaleString('en'),
      `${(r.eventsPerSec / base.eventsPerSec).toFixed(2)}×`,
      r.redisCpuUsPerEvent.toFixed(2),
      `${(r.redisCpuUsPerEvent / base.redisCpuUsPerEvent).toFixed(2)}×`,
      Number.isNaN(r.redisBytesPerEvent) ? '—' : r.redisBytesPerEvent.toFixed(1),
      Number.isNaN(r.redisBytesPerEvent) ? '—' : `${(r.redisBytesPerEvent / base.redisBytesPerEvent).toFixed(2)}×`,
      r.clientCpuUsPerEvent.toFixed(2),
      r.queryP50Ms.toFixed(3),
      r.queryP99Ms.toFixed(3),
      r.redisUsPerQuery.toFixed(1),
    ]),
  ));
  const file = writeLatestResult('engine', { date: new Date().toISOString(), options: { ...o, log: undefined }, results });
  o.log(`\nwritten to ${file}`);
  return results;
}
