// Migrations run from many instances at once against one fresh database (every first rollout of two or more
// replicas): each must finish without an error, each migration applied exactly once. Real PostgreSQL, one
// connection pool per migrator as separate processes would have.
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/history/migrate.js';
import { connectPostgres } from '../../src/history/postgresClient.js';
import type { SqlClient } from '../../src/store/ports/sqlClient.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

let database: TestDatabase | undefined;
const clients: SqlClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((db) => db.close()));
  await database?.drop();
  database = undefined;
});

describe('migrations from concurrent instances', () => {
  it.each([2, 6])('%i migrators started together on a fresh database all succeed, each migration applied once', async (migrators) => {
    // Several rounds: the race on the bookkeeping table's first creation is narrow and a single round can miss it.
    const versions = (await readMigrations()).map((m) => m.version);
    for (let round = 0; round < 4; round++) {
      database = await createTestDatabase();
      const url = database.url;
      const opened = Array.from({ length: migrators }, () => connectPostgres(url, { maxConnections: 1 }));
      clients.push(...opened);
      // Every client holds an open connection first, so the migrations start as close together as they can.
      await Promise.all(opened.map((db) => db.query('SELECT 1')));
      const results = await Promise.allSettled(opened.map((db) => migrate(db)));
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failures).toEqual([]);
      const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      expect(applied.sort()).toEqual(versions);
      const rows = await opened[0]!.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(versions);
      await Promise.all(clients.splice(0).map((db) => db.close()));
      await database.drop();
      database = undefined;
    }
  });
});
