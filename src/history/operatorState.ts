// The operator-state port on PostgreSQL (or PGlite), table operator_state of migration 006. One statement per
// call: an upsert, a DELETE … RETURNING (which tells exactly one of concurrent callers that it deleted the row),
// and a listing that first deletes what expired, in one transaction.
import type { KeptKind, KeptState, OperatorStateStore } from '../store/ports/operatorState.js';
import { migrate } from './migrate.js';
import { connectPostgres } from './postgresClient.js';
import type { SqlClient } from '../store/ports/sqlClient.js';

const at = (param: number) => `to_timestamp($${param}::float8 / 1000)`;

interface Row {
  kind: KeptKind;
  channel: string;
  scope: string;
  value: string;
  note: string;
  expires_ms: number | null;
}

export function createPostgresOperatorState(db: SqlClient): OperatorStateStore {
  return {
    async keep(namespace, s) {
      await db.query(
        `INSERT INTO operator_state (namespace, kind, channel, scope, value, note, expires_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::float8 IS NULL THEN NULL ELSE ${at(7)} END, now())
         ON CONFLICT (namespace, kind, channel, scope) DO UPDATE
            SET value = EXCLUDED.value, note = EXCLUDED.note, expires_at = EXCLUDED.expires_at, updated_at = now()`,
        [namespace, s.kind, s.channel, s.scope, s.value, s.note, s.expiresAt],
      );
    },
    async drop(namespace, kind, channel, scope, onlyIfValue) {
      const rows = await db.query(
        `DELETE FROM operator_state
          WHERE namespace = $1 AND kind = $2 AND channel = $3 AND scope = $4 AND ($5::text IS NULL OR value = $5)
         RETURNING 1`,
        [namespace, kind, channel, scope, onlyIfValue ?? null],
      );
      return rows.length > 0;
    },
    async list(namespace, nowMs, limit) {
      const rows = await db.transaction(async (tx) => {
        await tx.query(`DELETE FROM operator_state WHERE namespace = $1 AND expires_at <= ${at(2)}`, [namespace, nowMs]);
        return tx.query<Row>(
          `SELECT kind, channel, scope, value, note, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms
             FROM operator_state WHERE namespace = $1
            ORDER BY kind, channel, scope
            LIMIT $2::int`,
          [namespace, limit],
        );
      });
      return rows.map((r) => ({
        kind: r.kind,
        channel: r.channel,
        scope: r.scope,
        value: r.value,
        note: r.note,
        expiresAt: r.expires_ms === null ? null : Number(r.expires_ms),
      }));
    },
  };
}

/**
 * For the library: a PostgreSQL server's operator-state store, migrations applied (`createPulse({ operatorState:
 * { store } })`). Every instance of a fleet gives the same database; `close()` it after the pulse.
 */
export async function openPostgresOperatorState(databaseUrl: string): Promise<OperatorStateStore & { close(): Promise<void> }> {
  const db = connectPostgres(databaseUrl, { maxConnections: 2 });
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return { ...createPostgresOperatorState(db), close: () => db.close() };
}
