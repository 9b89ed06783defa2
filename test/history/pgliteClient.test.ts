// The embedded database runs with small shared buffers: its pages are in the process already, and the
// default 128 MB doubled them in the service's memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../../src/history/pgliteClient.js';

describe('embedded PGlite', () => {
  it.each([['in memory', false], ['in a data folder', true]])('opens %s with 16 MB of shared buffers', async (_, inFolder) => {
    const dir = inFolder ? mkdtempSync(join(tmpdir(), 'pp-pglite-')) : undefined;
    const db = await openPglite(dir);
    try {
      expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      await db.exec('CREATE TABLE t (n int); INSERT INTO t SELECT generate_series(1, 1000)');
      expect(await db.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 1000 }]);
    } finally {
      await db.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
