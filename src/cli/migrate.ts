// `paypulse migrate`: applies the history database's migrations and exits, for rollouts that prefer a
// separate step before starting the replicas. The database comes from the same configuration `serve` reads.
import { migrate } from '../history/migrate.js';
import { connectPostgres } from '../history/postgresClient.js';
import { openPglite } from '../history/pgliteClient.js';
import type { SqlClient } from '../store/ports/sqlClient.js';
import { loadConfig, type LoadConfigOptions } from '../server/config.js';

export interface MigrateCommandOptions extends LoadConfigOptions {
  /** Where the lines go; stdout by default. */
  write?: (line: string) => void;
}

/** Where a URL's password would show, the line says `***`: the line lands in deployment logs. */
function describeDatabase(config: { databaseUrl?: string; dataDir?: string }): string {
  if (!config.databaseUrl) return `embedded PostgreSQL in ${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

/** Resolves with the versions applied; throws (the CLI prints the message, exits 1) when nothing can be migrated. */
export async function migrateCommand(options: MigrateCommandOptions = {}): Promise<string[]> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const config = loadConfig(options);
  if (!config.databaseUrl && !config.dataDir) {
    // The service's default is a PGlite database in memory, which a separate step cannot prepare.
    throw new Error('paypulse migrate: no database configured; set DATABASE_URL (or databaseUrl), or PAYPULSE_DATA_DIR for embedded PostgreSQL');
  }
  const where = describeDatabase(config);
  let db: SqlClient | undefined;
  try {
    db = config.databaseUrl ? connectPostgres(config.databaseUrl, { maxConnections: 1 }) : await openPglite(config.dataDir);
    const applied = await migrate(db);
    write(applied.length === 0
      ? `paypulse migrate: ${where} is up to date`
      : `paypulse migrate: applied ${applied.join(', ')} to ${where}`);
    return applied;
  } catch (err) {
    throw new Error(`paypulse migrate: ${where}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await db?.close().catch(() => undefined);
  }
}
