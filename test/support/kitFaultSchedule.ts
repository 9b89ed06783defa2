// A randomized fault schedule against the kit, for test/kit/faultSchedule.test.ts (short) and bench:faults (long).
// Several kit instances (each its own createPulse, so its own Redis and PostgreSQL clients) run idempotent
// handlers on a few keys and locks on a few resources with short TTLs, while a scheduler drawn from the seed stalls
// Redis (SIGSTOP/SIGCONT), kills it and restarts it empty, and kills the instances' PostgreSQL sessions. Every
// handler run and every lock holding goes into a history, which is checked afterwards:
//   - no key's handler completed twice, and no two runs of one key overlapped;
//   - no two holders of one resource overlapped: a holder's interval starts when its grant was answered and ends
//     when it sent its release, or at its lease's end (the grant's or last confirmed extension's request time plus
//     the TTL), so it lies inside the interval the authority granted;
//   - fences strictly increase per resource, in the order holders held the lock.
// The scheduler's choices come from the seed; the interleaving of the instances is the machine's.
import postgres from 'postgres';
import { StoreUnavailableError } from '../../src/errors.js';
import { createPulse, type Pulse } from '../../src/index.js';
import type { LocalRedis } from './redisServer.js';

export type KitFault = 'redis-stall' | 'redis-restart-empty' | 'pg-terminate';

export interface KitScheduleOptions {
  seed: number;
  durationMs: number;
  redis: LocalRedis;
  /** The kit database (PostgreSQL the authority); without it marks and locks live in Redis. */
  databaseUrl?: string;
  faults: KitFault[];
  /** Shortest and longest Redis stall; each lasts a length drawn between them. */
  stallMs: [number, number];
  /** Pause between faults, drawn between these. */
  faultGapMs?: [number, number];
  instances?: number;
  workersPerInstance?: number;
  /** Long enough for a handler to finish and store its result, as the kit asks. */
  processingMs?: number;
}

export interface KitScheduleReport {
  seed: number;
  operations: number;
  /** Fail-closed answers: StoreUnavailableError from the kit. */
  errors: number;
  handlerRuns: number;
  lockHoldings: number;
  doubleRuns: number;
  overlappingHolders: number;
  fenceRegressions: number;
  faults: string[];
  /** Human-readable findings, empty when every check held. */
  violations: string[];
}

interface HandlerRun {
  key: string;
  startedAt: number;
  endedAt: number;
  completed: boolean;
}

interface Holding {
  resource: string;
  fence: number;
  /** When the grant's answer arrived. */
  heldFrom: number;
  /** Release sent, or lease end, whichever came first. */
  heldUntil: number;
}

/** mulberry32: small, seedable, good enough to pick operations and faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const keys = 6;
const resources = 3;
/** Keys rotate this often, so new marks are taken all through the run, not only at its start. */
const keyRoundMs = 1_000;

class HandlerFailed extends Error {}

export async function runKitFaultSchedule(options: KitScheduleOptions): Promise<KitScheduleReport> {
  const random = seededRandom(options.seed);
  const instances = options.instances ?? 3;
  const workers = options.workersPerInstance ?? 4;
  const processingMs = options.processingMs ?? 20_000;
  const namespace = `kitfaults${process.pid}x${options.seed % 100_000}`;
  const runs: HandlerRun[] = [];
  const holdings: Holding[] = [];
  const faults: string[] = [];
  const unexpected: string[] = [];
  let operations = 0;
  let errors = 0;

  const pulses: Pulse[] = [];
  const admin = options.databaseUrl ? postgres(options.databaseUrl, { max: 1, onnotice: () => undefined }) : undefined;
  // Opened one after another: migrations from several instances at once are not what this schedule tests.
  for (let i = 0; i < instances; i++) {
    pulses.push(await createPulse({ redis: options.redis.url, namespace, ...(options.databaseUrl ? { kitDatabase: options.databaseUrl } : {}) }));
  }
  const started = Date.now();
  const deadline = started + options.durationMs;

  const failedClosed = (err: unknown) => {
    if (err instanceof StoreUnavailableError) errors++;
    else if (!(err instanceof HandlerFailed)) unexpected.push(String(err));
  };

  async function callback(pulse: Pulse, workerRandom: () => number): Promise<void> {
    const round = Math.floor((Date.now() - started) / keyRoundMs);
    const key = `cb:${round}:${Math.floor(workerRandom() * keys)}`;
    const fails = workerRandom() < 0.2;
    const workMs = Math.floor(workerRandom() * 40);
    await pulse.idempotency.run(key, { processingMs }, async () => {
      const run: HandlerRun = { key, startedAt: performance.now(), endedAt: Infinity, completed: false };
      runs.push(run);
      await sleep(workMs);
      run.endedAt = performance.now();
      if (fails) throw new HandlerFailed('handler failed, as some do');
      run.completed = true;
      return { key };
    });
  }

  async function holdLock(pulse: Pulse, workerRandom: () => number): Promise<void> {
    const resource = `res:${Math.floor(workerRandom() * resources)}`;
    const ttlMs = 100 + Math.floor(workerRandom() * 300);
    const holdMs = Math.floor(workerRandom() * ttlMs * 1.5);
    const extendAfterMs = workerRandom() < 0.4 ? Math.floor(holdMs / 2) : undefined;
    let leaseFrom = performance.now();
    const handle = await pulse.lock.acquire(resource, { ttlMs, waitMs: Math.floor(workerRandom() * 200) });
    if (!handle) return;
    const holding: Holding = { resource, fence: handle.fence, heldFrom: performance.now(), heldUntil: leaseFrom + ttlMs };
    holdings.push(holding);
    try {
      if (extendAfterMs !== undefined) {
        await sleep(extendAfterMs);
        const extendFrom = performance.now();
        if (extendFrom < leaseFrom + ttlMs && (await handle.extend())) leaseFrom = extendFrom;
        await sleep(holdMs - extendAfterMs);
      } else {
        await sleep(holdMs);
      }
    } finally {
      holding.heldUntil = Math.min(performance.now(), leaseFrom + ttlMs);
      await handle.release().catch(() => false);
    }
  }

  async function worker(pulse: Pulse, workerSeed: number): Promise<void> {
    const workerRandom = seededRandom(workerSeed);
    while (Date.now() < deadline) {
      operations++;
      try {
        await (workerRandom() < 0.5 ? callback(pulse, workerRandom) : holdLock(pulse, workerRandom));
      } catch (err) {
        failedClosed(err);
        await sleep(20); // a failed-closed caller backs off before trying again
      }
    }
  }

  async function injectFaults(): Promise<void> {
    const [minGap, maxGap] = options.faultGapMs ?? [500, 1500];
    // Each kind once per cycle, in an order drawn from the seed: a short run still meets every kind.
    const cycle: KitFault[] = [];
    while (options.faults.length > 0) {
      await sleep(minGap + random() * (maxGap - minGap));
      if (Date.now() >= deadline - 500) return;
      if (cycle.length === 0) cycle.push(...[...options.faults].sort(() => random() - 0.5));
      const fault = cycle.pop()!;
      const at = Date.now() - started;
      if (fault === 'redis-stall') {
        const [shortest, longest] = options.stallMs;
        const ms = Math.floor(shortest + random() * (longest - shortest));
        faults.push(`${at} ms: Redis SIGSTOP for ${ms} ms`);
        options.redis.pause();
        await sleep(ms);
        options.redis.resume();
      } else if (fault === 'redis-restart-empty') {
        faults.push(`${at} ms: Redis kill -9, restarted empty`);
        await options.redis.kill();
        await sleep(100 + random() * 400);
        await options.redis.start();
      } else if (admin) {
        const killed = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                                   WHERE datname = current_database() AND pid <> pg_backend_pid()`;
        faults.push(`${at} ms: ${killed.length} PostgreSQL sessions terminated`);
      }
    }
  }

  try {
    await Promise.all([
      injectFaults(),
      ...pulses.flatMap((pulse, i) => Array.from({ length: workers }, (_, w) => worker(pulse, options.seed * 31 + i * 7 + w))),
    ]);
  } finally {
    options.redis.resume();
    for (const pulse of pulses) await pulse.close().catch(() => undefined);
    await admin?.end();
  }
  return { seed: options.seed, operations, errors, handlerRuns: runs.length, lockHoldings: holdings.length, faults, ...checkHistory(runs, holdings, unexpected) };
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(keyOf(item));
    if (group) group.push(item);
    else groups.set(keyOf(item), [item]);
  }
  return groups;
}

export function checkHistory(runs: HandlerRun[], holdings: Holding[], unexpected: string[] = []) {
  const violations = unexpected.map((e) => `unexpected error: ${e}`);
  let doubleRuns = 0;
  let overlappingHolders = 0;
  let fenceRegressions = 0;
  for (const [key, keyRuns] of groupBy(runs, (r) => r.key)) {
    const completed = keyRuns.filter((r) => r.completed).length;
    if (completed > 1) {
      doubleRuns += completed - 1;
      violations.push(`${key}: handler completed ${completed} times`);
    }
    const ordered = [...keyRuns].sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < ordered.length; i++) {
      if (ordered[i]!.startedAt < ordered[i - 1]!.endedAt) {
        doubleRuns++;
        violations.push(`${key}: two runs at once`);
      }
    }
  }
  for (const [resource, held] of groupBy(holdings, (h) => h.resource)) {
    // A grant answered after its lease ended was never held; it still must not reuse a fence.
    const fences = new Set(held.map((h) => h.fence));
    if (fences.size < held.length) {
      fenceRegressions += held.length - fences.size;
      violations.push(`${resource}: a fence handed out twice`);
    }
    const real = held.filter((h) => h.heldUntil > h.heldFrom).sort((a, b) => a.heldFrom - b.heldFrom);
    let latestEnd = -Infinity;
    for (let i = 0; i < real.length; i++) {
      const h = real[i]!;
      if (h.heldFrom < latestEnd) {
        overlappingHolders++;
        violations.push(`${resource}: holder with fence ${h.fence} from ${h.heldFrom.toFixed(1)} overlaps one held until ${latestEnd.toFixed(1)}`);
      }
      latestEnd = Math.max(latestEnd, h.heldUntil);
      if (i > 0 && h.fence <= real[i - 1]!.fence) {
        fenceRegressions++;
        violations.push(`${resource}: fence ${h.fence} after ${real[i - 1]!.fence}`);
      }
    }
  }
  return { doubleRuns, overlappingHolders, fenceRegressions, violations };
}
