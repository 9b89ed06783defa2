// The snapshot job copies the live per-minute counts into history and corrects recent minutes when late
// outcomes change them; it runs against the real embedded engine on virtual time, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createHistoryStore, type HistoryStore } from '../../src/history/historyStore.js';
import { migrate } from '../../src/history/migrate.js';
import { startSnapshotJob } from '../../src/history/snapshotJob.js';
import { createPulse, type Pulse } from '../../src/index.js';
import { backends } from './databases.js';

const minute = 60_000;
const t0 = Date.UTC(2026, 4, 5, 10, 0);

describe.each(backends)('snapshot job into $name', (backend) => {
  let dispose: () => Promise<void>;
  let history: HistoryStore;
  let pulse: Pulse;
  let clock: ManualClock;
  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    await migrate(opened.db);
    history = createHistoryStore(opened.db);
    // The store has been in use since well before the minutes below, so it holds them completely and the job
    // may lower one (a failure upgraded to a later success); test/history/storeRestart.test.ts covers the rest.
    clock = new ManualClock(t0 - 40 * minute);
    pulse = await createPulse({ clock });
    await pulse.storeEpoch();
    clock.set(t0 + 30_000);
  });
  afterAll(async () => {
    await pulse.close();
    await dispose();
  });

  const busy = async (channel: string) =>
    (await history.minutes(channel, { from: t0 - 3 * 3600_000, to: t0 + 3600_000 })).filter((m) => m.success + m.failure + m.started > 0);

  it('backfills what the live store holds on its first run, then keeps recent minutes correct', async () => {
    // 30 minutes ago (beyond the 5-minute lookback: only the first run's backfill copies it) and now.
    await pulse.recordMany([
      { channel: 'upi', requestId: 'old-1', status: 'success', at: t0 - 30 * minute + 5_000 },
      { channel: 'upi', requestId: 'now-1', status: 'success', at: t0 + 10_000 },
      { channel: 'upi', requestId: 'now-2', status: 'failure', at: t0 + 20_000 },
    ]);
    const job = startSnapshotJob({ pulse, history, clock, intervalMs: 3600_000, lookbackMinutes: 5 });
    try {
      expect(await job.runOnce()).toBeGreaterThan(0);
      expect(await busy('upi')).toEqual([
        { minute: t0 - 30 * minute, success: 1, failure: 0, started: 0 },
        { minute: t0, success: 1, failure: 1, started: 0 },
      ]);
      // The backfill's empty minutes are not copied: a row a channel a minute is what quiet channels would cost.
      expect(await history.minutes('upi', { from: t0 - 3 * 3600_000, to: t0 + 3600_000 })).toHaveLength(2);

      // A late success upgrades now-2 (counted at the later time) and a new minute starts.
      clock.set(t0 + minute + 15_000);
      await pulse.recordMany([
        { channel: 'upi', requestId: 'now-2', status: 'success', at: t0 + minute + 5_000 },
        { channel: 'upi', requestId: 'next-1', status: 'success', at: t0 + minute + 6_000 },
      ]);
      await job.runOnce();
      const minutes = await busy('upi');
      expect(minutes.find((m) => m.minute === t0)).toEqual({ minute: t0, success: 1, failure: 0, started: 0 });
      expect(minutes.find((m) => m.minute === t0 + minute)).toEqual({ minute: t0 + minute, success: 2, failure: 0, started: 0 });
      expect(job.stats).toMatchObject({ runs: 2, errors: 0, lastSuccessAt: t0 + minute + 15_000 });
    } finally {
      await job.stop();
    }
  });

  it('sends only the minutes whose counts changed since its last copy, never an empty one it has not copied', async () => {
    const sent: number[] = [];
    const counting: HistoryStore = {
      ...history,
      upsertMinutes: (rows) => (sent.push(rows.length), history.upsertMinutes(rows)),
      mergeMinutes: (rows) => (sent.push(rows.length), history.mergeMinutes(rows)),
    };
    const rowsSent = () => sent.splice(0).reduce((a, b) => a + b, 0);
    const at = clock.now();
    await pulse.recordMany([
      { channel: 'quiet-a', requestId: 'qa-1', status: 'success', at: at - 1_000 },
      { channel: 'quiet-b', requestId: 'qb-1', status: 'failure', at: at - 1_000 },
    ]);
    const job = startSnapshotJob({ pulse, history: counting, clock, intervalMs: 3600_000, lookbackMinutes: 10 });
    try {
      await job.runOnce();
      rowsSent();
      await job.runOnce();
      // Every channel's eleven minutes were read; none changed, so none was sent.
      expect(rowsSent()).toBe(0);
      await pulse.record({ channel: 'quiet-a', requestId: 'qa-2', status: 'failure', at: at - 500 });
      await job.runOnce();
      expect(rowsSent()).toBe(1);
      expect((await busy('quiet-a')).at(-1)).toMatchObject({ success: 1, failure: 1 });
    } finally {
      await job.stop();
    }
  });

  it('makes one last copy when stopped', async () => {
    const job = startSnapshotJob({ pulse, history, clock, intervalMs: 3600_000 });
    await job.runOnce();
    await pulse.record({ channel: 'last-copy', requestId: 'x', status: 'failure', at: clock.now() - 1_000 });
    await job.stop();
    expect((await busy('last-copy')).map((m) => m.failure)).toEqual([1]);
  });

  it('deletes minutes past the retention period', async () => {
    const old = Math.floor(clock.now() / minute) * minute - 3 * 24 * 3600_000;
    await history.upsertMinutes([{ channel: 'ancient', minute: old, success: 1, failure: 0, started: 0 }]);
    const job = startSnapshotJob({ pulse, history, clock, intervalMs: 3600_000, retentionDays: 2 });
    await job.runOnce();
    expect(job.stats.rowsPruned).toBeGreaterThanOrEqual(1);
    expect(await history.minutes('ancient', { from: old - minute, to: old + minute })).toEqual([]);
    await job.stop();
  });

  it('counts a failed run and recovers on the next', async () => {
    let broken = true;
    const flaky: HistoryStore = {
      ...history,
      upsertMinutes: (rows) => (broken ? Promise.reject(new Error('database went away')) : history.upsertMinutes(rows)),
    };
    const job = startSnapshotJob({ pulse, history: flaky, clock, intervalMs: 3600_000 });
    await expect(job.runOnce()).rejects.toThrow('database went away');
    expect(job.stats).toMatchObject({ errors: 1, runs: 0, lastSuccessAt: null });
    broken = false;
    await job.runOnce();
    expect(job.stats).toMatchObject({ errors: 1, runs: 1 });
    await job.stop();
  });
});
