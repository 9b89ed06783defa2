// The narrow SQL port the history store and the kit's PostgreSQL authority talk to. PostgreSQL servers
// (postgres.js) and embedded PGlite both implement it, so one set of SQL statements and one migration folder
// serve both (docs/architecture.md).

export interface SqlClient {
  /** One parameterised statement ($1, $2 …); rows come back as plain objects. */
  query<Row extends object = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Several statements separated by semicolons, no parameters: what a migration file holds. */
  exec(text: string): Promise<void>;
  /** Runs `work` in one transaction; it commits when `work` resolves and rolls back when it throws. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** `postgres` (a server) or `pglite` (embedded): shown by /readyz and the logs. */
  readonly kind: 'postgres' | 'pglite';
}
