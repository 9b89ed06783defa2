// The breaker's transitions in the history store (migration 003): written by the instance that made each
// transition, read back for a channel's breaker history.
import type { BreakerTransition } from '../routing/sharedBreakers.js';
import type { SqlClient } from '../store/ports/sqlClient.js';

export interface BreakerHistory {
  record(t: BreakerTransition): Promise<void>;
  /** Transitions of a channel with `from <= at <= to`, oldest first, at most `limit`. */
  list(channel: string, range: { from: number; to: number; limit?: number }): Promise<BreakerTransition[]>;
}

export function createBreakerHistory(db: SqlClient): BreakerHistory {
  return {
    async record(t) {
      await db.query(
        `INSERT INTO breaker_transitions (channel, scope, at, from_state, to_state, mode)
         VALUES ($1, $2, to_timestamp($3::float8 / 1000), $4, $5, $6)
         ON CONFLICT DO NOTHING`,
        [t.channel, t.scope, t.at, t.from, t.to, t.mode],
      );
    },
    async list(channel, { from, to, limit = 10_000 }) {
      const rows = await db.query<{ channel: string; scope: string; at: number; from_state: string; to_state: string; mode: string }>(
        `SELECT channel, scope, (extract(epoch FROM at) * 1000)::float8 AS at, from_state, to_state, mode
           FROM breaker_transitions
          WHERE channel = $1 AND at >= to_timestamp($2::float8 / 1000) AND at <= to_timestamp($3::float8 / 1000)
          ORDER BY at, to_state
          LIMIT $4::int`,
        [channel, from, to, limit],
      );
      return rows.map((r) => ({
        channel: r.channel,
        scope: r.scope,
        at: Number(r.at),
        from: r.from_state as BreakerTransition['from'],
        to: r.to_state as BreakerTransition['to'],
        mode: r.mode as BreakerTransition['mode'],
      }));
    },
  };
}
