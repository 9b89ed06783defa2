// A new embedded database starts from a fresh-database tarball made once in a child process and cached: the
// cache is made whole or not at all under concurrent first starts, a damaged cache is made again, and a
// database opened from it (in memory or in a folder) takes the schema and keeps its rows across reopening.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/history/pgliteClient.js';
import { freshDatabaseTar, seedCachePath } from '../../src/history/pgliteSeed.js';

const scratch = mkdtempSync(join(tmpdir(), 'pp-seed-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('fresh-database seed', () => {
  it('names the cache by PGlite version and user, inside the folder given', () => {
    const path = seedCachePath(scratch);
    expect(path.startsWith(scratch)).toBe(true);
    expect(path).toMatch(/paypulse-pglite-\d+\.\d+\.\d+-\w+\.tar\.gz$/);
  });

  it('two concurrent first starts both get a tarball and leave one whole cache file', { timeout: 120_000 }, async () => {
    const path = join(scratch, 'concurrent.tar.gz');
    const [a, b] = await Promise.all([freshDatabaseTar(path), freshDatabaseTar(path)]);
    expect(a?.size).toBeGreaterThan(1_000_000);
    expect(b?.size).toBe(a?.size);
    expect(gunzipSync(readFileSync(path)).length).toBe(a?.size);
    const modifiedMs = statSync(path).mtimeMs;
    expect((await freshDatabaseTar(path))?.size).toBe(a?.size); // read from the cache, not made again
    expect(statSync(path).mtimeMs).toBe(modifiedMs);
  });

  it('a truncated cache file is made again', { timeout: 120_000 }, async () => {
    const path = join(scratch, 'damaged.tar.gz');
    const whole = readFileSync(join(scratch, 'concurrent.tar.gz'));
    writeFileSync(path, whole.subarray(0, whole.length >> 1));
    const tar = await freshDatabaseTar(path);
    expect(tar?.size).toBeGreaterThan(1_000_000);
    expect(gunzipSync(readFileSync(path)).length).toBe(tar?.size);
  });

  it('an in-memory database from the seed runs SQL', { timeout: 120_000 }, async () => {
    const db = await openPglite();
    try {
      await db.exec('CREATE TABLE t (n int); INSERT INTO t SELECT generate_series(1, 1000)');
      expect(await db.query<{ count: number }>('SELECT count(*)::int AS count FROM t')).toEqual([{ count: 1000 }]);
    } finally {
      await db.close();
    }
  });

  it('a data folder is created from the seed on first start and reopened as it was', { timeout: 120_000 }, async () => {
    const dataDir = join(scratch, 'data');
    const first = await openPglite(dataDir);
    await first.exec("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('across restarts')");
    await first.close();
    expect(statSync(join(dataDir, 'PG_VERSION')).isFile()).toBe(true);
    const second = await openPglite(dataDir);
    try {
      expect(await second.query('SELECT v FROM kept')).toEqual([{ v: 'across restarts' }]);
    } finally {
      await second.close();
    }
  });
});
