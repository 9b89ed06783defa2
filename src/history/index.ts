// Opens the history store the configuration asks for: a PostgreSQL server when a URL is given,
// embedded PGlite otherwise (in `dataDir` when set, in memory when not), with migrations applied.
import { createHistoryStore, type HistoryStore } from './historyStore.js';
import { migrate } from './migrate.js';
import { connectPostgres } from './postgresClient.js';
import { openPglite } from './pgliteClient.js';
import type { SqlClient } from '../store/ports/sqlClient.js';

export interface HistoryOptions {
  databaseUrl?: string;
  dataDir?: string;
}

export async function openHistory(options: HistoryOptions = {}): Promise<HistoryStore> {
  const db: SqlClient = options.databaseUrl ? connectPostgres(options.databaseUrl) : await openPglite(options.dataDir);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return createHistoryStore(db);
}

export type { HistoryStore, MinuteSnapshot } from './historyStore.js';
export { startSnapshotJob, type SnapshotJob, type SnapshotJobStats } from './snapshotJob.js';
