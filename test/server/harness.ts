// Builds the service app on either engine for route tests: the embedded store, or a redis-server of our own
// on a free port (never 6379) with a fresh namespace per app. Time is a ManualClock; history is PGlite.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { ManualClock } from '../../src/clock.js';
import { openHistory, startSnapshotJob, type HistoryStore, type SnapshotJob } from '../../src/history/index.js';
import { createPulse, type Pulse } from '../../src/index.js';
import { buildApp, type AppConfig } from '../../src/server/app.js';
import { defaultConfig } from '../../src/server/config.js';
import { createServiceMetrics } from '../../src/server/metrics/serviceMetrics.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import type { PulseOptions } from '../../src/options.js';
import type { Outcome } from '../../src/types.js';

export const t0 = Date.UTC(2026, 2, 2, 9, 30);

export interface Engine {
  name: 'memory' | 'redis';
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Options for a fresh, empty pulse on this engine. */
  pulseOptions(): PulseOptions;
}

function redisEngine(): Engine {
  let redis: LocalRedis | undefined;
  return {
    name: 'redis',
    start: async () => {
      redis = await startRedis();
    },
    stop: async () => redis?.stop(),
    pulseOptions: () => ({ redis: redis!.url, namespace: `t${randomBytes(4).toString('hex')}` }),
  };
}

export const engines: Engine[] = [
  { name: 'memory', start: async () => undefined, stop: async () => undefined, pulseOptions: () => ({}) },
  redisEngine(),
];

export interface TestApp {
  app: FastifyInstance;
  /** The library object the app serves (read coalescing is the app's): what the HTTP answers must agree with. */
  pulse: Pulse;
  history: HistoryStore;
  snapshots: SnapshotJob;
  clock: ManualClock;
  close(): Promise<void>;
}

export async function makeApp(
  engine: Engine,
  options: { config?: Partial<AppConfig>; history?: HistoryStore; pulse?: Partial<PulseOptions>; logger?: FastifyBaseLogger } = {},
): Promise<TestApp> {
  const clock = new ManualClock(t0);
  // A generous record timeout: a slow CI machine must not turn a 10,000-outcome batch into a buffered one
  // (fail open is the library's business, tested there).
  const metrics = createServiceMetrics();
  const pulse = await createPulse({ ...engine.pulseOptions(), clock, recordTimeoutMs: 10_000, ...options.pulse }, metrics.observer);
  const history = options.history ?? (await openHistory());
  // A long interval: tests call runOnce() themselves, so nothing depends on timing.
  const snapshots = startSnapshotJob({ pulse, history, clock, intervalMs: 3600_000 });
  const app = await buildApp({ pulse, metrics, history, clock, snapshots, logger: options.logger, config: { ...defaultConfig, ...options.config } });
  return {
    app,
    pulse,
    history,
    snapshots,
    clock,
    async close() {
      await app.close();
      await snapshots.stop().catch(() => undefined);
      await pulse.close();
      if (!options.history) await history.close();
    },
  };
}

let sequence = 0;
/** An outcome `agoMs` before the clock, with a request id unique in this process. */
export function outcome(clock: ManualClock, fields: Partial<Outcome> & { channel: string }, agoMs = 1_000): Outcome {
  return { requestId: `r${++sequence}`, status: 'success', at: clock.now() - agoMs, ...fields };
}

export function post(app: FastifyInstance, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/v1/outcomes', payload: body as object, headers });
}

/** A pino logger whose lines land in `lines` (parsed), for tests about what the service logs. */
export function capturingLogger(): { logger: FastifyBaseLogger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}
