// Alert transitions in the history store (PostgreSQL or PGlite, table alert_transitions of migration
// 002_alerts.sql), behind the alerts' port (alerts/history.ts).
import { maxHistoryRows, type AlertHistory } from '../alerts/history.js';
import type { AlertNotification } from '../alerts/notification.js';
import type { SqlClient } from '../store/ports/sqlClient.js';

export function createAlertHistory(db: SqlClient): AlertHistory {
  return {
    async record(n) {
      await db.query(
        `INSERT INTO alert_transitions (at, alert_id, alertname, channel, dims, rule, transition, level, since, muted, body)
         VALUES (to_timestamp($1::float8 / 1000), $2, $3, $4, $5::jsonb, $6, $7, $8, to_timestamp($9::float8 / 1000), $10, $11::jsonb)`,
        [n.at, n.id, n.alertname, n.channel, n.dims ? JSON.stringify(n.dims) : null, n.ruleId, n.transition, n.level, n.since, n.muted, JSON.stringify(n)],
      );
    },
    async list({ from, to, channel, limit = maxHistoryRows }) {
      const rows = await db.query<{ body: AlertNotification | string }>(
        `SELECT body FROM alert_transitions
          WHERE at >= to_timestamp($1::float8 / 1000) AND at <= to_timestamp($2::float8 / 1000) AND ($3::text IS NULL OR channel = $3)
          ORDER BY at DESC, id DESC
          LIMIT $4::int`,
        [from, to, channel ?? null, Math.min(limit, maxHistoryRows)],
      );
      return rows.map((r) => (typeof r.body === 'string' ? (JSON.parse(r.body) as AlertNotification) : r.body));
    },
    async prune(before, limit = 10_000) {
      const rows = await db.query(
        `DELETE FROM alert_transitions WHERE id IN (SELECT id FROM alert_transitions WHERE at < to_timestamp($1::float8 / 1000) ORDER BY at LIMIT $2::int) RETURNING 1`,
        [before, limit],
      );
      return rows.length;
    },
  };
}
