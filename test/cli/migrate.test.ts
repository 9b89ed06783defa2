// `paypulse migrate` as a rollout runs it, in a child process: it applies the migrations to the configured
// database and exits 0, says so when there is nothing left to apply, and exits 1 with a line naming the
// database (never its password) when none is configured or the server cannot be reached.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/history/migrate.js';
import { connectPostgres } from '../../src/history/postgresClient.js';
import { createTestDatabase } from '../history/databases.js';
import { freePort } from '../support/redisServer.js';
import { runCli, type CliProcess } from './cliProcess.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** The test runner's own environment must not choose the database. */
const noDatabase = { DATABASE_URL: '', PAYPULSE_DATA_DIR: '', PAYPULSE_CONFIG: '' };

function started(args: string[], env: NodeJS.ProcessEnv): CliProcess {
  const cli = runCli(args, { ...noDatabase, ...env });
  cleanups.push(() => cli.stop());
  return cli;
}

describe('paypulse migrate', () => {
  it('applies every migration to DATABASE_URL, exits 0, and reports the database up to date on a second run', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const versions = (await readMigrations()).map((m) => m.version);

    const first = started(['migrate'], { DATABASE_URL: database.url });
    expect(await first.exited, first.stderr).toBe(0);
    expect(first.stdout).toContain(`paypulse migrate: applied ${versions.join(', ')} to ${database.url}`);

    const db = connectPostgres(database.url, { maxConnections: 1 });
    cleanups.push(() => db.close());
    const rows = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(versions);

    const second = started(['migrate'], { DATABASE_URL: database.url });
    expect(await second.exited, second.stderr).toBe(0);
    expect(second.stdout).toContain(`paypulse migrate: ${database.url} is up to date`);
  }, 90_000);

  it('migrates the embedded database of PAYPULSE_DATA_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paypulse-migrate-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const cli = started(['migrate'], { PAYPULSE_DATA_DIR: dir });
    expect(await cli.exited, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/paypulse migrate: applied 001_\w+/);
    expect(cli.stdout).toContain(`embedded PostgreSQL in ${dir}`);
  }, 90_000);

  it('exits 1 and says what to set when no database is configured', async () => {
    const cli = started(['migrate'], {});
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain('paypulse migrate: no database configured; set DATABASE_URL');
  });

  it('exits 1 naming the server it cannot reach, without the password', async () => {
    const port = await freePort();
    const cli = started(['migrate'], { DATABASE_URL: `postgres://someone:hunter2secret@127.0.0.1:${port}/nothing` });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain(`paypulse migrate: postgres://someone:***@127.0.0.1:${port}/nothing: `);
    expect(cli.stderr).toMatch(/ECONNREFUSED/);
    expect(cli.stderr).not.toContain('hunter2secret');
  });
});
