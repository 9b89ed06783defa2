// The kit's locks and callback marks on PostgreSQL (migration 004_kit_fallback.sql): the same replies as the
// Redis scripts (lua/kit/*.lua), each one statement whose ON CONFLICT makes it atomic across instances. A
// statement that loses a race reads the winner's row in a second statement, whose snapshot sees that commit.
import type { SqlClient } from '../../history/sqlClient.js';
import type { AcquireLockReply, BeginIdempotentReply, KitStore, LockKeys } from '../ports/kit.js';

export type KitFallback = Pick<
  KitStore,
  'acquireLock' | 'releaseLock' | 'extendLock' | 'beginIdempotent' | 'completeIdempotent' | 'abandonIdempotent'
>;

const ms = (param: number) => `($${param}::float8 * interval '1 millisecond')`;
const remainingMs = `GREATEST(0, extract(epoch FROM expires_at - now()) * 1000)::float8`;
/** A race lost to a row that then expired or went: try again, a few times at most. */
const maxAttempts = 5;

async function beginIdempotent(db: SqlClient, key: string, token: string, fingerprint: string, processingMs: number): Promise<BeginIdempotentReply> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const acquired = await db.query(
      `INSERT INTO kit_idempotency (key, state, owner, fingerprint, expires_at) VALUES ($1, 'processing', $2, $3, now() + ${ms(4)})
       ON CONFLICT (key) DO UPDATE
          SET state = 'processing', owner = EXCLUDED.owner, fingerprint = EXCLUDED.fingerprint, result = '', expires_at = EXCLUDED.expires_at
        WHERE kit_idempotency.expires_at <= now()
       RETURNING 1`,
      [key, token, fingerprint, processingMs],
    );
    if (acquired.length > 0) return { state: 'acquired' };
    const [mark] = await db.query<{ state: string; fingerprint: string; result: string; ttl_ms: number }>(
      `SELECT state, fingerprint, result, ${remainingMs} AS ttl_ms FROM kit_idempotency WHERE key = $1 AND expires_at > now()`,
      [key],
    );
    if (!mark) continue;
    if (fingerprint !== '' && mark.fingerprint !== '' && mark.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (mark.state === 'done') return { state: 'done', result: mark.result };
    return { state: 'processing', retryAfterMs: Math.max(1, Math.ceil(Number(mark.ttl_ms))) };
  }
  return { state: 'processing', retryAfterMs: 1 };
}

async function acquireLock(db: SqlClient, keys: LockKeys, token: string, ttlMs: number, nowMs: number): Promise<AcquireLockReply> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const [won] = await db.query<{ fence: string }>(
      `INSERT INTO kit_locks (resource, owner, fence, expires_at) VALUES ($1, $2, $3::bigint, now() + ${ms(4)})
       ON CONFLICT (resource) DO UPDATE
          SET owner = EXCLUDED.owner, fence = GREATEST(kit_locks.fence + 1, EXCLUDED.fence), expires_at = EXCLUDED.expires_at
        WHERE kit_locks.owner IS NULL OR kit_locks.expires_at <= now()
       RETURNING fence::text AS fence`,
      [keys.lock, token, String(Math.floor(nowMs) * 1000), ttlMs],
    );
    if (won) return { acquired: true, fence: Number(won.fence) };
    const [held] = await db.query<{ ttl_ms: number }>(
      `SELECT ${remainingMs} AS ttl_ms FROM kit_locks WHERE resource = $1 AND owner IS NOT NULL AND expires_at > now()`,
      [keys.lock],
    );
    if (held) return { acquired: false, retryAfterMs: Math.max(1, Math.ceil(Number(held.ttl_ms))) };
  }
  return { acquired: false, retryAfterMs: 1 };
}

export function createPostgresKitFallback(db: SqlClient): KitFallback {
  return {
    beginIdempotent: (key, token, fingerprint, processingMs) => beginIdempotent(db, key, token, fingerprint, processingMs),
    async completeIdempotent(key, token, fingerprint, result, ttlMs) {
      const rows = await db.query(
        `INSERT INTO kit_idempotency (key, state, owner, fingerprint, result, expires_at) VALUES ($1, 'done', $2, $3, $4, now() + ${ms(5)})
         ON CONFLICT (key) DO UPDATE
            SET state = 'done', owner = EXCLUDED.owner, fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result, expires_at = EXCLUDED.expires_at
          WHERE kit_idempotency.expires_at <= now() OR (kit_idempotency.state = 'processing' AND kit_idempotency.owner = EXCLUDED.owner)
         RETURNING 1`,
        [key, token, fingerprint, result, ttlMs],
      );
      return rows.length > 0;
    },
    async abandonIdempotent(key, token) {
      const rows = await db.query(
        `DELETE FROM kit_idempotency WHERE key = $1 AND state = 'processing' AND owner = $2 AND expires_at > now() RETURNING 1`,
        [key, token],
      );
      return rows.length > 0;
    },
    acquireLock: (keys, token, ttlMs, nowMs) => acquireLock(db, keys, token, ttlMs, nowMs),
    async releaseLock(keys, token) {
      const rows = await db.query(
        `UPDATE kit_locks SET owner = NULL, expires_at = now() WHERE resource = $1 AND owner = $2 AND expires_at > now() RETURNING 1`,
        [keys.lock, token],
      );
      return rows.length > 0;
    },
    async extendLock(keys, token, ttlMs) {
      const rows = await db.query(
        `UPDATE kit_locks SET expires_at = now() + ${ms(3)} WHERE resource = $1 AND owner = $2 AND expires_at > now() RETURNING 1`,
        [keys.lock, token, ttlMs],
      );
      return rows.length > 0;
    },
  };
}
