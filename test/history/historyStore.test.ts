import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryStore, type HistoryStore } from '../../src/history/historyStore.js';
import { migrate, readMigrations } from '../../src/history/migrate.js';
import type { SqlClient } from '../../src/store/ports/sqlClient.js';
import { openHistory } from '../../src/history/index.js';
import { backends } from './databases.js';

const t0 = Date.UTC(2026, 0, 1, 12, 0);
const minute = 60_000;

describe.each(backends)('history store on $name', (backend) => {
  let db: SqlClient;
  let dispose: () => Promise<void>;
  let store: HistoryStore;

  beforeAll(async () => {
    ({ db, dispose } = await backend.open());
    await migrate(db);
    store = createHistoryStore(db);
  });
  afterAll(async () => {
    await dispose();
  });

  it('applies every migration once, and nothing on a second start', async () => {
    const versions = (await readMigrations()).map((m) => m.version);
    expect(versions.length).toBeGreaterThan(0);
    const rows = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(versions);
    expect(await migrate(db)).toEqual([]);
  });

  it('stores minutes and reads them back oldest first, within the range only', async () => {
    await store.upsertMinutes([
      { channel: 'alipay', minute: t0 + minute, success: 9, failure: 1, started: 10 },
      { channel: 'alipay', minute: t0, success: 5, failure: 0, started: 6 },
      { channel: 'alipay', minute: t0 + 2 * minute, success: 1, failure: 3, started: 4 },
      { channel: 'bank-x', minute: t0, success: 7, failure: 7, started: 14 },
    ]);
    expect(await store.minutes('alipay', { from: t0, to: t0 + minute })).toEqual([
      { minute: t0, success: 5, failure: 0, started: 6 },
      { minute: t0 + minute, success: 9, failure: 1, started: 10 },
    ]);
    expect(await store.minutes('bank-x', { from: t0 - minute, to: t0 + 10 * minute })).toEqual([
      { minute: t0, success: 7, failure: 7, started: 14 },
    ]);
    expect(await store.minutes('nobody', { from: t0, to: t0 + minute })).toEqual([]);
    expect(await store.minutes('alipay', { from: t0, to: t0 + 2 * minute, limit: 1 })).toHaveLength(1);
  });

  it('reads several channels in one query, by channel then oldest first, within the range and the limit', async () => {
    await store.upsertMinutes([
      { channel: 'many-b', minute: t0 + minute, success: 2, failure: 0, started: 2 },
      { channel: 'many-a', minute: t0 + minute, success: 1, failure: 1, started: 2 },
      { channel: 'many-a', minute: t0, success: 3, failure: 0, started: 3 },
      { channel: 'many-c', minute: t0, success: 4, failure: 4, started: 8 },
      { channel: 'many-b', minute: t0 + 5 * minute, success: 9, failure: 9, started: 18 },
    ]);
    const range = { from: t0, to: t0 + minute };
    expect(await store.minutesOfChannels(['many-b', 'many-a', 'nobody'], range)).toEqual([
      { channel: 'many-a', minute: t0, success: 3, failure: 0, started: 3 },
      { channel: 'many-a', minute: t0 + minute, success: 1, failure: 1, started: 2 },
      { channel: 'many-b', minute: t0 + minute, success: 2, failure: 0, started: 2 },
    ]);
    expect(await store.minutesOfChannels(['many-a', 'many-b', 'many-c'], { ...range, limit: 2 })).toHaveLength(2);
    expect(await store.minutesOfChannels([], range)).toEqual([]);
    const every = (await store.minutesOfEveryChannel(range)).filter((row) => row.channel.startsWith('many-'));
    expect(every.map((row) => `${row.channel}@${row.minute - t0}`)).toEqual(['many-a@0', `many-a@${minute}`, `many-b@${minute}`, 'many-c@0']);
    expect(await store.minutesOfEveryChannel({ ...range, limit: 1 })).toHaveLength(1);
  });

  it('corrects a minute that changed and leaves unchanged ones unwritten', async () => {
    const written = await store.upsertMinutes([
      { channel: 'alipay', minute: t0, success: 5, failure: 0, started: 6 },
      { channel: 'alipay', minute: t0 + minute, success: 10, failure: 0, started: 10 },
    ]);
    expect(written).toBe(1);
    expect(await store.minutes('alipay', { from: t0 + minute, to: t0 + minute })).toEqual([
      { minute: t0 + minute, success: 10, failure: 0, started: 10 },
    ]);
  });

  it('merges a partial copy without lowering a minute, and counts the minutes it kept', async () => {
    const at = t0 + 100 * minute;
    await store.upsertMinutes([
      { channel: 'merge', minute: at, success: 1220, failure: 21, started: 30 },
      { channel: 'merge', minute: at + minute, success: 5, failure: 5, started: 2 },
    ]);
    const merged = await store.mergeMinutes([
      { channel: 'merge', minute: at, success: 0, failure: 0, started: 0 }, // a store that forgot: kept
      { channel: 'merge', minute: at + minute, success: 9, failure: 1, started: 0 }, // as many outcomes: taken, started stays
      { channel: 'merge', minute: at + 2 * minute, success: 3, failure: 0, started: 1 }, // new: inserted
    ]);
    expect(merged).toEqual({ written: 2, kept: 1 });
    expect(await store.minutes('merge', { from: at, to: at + 2 * minute })).toEqual([
      { minute: at, success: 1220, failure: 21, started: 30 },
      { minute: at + minute, success: 9, failure: 1, started: 2 },
      { minute: at + 2 * minute, success: 3, failure: 0, started: 1 },
    ]);
    // A lower pair with more started requests raises only `started`; the same copy again writes nothing.
    expect(await store.mergeMinutes([{ channel: 'merge', minute: at, success: 7, failure: 0, started: 40 }])).toEqual({ written: 1, kept: 1 });
    expect(await store.mergeMinutes([{ channel: 'merge', minute: at, success: 7, failure: 0, started: 40 }])).toEqual({ written: 0, kept: 1 });
    expect(await store.minutes('merge', { from: at, to: at })).toEqual([{ minute: at, success: 1220, failure: 21, started: 40 }]);
    // upsertMinutes is for copies known complete: it does lower.
    expect(await store.upsertMinutes([{ channel: 'merge', minute: at, success: 1, failure: 0, started: 0 }])).toBe(1);
    expect(await store.minutes('merge', { from: at, to: at })).toEqual([{ minute: at, success: 1, failure: 0, started: 0 }]);
  });

  it('writes batches larger than one statement holds', async () => {
    const rows = Array.from({ length: 4_500 }, (_, i) => ({
      channel: 'bulk',
      minute: t0 + i * minute,
      success: i,
      failure: 1,
      started: i + 1,
    }));
    expect(await store.upsertMinutes(rows)).toBe(4_500);
    const back = await store.minutes('bulk', { from: t0, to: t0 + 5_000 * minute });
    expect(back).toHaveLength(4_500);
    expect(back[4_499]).toEqual({ minute: t0 + 4_499 * minute, success: 4_499, failure: 1, started: 4_500 });
  });

  it('prunes minutes before a time, a bounded batch at a time', async () => {
    await store.upsertMinutes(
      Array.from({ length: 30 }, (_, i) => ({ channel: 'prune', minute: t0 - (i + 1) * minute, success: 1, failure: 0, started: 0 })),
    );
    await store.upsertMinutes([{ channel: 'prune', minute: t0, success: 2, failure: 0, started: 0 }]);
    expect(await store.prune(t0, 20)).toBe(20);
    expect(await store.prune(t0, 20)).toBe(10);
    expect(await store.prune(t0, 20)).toBe(0);
    expect(await store.minutes('prune', { from: t0 - 3600_000, to: t0 })).toEqual([{ minute: t0, success: 2, failure: 0, started: 0 }]);
  });

  it('answers ping while open', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe('PGlite in a data folder', () => {
  it('keeps the history across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paypulse-pglite-'));
    try {
      const first = await openHistory({ dataDir });
      await first.upsertMinutes([{ channel: 'kept', minute: t0, success: 3, failure: 1, started: 4 }]);
      await first.close();
      const second = await openHistory({ dataDir });
      try {
        expect(await second.minutes('kept', { from: t0, to: t0 })).toEqual([{ minute: t0, success: 3, failure: 1, started: 4 }]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
