// The embedded database runs with small shared buffers (its pages are in the file cache already, and the
// default 128 MB doubled them in the service's memory), from a folder: the caller's, or a scratch one of its own
// that closing removes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../../src/history/pgliteClient.js';

// This process's own: other processes on the machine make theirs meanwhile.
const scratchFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`paypulse-history-${process.pid}-`));

describe('embedded PGlite', () => {
  it('opens in a data folder with 16 MB of shared buffers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pp-pglite-'));
    const db = await openPglite(dir);
    try {
      expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      await db.exec('CREATE TABLE t (n int); INSERT INTO t SELECT generate_series(1, 1000)');
      expect(await db.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 1000 }]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('gives each database without a data folder its own scratch folder, removed when it closes', async () => {
    const before = scratchFolders();
    const [a, b] = [await openPglite(), await openPglite()];
    expect(await a.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    await a.exec('CREATE TABLE only_in_a (n int)');
    expect(await b.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'")).toEqual([{ n: 0 }]);
    expect(scratchFolders().filter((name) => !before.includes(name))).toHaveLength(2);
    await a.close();
    await b.close();
    expect(scratchFolders().filter((name) => !before.includes(name))).toEqual([]);
  }, 60_000);

  it('removes the scratch folder of a process that died without closing its database', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const orphan = join(tmpdir(), `paypulse-history-${dead}-test`);
    mkdirSync(orphan, { recursive: true });
    const db = await openPglite();
    await db.close();
    expect(existsSync(orphan)).toBe(false);
  }, 60_000);
});
