// SqlClient over a PostgreSQL server with postgres.js (porsager).
import postgres from 'postgres';
import type { SqlClient } from '../store/ports/sqlClient.js';

type Sql = postgres.Sql | postgres.TransactionSql;

function wrap(sql: Sql, end: () => Promise<void>): SqlClient {
  return {
    kind: 'postgres',
    async query<Row extends object>(text: string, params: unknown[] = []) {
      // unsafe() is postgres.js's entry for text written elsewhere; values still travel as bound parameters.
      const rows = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]);
      return rows as unknown as Row[];
    },
    async exec(text: string) {
      // Without parameters postgres.js uses the simple protocol, which accepts several statements.
      await sql.unsafe(text);
    },
    async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
      if (!('begin' in sql)) throw new Error('nested transactions are not supported');
      const result = await sql.begin((tx) => work(wrap(tx, async () => undefined)));
      return result as T;
    },
    close: end,
  };
}

export function connectPostgres(url: string, options: { maxConnections?: number } = {}): SqlClient {
  const sql = postgres(url, {
    max: options.maxConnections ?? 4,
    // Migrations say "CREATE TABLE IF NOT EXISTS"; the NOTICE for an existing table is noise in the logs.
    onnotice: () => undefined,
    // A history store that cannot connect must fail /readyz quickly, not hang a probe for 30 s.
    connect_timeout: 5,
  });
  return wrap(sql, () => sql.end({ timeout: 5 }));
}
