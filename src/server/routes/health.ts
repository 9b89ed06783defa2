// Liveness and readiness. /healthz touches nothing (a restart cannot fix Redis, so a Redis outage must not
// fail liveness); /readyz asks the store and the history store, so a load balancer stops sending traffic to
// an instance that cannot serve it, and to one that is shutting down.
// A Redis Cluster with some masters down is still ready: every instance sees the same cluster, so taking them
// out of rotation would stop the channels on healthy slots too, on every instance at once. /readyz then answers
// 200 with the unreachable share of slots; it answers 503 only when no slot is reachable (docs/storage.md).
import type { FastifyInstance } from 'fastify';
import type { HistoryStore } from '../../history/index.js';
import type { HealthSnapshots } from '../../stats/healthSnapshot.js';
import type { SuccessRates } from '../../types.js';

const probeTimeoutMs = 2_000;

export interface HealthRouteOptions {
  pulse: Pick<SuccessRates, 'health' | 'channels'>;
  /** Not ready while the snapshot fails or cannot finish within its interval: the stream and /v1/channels are then stale. */
  snapshots?: Pick<HealthSnapshots, 'status'>;
  history: Pick<HistoryStore, 'ping' | 'kind'>;
  isShuttingDown: () => boolean;
  /** The spill folder when outcomes are spilled durably; absent when they wait in memory. */
  durable?: string;
  /** Alert evaluation's state, when alerts are configured: paused (store outage) makes the instance not ready. */
  alerts?: () => { paused: boolean } | undefined;
}

interface Check {
  ok: boolean;
  kind: string;
  detail?: string;
}

async function probe(kind: string, work: () => Promise<unknown>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${probeTimeoutMs} ms`)), probeTimeoutMs);
      }),
    ]);
    return { ok: true, kind };
  } catch (err) {
    return { ok: false, kind, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

const checkSchema = {
  type: 'object',
  required: ['ok', 'kind'],
  properties: { ok: { type: 'boolean' }, kind: { type: 'string' }, detail: { type: 'string' } },
} as const;

const readySchema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready'] },
    checks: { type: 'object', properties: { store: checkSchema, history: checkSchema, snapshot: checkSchema, shutdown: checkSchema, alerts: checkSchema } },
    degradationLevel: { type: 'integer', enum: [0, 1, 2] },
    /** Where outcomes wait while the store is down: a durable journal, or memory (lost if the process dies). */
    buffering: { type: 'string' },
    /** Share (0–1) of the store's slots this instance cannot reach; absent on the embedded store. */
    unreachableSlotShare: { type: 'number' },
  },
} as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route logs its own failures (readiness logs its changes), so the app's per-reply error log skips it. */
    logsOwnFailures?: boolean;
  }
}

/**
 * A load balancer asks /readyz every few seconds: logging each 503 at error would page on a single outage
 * hundreds of times. The change is what an operator needs, once, at warn (and the return at info).
 */
function readinessLog(app: FastifyInstance): (ready: boolean, checks: Record<string, Check>) => void {
  let wasReady: boolean | undefined;
  return (ready, checks) => {
    if (ready === wasReady || (ready && wasReady === undefined)) {
      wasReady = ready;
      return;
    }
    wasReady = ready;
    if (ready) app.log.info({ checks }, 'ready again');
    else app.log.warn({ checks }, 'not ready');
  };
}

function snapshotCheck(snapshots: Pick<HealthSnapshots, 'status'>): Check {
  const status = snapshots.status();
  if (status.failing) return { ok: false, kind: 'health snapshot', detail: `failing: ${status.lastError ?? 'unknown error'}` };
  if (status.overrun) return { ok: false, kind: 'health snapshot', detail: 'the last refresh took longer than its interval: the stream and /v1/channels are behind' };
  return { ok: true, kind: 'health snapshot' };
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}

export function registerHealthRoutes(app: FastifyInstance, { pulse, snapshots, history, isShuttingDown, durable, alerts }: HealthRouteOptions): void {
  const logReadiness = readinessLog(app);
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process answers',
        response: { 200: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } } },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: { summary: 'Readiness: the store and the history store answer', response: { 200: readySchema, 503: readySchema } },
      config: { logsOwnFailures: true },
    },
    async (_request, reply) => {
      const health = pulse.health();
      const share = health.unreachableSlotShare;
      const inPart = share !== undefined && share > 0 && share < 1;
      const [store, historyCheck] = await Promise.all([
        probe(`${health.store}/${health.strategy}`, async () => {
          // The channel list is one key: its master may be the one that is down, while the rest serves.
          await pulse.channels().catch((err: unknown) => {
            if (!inPart) throw err;
          });
          // The library's own view: it may be buffering (fail open) even if this one read got through.
          const h = pulse.health();
          if (!h.storeReachable) throw new Error(`${h.storeConnection ?? 'store failing'}; ${h.bufferedOutcomes} outcomes buffered, ${h.spilledOutcomes} spilled`);
        }),
        probe(history.kind, () => history.ping()),
      ]);
      if (inPart && store.ok) store.detail = `${percent(share)} of slots unreachable: their channels' outcomes are buffered and their rates stale`;
      const checks: Record<string, Check> = { store, history: historyCheck };
      const alertState = alerts?.();
      if (alertState) checks.alerts = alertState.paused ? { ok: false, kind: 'alerts', detail: 'evaluation paused: the store cannot be read' } : { ok: true, kind: 'alerts' };
      if (snapshots) checks.snapshot = snapshotCheck(snapshots);
      if (isShuttingDown()) checks.shutdown = { ok: false, kind: 'process', detail: 'shutting down' };
      const ready = Object.values(checks).every((c) => c.ok);
      const now = pulse.health();
      const buffering = now.store === 'memory'
        ? 'embedded store: nothing waits for a store'
        : durable
        ? `durable: spill journal in ${durable}`
        : 'memory only: outcomes buffered while the store is down are lost if the process dies (set PAYPULSE_DATA_DIR)';
      logReadiness(ready, checks);
      return reply.code(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not ready',
        checks,
        degradationLevel: now.degradationLevel,
        buffering,
        ...(now.unreachableSlotShare === undefined ? {} : { unreachableSlotShare: now.unreachableSlotShare }),
      });
    },
  );
}
