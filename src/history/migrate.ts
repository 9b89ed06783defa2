// Applies the plain SQL files of migrations/ in name order, each once, each in its own transaction.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { SqlClient } from '../store/ports/sqlClient.js';

/** The folder beside this module; `npm run build` copies it next to the compiled file. */
export const migrationsDir = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: string;
  sql: string;
}

export async function readMigrations(dir = migrationsDir): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((name) => /^\d+_[\w-]+\.sql$/.test(name)).sort();
  return Promise.all(names.map(async (name) => ({ version: name.replace(/\.sql$/, ''), sql: await readFile(`${dir}/${name}`, 'utf8') })));
}

/**
 * Every statement of a migration run, the bookkeeping table's creation included, runs after this lock: two
 * instances starting together on a fresh database otherwise both create that table, and the loser fails on
 * PostgreSQL's catalog index ("IF NOT EXISTS" does not guard against a concurrent CREATE). A transaction-level
 * lock, because a pooled client cannot promise that a session lock and the statements share one connection.
 */
async function lockMigrations(tx: SqlClient): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('paypulse:migrations'))`);
}

async function ensureBookkeeping(db: SqlClient): Promise<void> {
  await db.transaction(async (tx) => {
    await lockMigrations(tx);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text        PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
}

/** Returns the versions it applied (empty when the database was up to date). */
export async function migrate(db: SqlClient, migrations?: Migration[]): Promise<string[]> {
  const pending = migrations ?? (await readMigrations());
  await ensureBookkeeping(db);
  const applied: string[] = [];
  for (const migration of pending) {
    const done = await db.transaction(async (tx) => {
      // The second instance waits here and then sees the first one's row.
      await lockMigrations(tx);
      const rows = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (rows.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
