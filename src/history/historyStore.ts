// Reads and writes per-minute snapshots. Timestamps cross the port as epoch ms (the library's unit);
// the table keeps timestamptz so people querying it with psql read real dates.
import type { MinuteCounts } from '../types.js';
import { createAlertHistory, type AlertHistory } from '../alerts/history.js';
import type { SqlClient } from './sqlClient.js';

export interface MinuteSnapshot extends MinuteCounts {
  channel: string;
}

export interface HistoryStore {
  readonly kind: SqlClient['kind'];
  /** Inserts or corrects snapshots; rows whose counts did not change are left alone. Returns rows written. */
  upsertMinutes(rows: MinuteSnapshot[]): Promise<number>;
  /** A channel's minutes with `from <= minute <= to`, oldest first. */
  minutes(channel: string, range: { from: number; to: number; limit?: number }): Promise<MinuteCounts[]>;
  /** Deletes at most `limit` minutes older than `before` (bounded, so a long backlog never holds a long lock). */
  prune(before: number, limit?: number): Promise<number>;
  /** Alert transitions (table alert_transitions), for GET /v1/alerts/history. */
  readonly alerts?: AlertHistory;
  /** Throws when the database cannot answer: /readyz uses it. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Five parameters a row; PostgreSQL allows 65,535 parameters a statement, so 2,000 rows stay far below it.
const rowsPerStatement = 2_000;

const upsertTail = `
ON CONFLICT (channel, minute) DO UPDATE
   SET success = EXCLUDED.success, failure = EXCLUDED.failure, started = EXCLUDED.started, updated_at = now()
 WHERE (minute_snapshots.success, minute_snapshots.failure, minute_snapshots.started)
       IS DISTINCT FROM (EXCLUDED.success, EXCLUDED.failure, EXCLUDED.started)
RETURNING 1`;

export function createHistoryStore(db: SqlClient): HistoryStore {
  return {
    kind: db.kind,
    alerts: createAlertHistory(db),
    async upsertMinutes(rows) {
      let written = 0;
      for (let start = 0; start < rows.length; start += rowsPerStatement) {
        const chunk = rows.slice(start, start + rowsPerStatement);
        const params: unknown[] = [];
        const values = chunk.map((row) => {
          const p = params.length;
          params.push(row.channel, row.minute, row.success, row.failure, row.started);
          return `($${p + 1}, to_timestamp($${p + 2}::float8 / 1000), $${p + 3}::int, $${p + 4}::int, $${p + 5}::int)`;
        });
        const result = await db.query(
          `INSERT INTO minute_snapshots (channel, minute, success, failure, started) VALUES ${values.join(', ')}${upsertTail}`,
          params,
        );
        written += result.length;
      }
      return written;
    },
    async minutes(channel, { from, to, limit = 50_000 }) {
      const rows = await db.query<{ minute: number; success: number; failure: number; started: number }>(
        `SELECT (extract(epoch FROM minute) * 1000)::float8 AS minute, success, failure, started
           FROM minute_snapshots
          WHERE channel = $1 AND minute >= to_timestamp($2::float8 / 1000) AND minute <= to_timestamp($3::float8 / 1000)
          ORDER BY minute
          LIMIT $4::int`,
        [channel, from, to, limit],
      );
      return rows.map((r) => ({ minute: Number(r.minute), success: r.success, failure: r.failure, started: r.started }));
    },
    async prune(before, limit = 10_000) {
      // PostgreSQL's DELETE has no LIMIT; selecting the ctids first bounds the work on both engines.
      const rows = await db.query(
        `DELETE FROM minute_snapshots
          WHERE ctid IN (SELECT ctid FROM minute_snapshots WHERE minute < to_timestamp($1::float8 / 1000) LIMIT $2::int)
          RETURNING 1`,
        [before, limit],
      );
      return rows.length;
    },
    async ping() {
      await db.query('SELECT 1');
    },
    close: () => db.close(),
  };
}
