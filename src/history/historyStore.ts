// Reads and writes per-minute snapshots. Timestamps cross the port as epoch ms (the library's unit);
// the table keeps timestamptz so people querying it with psql read real dates.
import type { MinuteCounts } from '../types.js';
import { createAlertHistory, type AlertHistory } from '../alerts/history.js';
import type { SqlClient } from './sqlClient.js';
import { createBreakerHistory, type BreakerHistory } from './breakerTransitions.js';

export interface MinuteSnapshot extends MinuteCounts {
  channel: string;
}

export interface HistoryStore {
  readonly kind: SqlClient['kind'];
  /** The database itself, for the other tables it holds (the kit's authority for marks and locks, migrations 004 and 005). */
  readonly sql?: SqlClient;
  /** Inserts or corrects snapshots; rows whose counts did not change are left alone. Returns rows written. */
  upsertMinutes(rows: MinuteSnapshot[]): Promise<number>;
  /**
   * Like upsertMinutes, for copies that may be partial (a store that forgot): a minute's success and failure
   * are replaced only by a pair with at least as many outcomes, and `started` only rises. `kept` counts the
   * minutes whose history held more outcomes than the copy.
   */
  mergeMinutes(rows: MinuteSnapshot[]): Promise<{ written: number; kept: number }>;
  /** A channel's minutes with `from <= minute <= to`, oldest first. */
  minutes(channel: string, range: { from: number; to: number; limit?: number }): Promise<MinuteCounts[]>;
  /** Several channels' minutes with `from <= minute <= to` in one query, by channel then oldest first. */
  minutesOfChannels(channels: readonly string[], range: { from: number; to: number; limit?: number }): Promise<MinuteSnapshot[]>;
  /** Every channel's minutes with `from <= minute <= to`, by channel then oldest first; at most `limit` rows. */
  minutesOfEveryChannel(range: { from: number; to: number; limit?: number }): Promise<MinuteSnapshot[]>;
  /** Deletes at most `limit` minutes older than `before` (bounded, so a long backlog never holds a long lock). */
  prune(before: number, limit?: number): Promise<number>;
  /** Transitions of the shared circuit breakers (migration 003). */
  readonly breakers: BreakerHistory;
  /** Alert transitions (table alert_transitions), for GET /v1/alerts/history. */
  readonly alerts?: AlertHistory;
  /** Throws when the database cannot answer: /readyz uses it. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Five parameters a row; PostgreSQL allows 65,535 parameters a statement, so 2,000 rows stay far below it.
// PGlite runs a statement synchronously on the event loop: smaller statements with a turn of the event loop
// between them keep the service answering during a copy (docs/decisions/067-long-tasks-yield.md).
const rowsPerStatement = (db: SqlClient) => (db.kind === 'pglite' ? 250 : 2_000);
const betweenStatements = (db: SqlClient) => (db.kind === 'pglite' ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined);

const upsertTail = `
ON CONFLICT (channel, minute) DO UPDATE
   SET success = EXCLUDED.success, failure = EXCLUDED.failure, started = EXCLUDED.started, updated_at = now()
 WHERE (minute_snapshots.success, minute_snapshots.failure, minute_snapshots.started)
       IS DISTINCT FROM (EXCLUDED.success, EXCLUDED.failure, EXCLUDED.started)
RETURNING 1`;

// The copy's pair wins only when it counts at least as many terminal outcomes: a failure upgraded to a later
// success leaves the total alone, a store that forgot the minute lowers it.
const copyHasAsMany = 'i.success + i.failure >= minute_snapshots.success + minute_snapshots.failure';
const mergeTail = `
ON CONFLICT (channel, minute) DO UPDATE
   SET success = CASE WHEN ${copyHasAsMany.replaceAll('i.', 'EXCLUDED.')} THEN EXCLUDED.success ELSE minute_snapshots.success END,
       failure = CASE WHEN ${copyHasAsMany.replaceAll('i.', 'EXCLUDED.')} THEN EXCLUDED.failure ELSE minute_snapshots.failure END,
       started = GREATEST(minute_snapshots.started, EXCLUDED.started),
       updated_at = now()
 WHERE (${copyHasAsMany.replaceAll('i.', 'EXCLUDED.')}
        AND (minute_snapshots.success, minute_snapshots.failure) IS DISTINCT FROM (EXCLUDED.success, EXCLUDED.failure))
    OR EXCLUDED.started > minute_snapshots.started
RETURNING 1`;

/** `($1, to_timestamp($2 / 1000), $3, $4, $5), …` for a chunk of rows, its parameters pushed onto `params`. */
function valuesOf(chunk: MinuteSnapshot[], params: unknown[]): string {
  return chunk
    .map((row) => {
      const p = params.length;
      params.push(row.channel, row.minute, row.success, row.failure, row.started);
      return `($${p + 1}::text, to_timestamp($${p + 2}::float8 / 1000), $${p + 3}::int, $${p + 4}::int, $${p + 5}::int)`;
    })
    .join(', ');
}

/** Minutes in [$1, $2] (epoch ms) matching `where`, by channel then oldest first, at most $3 rows. */
async function selectMinutes(db: SqlClient, where: string, params: unknown[]): Promise<MinuteSnapshot[]> {
  const rows = await db.query<{ channel: string; minute: number; success: number; failure: number; started: number }>(
    `SELECT channel, (extract(epoch FROM minute) * 1000)::float8 AS minute, success, failure, started
       FROM minute_snapshots
      WHERE ${where} AND minute >= to_timestamp($1::float8 / 1000) AND minute <= to_timestamp($2::float8 / 1000)
      ORDER BY channel, minute
      LIMIT $3::int`,
    params,
  );
  return rows.map((r) => ({ channel: r.channel, minute: Number(r.minute), success: r.success, failure: r.failure, started: r.started }));
}

export function createHistoryStore(db: SqlClient): HistoryStore {
  return {
    kind: db.kind,
    sql: db,
    breakers: createBreakerHistory(db),
    alerts: createAlertHistory(db),
    async upsertMinutes(rows) {
      let written = 0;
      const size = rowsPerStatement(db);
      for (let start = 0; start < rows.length; start += size) {
        if (start > 0) await betweenStatements(db);
        const chunk = rows.slice(start, start + size);
        const params: unknown[] = [];
        const result = await db.query(
          `INSERT INTO minute_snapshots (channel, minute, success, failure, started) VALUES ${valuesOf(chunk, params)}${upsertTail}`,
          params,
        );
        written += result.length;
      }
      return written;
    },
    async mergeMinutes(rows) {
      const total = { written: 0, kept: 0 };
      const size = rowsPerStatement(db);
      for (let start = 0; start < rows.length; start += size) {
        if (start > 0) await betweenStatements(db);
        const params: unknown[] = [];
        // One statement: `kept` reads the rows as they were before the insert (a data-modifying CTE's snapshot).
        const [counts] = await db.query<{ written: number; kept: number }>(
          `WITH i (channel, minute, success, failure, started) AS (VALUES ${valuesOf(rows.slice(start, start + size), params)}),
                kept AS (SELECT count(*) AS n FROM i JOIN minute_snapshots USING (channel, minute) WHERE NOT (${copyHasAsMany})),
                merged AS (INSERT INTO minute_snapshots (channel, minute, success, failure, started)
                           SELECT channel, minute, success, failure, started FROM i${mergeTail})
           SELECT (SELECT count(*) FROM merged)::int AS written, (SELECT n FROM kept)::int AS kept`,
          params,
        );
        total.written += counts.written;
        total.kept += counts.kept;
      }
      return total;
    },
    async minutes(channel, { from, to, limit = 50_000 }) {
      const rows = await selectMinutes(db, 'channel = $4', [from, to, limit, channel]);
      return rows.map(({ channel: _channel, ...counts }) => counts);
    },
    async minutesOfChannels(channels, { from, to, limit = 100_000 }) {
      if (channels.length === 0) return [];
      // One placeholder a channel rather than an array parameter: both drivers bind plain text the same way.
      const list = channels.map((_, i) => `$${i + 4}`).join(', ');
      return selectMinutes(db, `channel IN (${list})`, [from, to, limit, ...channels]);
    },
    minutesOfEveryChannel: ({ from, to, limit = 100_000 }) => selectMinutes(db, 'TRUE', [from, to, limit]),
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
