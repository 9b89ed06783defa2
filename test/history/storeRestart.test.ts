// A live store that forgot its data (a Redis restarted empty, a new process's embedded store) must not lower the
// minutes history already holds; minutes the store holds completely (after its new epoch began) are still
// corrected as usual. Real redis-server, killed and started again empty; both history databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createHistoryStore, type HistoryStore } from '../../src/history/historyStore.js';
import { migrate } from '../../src/history/migrate.js';
import { startSnapshotJob, type SnapshotJob } from '../../src/history/snapshotJob.js';
import { createPulse, type Pulse } from '../../src/index.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import type { Outcome, PulseLogger } from '../../src/types.js';
import { eventually } from '../kit/engines.js';
import { backends } from './databases.js';

const minute = 60_000;
const t0 = Date.UTC(2026, 6, 7, 7, 0);
const m1 = t0 + 5 * minute;
const m2 = t0 + 6 * minute;

function outcomes(channel: string, prefix: string, at: number, success: number, failure: number): Outcome[] {
  return Array.from({ length: success + failure }, (_, i) => ({
    channel,
    requestId: `${prefix}-${i}`,
    status: i < success ? 'success' : 'failure',
    at: at + i,
  }));
}

function recordingLogger(): PulseLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (_obj, msg) => void warnings.push(msg), error: () => undefined, info: () => undefined };
}

let redis: LocalRedis;
let namespaces = 0;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

interface StoreCase {
  name: string;
  /** Opens a pulse on the store; `restart` empties the store the way a crash does and returns the pulse to use. */
  open(clock: ManualClock, logger: PulseLogger): Promise<{ pulse: Pulse; restart(): Promise<Pulse> }>;
}

const stores: StoreCase[] = [
  {
    name: 'redis',
    async open(clock, logger) {
      const pulse = await createPulse({ redis: redis.url, namespace: `restart${process.pid}-${++namespaces}`, clock, logger, recordTimeoutMs: 5000 });
      return {
        pulse,
        async restart() {
          await redis.restart();
          // The client reconnects on its own; the same pulse (and the same job) go on.
          await eventually(() => pulse.storeEpoch().then(() => true, () => false), 10_000);
          return pulse;
        },
      };
    },
  },
  {
    name: 'memory',
    async open(clock, logger) {
      const pulse = await createPulse({ clock, logger });
      return {
        pulse,
        // The embedded store is the process's memory: a restart is a new process with a new, empty store.
        async restart() {
          await pulse.close();
          return createPulse({ clock, logger });
        },
      };
    },
  },
];

describe.each(backends)('history on $name', (backend) => {
  let history: HistoryStore;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    await migrate(opened.db);
    history = createHistoryStore(opened.db);
  });
  afterAll(async () => {
    await dispose();
  });

  describe.each(stores)('after the $name store restarts empty', (store) => {
    it('keeps the minutes it had, and corrects minutes the new store holds completely', async () => {
      const channel = `alipay-${store.name}`;
      const clock = new ManualClock(t0);
      const logger = recordingLogger();
      const opened = await store.open(clock, logger);
      let pulse = opened.pulse;
      const jobs: SnapshotJob[] = [];
      const job = () => {
        if (jobs.length === 0 || store.name === 'memory') {
          jobs.push(startSnapshotJob({ pulse, history, clock, intervalMs: 3600_000, logger }));
        }
        return jobs[jobs.length - 1];
      };
      const read = (from: number, to: number) => history.minutes(channel, { from, to });
      try {
        await pulse.storeEpoch(); // in use since t0
        clock.set(m1 + 1_000);
        await pulse.recordMany(outcomes(channel, 'a', m1 + 1_000, 1220, 21));
        clock.set(m2 + 1_000);
        // One of m1's failures upgraded in m2 lowers m1 by one: the store held m1 whole, so history follows.
        await pulse.recordMany([{ channel, requestId: 'a-1220', status: 'success', at: m2 + 1_000 }, ...outcomes(channel, 'b', m2 + 2_000, 10, 0)]);
        clock.set(m2 + 30_000);
        await job().runOnce();
        const before = [
          { minute: m1, success: 1220, failure: 20, started: 0 },
          { minute: m2, success: 11, failure: 0, started: 0 },
        ];
        expect(await read(m1, m2)).toEqual(before);

        pulse = await opened.restart();
        clock.set(m2 + 40_000);
        await pulse.record({ channel, requestId: 'c-0', status: 'success', at: m2 + 35_000 });
        await job().runOnce();
        expect(await read(m1, m2)).toEqual(before);
        // m2, which the new store holds in part, is kept; m1, which it holds nothing of, is kept by the job that
        // copied it before (redis) and not even sent by a new job (memory: a new process), which sends no empty
        // minute it has not copied.
        expect(jobs.reduce((sum, j) => sum + j.stats.minutesKept, 0)).toBeGreaterThanOrEqual(store.name === 'redis' ? 2 : 1);
        if (store.name === 'redis') {
          // The same job saw the epoch change: the restart is counted and logged.
          expect(jobs[0].stats.storeRestarts).toBe(1);
          expect(logger.warnings.some((w) => w.includes('restarted without its data'))).toBe(true);
        }

        // A job started afresh (a service restarted too) backfills two hours from the empty store: still kept.
        const fresh = startSnapshotJob({ pulse, history, clock, intervalMs: 3600_000, logger });
        jobs.push(fresh);
        await fresh.runOnce();
        expect(await read(m1, m2)).toEqual(before);

        // Two minutes past the new epoch's start (plus the skew tolerance) the new store holds whole minutes:
        // a failure there, then upgraded in the next minute, lowers that minute in history as before.
        const m4 = t0 + 8 * minute;
        clock.set(m4 + 20_000);
        await pulse.record({ channel, requestId: 'd-0', status: 'failure', at: m4 + 10_000 });
        await fresh.runOnce();
        expect(await read(m4, m4)).toEqual([{ minute: m4, success: 0, failure: 1, started: 0 }]);
        clock.set(m4 + minute + 5_000);
        await pulse.record({ channel, requestId: 'd-0', status: 'success', at: m4 + minute + 1_000 });
        await fresh.runOnce();
        expect(await read(m4, m4 + minute)).toEqual([
          { minute: m4, success: 0, failure: 0, started: 0 },
          { minute: m4 + minute, success: 1, failure: 0, started: 0 },
        ]);
        expect(await read(m1, m2)).toEqual(before);
      } finally {
        for (const j of jobs) await j.stop().catch(() => undefined);
        await pulse.close();
      }
    }, 60_000);
  });
});
