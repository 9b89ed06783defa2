// Both history backends for the same tests: embedded PGlite (in memory) and the real PostgreSQL server on
// this machine. Each PostgreSQL test gets its own database, created here and dropped after, so no other
// database on the server is touched.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openPglite } from '../../src/history/pgliteClient.js';
import { connectPostgres } from '../../src/history/postgresClient.js';
import type { SqlClient } from '../../src/store/ports/sqlClient.js';

/** The maintenance database used only to CREATE and DROP the test databases. */
const adminUrl = process.env.PAYPULSE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `paypulse_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // FORCE ends sessions a failed test may have left open; the name is ours alone.
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface Backend {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database client and a function that disposes of it. */
  open(): Promise<{ db: SqlClient; url?: string; dispose(): Promise<void> }>;
}

export const backends: Backend[] = [
  {
    name: 'pglite',
    async open() {
      const db = await openPglite();
      return { db, dispose: () => db.close() };
    },
  },
  {
    name: 'postgres',
    async open() {
      const database = await createTestDatabase();
      const db = connectPostgres(database.url);
      return {
        db,
        url: database.url,
        async dispose() {
          await db.close();
          await database.drop();
        },
      };
    },
  },
];
