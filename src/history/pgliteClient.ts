// SqlClient over embedded PostgreSQL (PGlite): the default when no DATABASE_URL is given.
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { ensureCluster, scratchFolder } from './pgliteCluster.js';
import type { SqlClient } from './sqlClient.js';

type Db = PGlite | Transaction;

function wrap(db: Db, close: () => Promise<void>): SqlClient {
  return {
    kind: 'pglite',
    async query<Row extends object>(text: string, params: unknown[] = []) {
      const result = await db.query<Row>(text, params);
      return result.rows;
    },
    async exec(text: string) {
      await db.exec(text);
    },
    async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
      if (!('transaction' in db)) throw new Error('nested transactions are not supported');
      return db.transaction((tx) => work(wrap(tx, async () => undefined)));
    },
    close,
  };
}

// PostgreSQL's default 128 MB of shared buffers copies pages PGlite already holds in memory (its files live in
// the process, in memory or cached from the data folder); the history tables need little
// (docs/decisions/066-embedded-postgres-from-a-template-folder.md).
const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'wal_buffers=1MB'];

/** `dataDir` keeps the database in that folder across restarts; without it the database lasts as long as the client. */
export async function openPglite(dataDir?: string): Promise<SqlClient> {
  const scratch = dataDir ? undefined : await scratchFolder();
  try {
    const dir = dataDir ?? scratch!.dir;
    await ensureCluster(dir, startParams);
    const db = await PGlite.create({ dataDir: dir, startParams });
    return wrap(db, async () => {
      await db.close();
      await scratch?.remove();
    });
  } catch (err) {
    await scratch?.remove();
    throw err;
  }
}
